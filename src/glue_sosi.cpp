// Glue for SOSI and the supervised embeddings (inst/include/manifoldOOS/sosi.h).
// Labels arrive 1-based from R and are passed 0-based to the core.
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/methods/sosi.h>
#include "glue_helpers.h"

namespace {
arma::ivec labels0(const arma::ivec& l1) { return l1 - 1; }

Rcpp::List emb_list(const manifoldOOS::sosi::embedding_result& e,
                    const manifoldOOS::sosi::supervised_graphs& g) {
  return Rcpp::List::create(
      Rcpp::Named("Y") = e.Y, Rcpp::Named("values") = mo_vec(e.values),
      Rcpp::Named("Yfull") = e.Yfull, Rcpp::Named("dropped") = e.dropped + 1,
      Rcpp::Named("ridge") = e.ridge, Rcpp::Named("n_guarded") = static_cast<double>(g.n_guarded),
      Rcpp::Named("dw") = mo_vec(arma::sum(g.Ww, 1)));
}

manifoldOOS::sosi::supervised_graphs graphs(const arma::mat& X, const arma::ivec& lab1, double beta,
                                            int graph, int kw, int kb, bool wb_binary) {
  return manifoldOOS::sosi::build_supervised_graphs(manifoldOOS::sq_dist_cross(X, X), labels0(lab1),
                                                    beta, graph, kw, kb, wb_binary);
}
}  // namespace

// [[Rcpp::export(.mo_sle_fit)]]
Rcpp::List mo_sle_fit(const arma::mat& X, const arma::ivec& labels, int d, double mu, double beta,
                      int graph, int kw, int kb, bool wb_binary, bool drop_trivial) {
  MO_TRY {
    manifoldOOS::sosi::supervised_graphs g = graphs(X, labels, beta, graph, kw, kb, wb_binary);
    return emb_list(manifoldOOS::sosi::sle_embed(g.Ww, g.Wb, d, mu, drop_trivial), g);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_fisher_fit)]]
Rcpp::List mo_fisher_fit(const arma::mat& X, const arma::ivec& labels, int d, double eps, double beta,
                         int graph, int kw, int kb, bool wb_binary) {
  MO_TRY {
    manifoldOOS::sosi::supervised_graphs g = graphs(X, labels, beta, graph, kw, kb, wb_binary);
    return emb_list(manifoldOOS::sosi::fisher_embed(g.Ww, g.Wb, d, eps), g);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_separable_pairs)]]
Rcpp::IntegerVector mo_separable_pairs(const arma::mat& Y, const arma::ivec& labels, int n_class,
                                       double q) {
  MO_TRY {
    arma::ucube I = manifoldOOS::sosi::separable_pairs(Y, labels0(labels), n_class, q);
    Rcpp::IntegerVector out(I.begin(), I.end());
    out.attr("dim") = Rcpp::IntegerVector::create(n_class, n_class, Y.n_cols);
    return out;
  }
  MO_CATCH
}

// Regulariser terms of every dimension for every scale of a grid: sums over
// the labelled points Xtr (labels, training embedding Y for I^k), RBF
// interpolating targets T at centres A (A = Xtr, T = Y in the first round).
// [[Rcpp::export(.mo_sosi_grid)]]
Rcpp::List mo_sosi_grid(const arma::mat& Xtr, const arma::ivec& labels, const arma::mat& Y,
                        const arma::mat& A, const arma::mat& T, const arma::vec& grid, int n_class,
                        int k_dir, bool per_class, double sep_q, double ridge, double jitter0) {
  MO_TRY {
    const arma::ivec l0 = labels0(labels);
    manifoldOOS::sosi::reg_context ctx =
        manifoldOOS::sosi::make_reg_context(Xtr, A, l0, n_class, k_dir, per_class);
    arma::ucube I = manifoldOOS::sosi::separable_pairs(Y, l0, n_class, sep_q);
    manifoldOOS::sosi::grid_result g = manifoldOOS::sosi::regularizer_grid(ctx, T, grid, I, ridge, jitter0);
    arma::vec isz(Y.n_cols);
    for (arma::uword k = 0; k < Y.n_cols; ++k) isz(k) = arma::accu(I.slice(k));
    return Rcpp::List::create(Rcpp::Named("G") = g.G, Rcpp::Named("D") = g.D,
                              Rcpp::Named("jitter") = mo_vec(g.jitter),
                              Rcpp::Named("n_skipped") = static_cast<double>(g.n_skipped),
                              Rcpp::Named("I_sizes") = mo_vec(isz));
  }
  MO_CATCH
}

// Golden-section refinement of the per-dimension line-search minima (same
// setting as .mo_sosi_grid; brackets lo..hi, grid minima s0 with values v0).
// [[Rcpp::export(.mo_sosi_refine)]]
Rcpp::List mo_sosi_refine(const arma::mat& Xtr, const arma::ivec& labels, const arma::mat& Y,
                          const arma::mat& A, const arma::mat& T, const arma::vec& lo, const arma::vec& hi,
                          const arma::vec& s0, const arma::vec& v0, double lambda, int n_class, int k_dir,
                          bool per_class, double sep_q, double ridge, double jitter0, double max_jitter,
                          double tol) {
  MO_TRY {
    const arma::ivec l0 = labels0(labels);
    manifoldOOS::sosi::reg_context ctx =
        manifoldOOS::sosi::make_reg_context(Xtr, A, l0, n_class, k_dir, per_class);
    arma::ucube I = manifoldOOS::sosi::separable_pairs(Y, l0, n_class, sep_q);
    manifoldOOS::sosi::refine_result r =
        manifoldOOS::sosi::golden_refine(ctx, T, I, lo, hi, s0, v0, lambda, ridge, jitter0, max_jitter, tol);
    return Rcpp::List::create(Rcpp::Named("sigma") = mo_vec(r.sigma), Rcpp::Named("crit") = mo_vec(r.crit),
                              Rcpp::Named("n_eval") = mo_vec(arma::conv_to<arma::vec>::from(r.n_eval)));
  }
  MO_CATCH
}

// Regulariser terms of a given interpolator (centres A, coefficients C, scales
// sigma) evaluated over the labelled points Xtr with targets Y (for I^k).
// [[Rcpp::export(.mo_sosi_reg_terms)]]
Rcpp::List mo_sosi_reg_terms(const arma::mat& Xtr, const arma::ivec& labels, const arma::mat& Y,
                             const arma::mat& A, const arma::mat& C, const arma::vec& sigma, int n_class,
                             int k_dir, bool per_class, double sep_q) {
  MO_TRY {
    const arma::ivec l0 = labels0(labels);
    manifoldOOS::sosi::reg_context ctx =
        manifoldOOS::sosi::make_reg_context(Xtr, A, l0, n_class, k_dir, per_class);
    arma::ucube I = manifoldOOS::sosi::separable_pairs(Y, l0, n_class, sep_q);
    const arma::uword d = C.n_cols;
    arma::vec G(d), D(d);
    arma::mat terms(Xtr.n_rows, d);
    long skipped = 0;
    for (arma::uword k = 0; k < d; ++k) {
      const arma::mat Phi = manifoldOOS::sosi::gauss_from_d2(ctx.D2EA, sigma(k));
      arma::vec gt;
      manifoldOOS::sosi::reg_terms_dim(ctx, Phi, C.col(k), I.slice(k), G(k), D(k), gt, skipped);
      terms.col(k) = gt;
    }
    return Rcpp::List::create(Rcpp::Named("G") = mo_vec(G), Rcpp::Named("D") = mo_vec(D),
                              Rcpp::Named("G_terms") = terms,
                              Rcpp::Named("n_skipped") = static_cast<double>(skipped));
  }
  MO_CATCH
}

// Exact RBF interpolation: per-dimension scales, one factorisation per distinct scale.
// [[Rcpp::export(.mo_rbf_interpolate)]]
Rcpp::List mo_rbf_interpolate(const arma::mat& X, const arma::mat& Y, const arma::vec& sigma,
                              double ridge, double jitter0) {
  MO_TRY {
    const arma::mat D2 = manifoldOOS::sq_dist_cross(X, X);
    arma::mat C(X.n_rows, Y.n_cols);
    double jit = 0.0;
    const arma::vec us = arma::unique(sigma);
    for (double s : us) {
      const arma::uvec ks = arma::find(sigma == s);
      arma::mat Phi = manifoldOOS::sosi::gauss_from_d2(D2, s);
      Phi = 0.5 * (Phi + Phi.t());
      manifoldOOS::sosi::chol_solution cs =
          manifoldOOS::sosi::chol_solve_jitter(Phi, arma::mat(Y.cols(ks)), ridge, jitter0);
      C.cols(ks) = cs.C;
      jit = std::max(jit, cs.jitter);
    }
    return Rcpp::List::create(Rcpp::Named("C") = C, Rcpp::Named("jitter") = jit);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_rbf_eval)]]
arma::mat mo_rbf_eval(const arma::mat& A, const arma::mat& C, const arma::vec& sigma, const arma::mat& Q) {
  MO_TRY { return manifoldOOS::sosi::rbf_eval(A, C, sigma, Q); }
  MO_CATCH
}

// [[Rcpp::export(.mo_rbf_gradient)]]
arma::mat mo_rbf_gradient(const arma::mat& A, const arma::vec& c, double sigma, const arma::mat& Q) {
  MO_TRY { return manifoldOOS::sosi::rbf_gradient(A, c, sigma, Q); }
  MO_CATCH
}

// [[Rcpp::export(.mo_nn_label_conf)]]
Rcpp::List mo_nn_label_conf(const arma::mat& Ftest, const arma::mat& Ftrain, const arma::ivec& labels) {
  MO_TRY {
    arma::ivec lab;
    arma::vec conf;
    manifoldOOS::sosi::nn_label_conf(Ftest, Ftrain, labels, lab, conf);
    return Rcpp::List::create(Rcpp::Named("labels") = Rcpp::IntegerVector(lab.begin(), lab.end()),
                              Rcpp::Named("confidence") = mo_vec(conf));
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_simplex_qp)]]
Rcpp::NumericVector mo_simplex_qp(const arma::mat& G) {
  MO_TRY { return mo_vec(manifoldOOS::sosi::simplex_qp(G)); }
  MO_CATCH
}

// [[Rcpp::export(.mo_sosi_fit)]]
Rcpp::List mo_sosi_fit(const arma::mat& Xtr, const arma::ivec& labels, const arma::mat& Ytr,
                       const arma::mat& Xte, const arma::vec& sigma, const arma::uvec& schedule, int K,
                       double ridge, double jitter0, Rcpp::Nullable<Rcpp::Function> reselect) {
  MO_TRY {
    manifoldOOS::sosi::sigma_updater upd = nullptr;
    if (reselect.isNotNull()) {
      Rcpp::Function fn(reselect.get());
      upd = [fn](arma::uword round, const arma::mat& A, const arma::mat& T) {
        return Rcpp::as<arma::vec>(fn(static_cast<double>(round + 1), A, T));
      };
    }
    manifoldOOS::sosi::sosi_result r = manifoldOOS::sosi::sosi_progressive(
        Xtr, labels0(labels), Ytr, Xte, sigma, schedule, K, ridge, jitter0, upd);
    Rcpp::List rounds(r.rounds.size());
    for (size_t t = 0; t < r.rounds.size(); ++t) {
      const manifoldOOS::sosi::sosi_round& rd = r.rounds[t];
      arma::uvec ct = rd.centres_test + 1;
      const arma::ivec lab1 = rd.labels + 1;
      rounds[t] = Rcpp::List::create(
          Rcpp::Named("L") = static_cast<double>(rd.L),
          Rcpp::Named("centres") = Rcpp::IntegerVector(ct.begin(), ct.end()),
          Rcpp::Named("labels") = Rcpp::IntegerVector(lab1.begin(), lab1.end()),
          Rcpp::Named("confidence") = mo_vec(rd.conf), Rcpp::Named("jitter") = rd.jitter,
          Rcpp::Named("sigma") = mo_vec(rd.sigma));
    }
    arma::uvec ct = r.centres_test + 1;
    return Rcpp::List::create(Rcpp::Named("rounds") = rounds, Rcpp::Named("C") = r.C,
                              Rcpp::Named("centres") = Rcpp::IntegerVector(ct.begin(), ct.end()),
                              Rcpp::Named("targets") = r.targets, Rcpp::Named("Ftrain") = r.Ftrain,
                              Rcpp::Named("Ftest") = r.Ftest, Rcpp::Named("sigma") = mo_vec(r.sigma));
  }
  MO_CATCH
}
