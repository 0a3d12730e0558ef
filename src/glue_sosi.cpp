// Glue for SOSI and the supervised embeddings (inst/include/manifoldOOS/sosi.h).
// Labels arrive 1-based from R and are passed 0-based to the core.
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/methods/sosi.h>
#include <manifoldOOS/methods/sosi_scales.h>
#include "glue_helpers.h"

namespace {
arma::ivec labels0(const arma::ivec& l1) { return l1 - 1; }

Rcpp::List emb_list(const manifoldOOS::sosi::embedding_result& e,
                    const manifoldOOS::sosi::supervised_graphs& g) {
  return Rcpp::List::create(
      Rcpp::Named("Y") = e.Y, Rcpp::Named("values") = mo_vec(e.values),
      Rcpp::Named("Yfull") = e.Yfull, Rcpp::Named("dropped") = mo_index1(e.dropped),
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
                              Rcpp::Named("I_sizes") = mo_vec(isz),
                              Rcpp::Named("n_keep") = static_cast<int>(manifoldOOS::sosi::grid_keep(g.jitter)));
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

namespace {

manifoldOOS::sosi::scale_options scale_opts(const std::string& mode, double lambda, int k_dir,
                                            bool per_class, double clip_sd, double ratio_rel,
                                            double sep_q, double ridge, double jitter0, bool refine,
                                            double refine_tol) {
  const manifoldOOS::sosi::scale_rule rule = manifoldOOS::parse_choice<manifoldOOS::sosi::scale_rule>(
      mode,
      {{"regularizer", manifoldOOS::sosi::scale_rule::regularizer},
       {"ratio", manifoldOOS::sosi::scale_rule::ratio}},
      "unknown scale rule");
  // every field of scale_options, in its order
  return {rule, lambda, k_dir, per_class, clip_sd, ratio_rel, sep_q, ridge, jitter0, refine, refine_tol};
}

Rcpp::List selection_list(const manifoldOOS::sosi::scale_selection& r) {
  const bool reg = r.rule_used == manifoldOOS::sosi::scale_rule::regularizer;
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("sigma") = mo_vec(r.sigma),
      Rcpp::Named("mode_used") = reg ? "regularizer" : "ratio", Rcpp::Named("grid") = mo_vec(r.grid),
      Rcpp::Named("G") = r.G, Rcpp::Named("D") = r.D,
      Rcpp::Named("lambda") = reg ? r.lambda : NA_REAL, Rcpp::Named("I_sizes") = mo_vec(r.I_sizes),
      Rcpp::Named("grid_jitter") = mo_vec(r.grid_jitter),
      Rcpp::Named("n_skipped") = static_cast<double>(r.n_skipped),
      Rcpp::Named("index") = mo_index1(r.index), Rcpp::Named("grid_all") = mo_vec(r.grid_all));
  if (r.refined) {
    out["sigma_grid_min"] = mo_vec(r.sigma_grid_min);
    out["sigma_refined"] = mo_vec(r.sigma_refined);
    out["crit_refined"] = mo_vec(r.crit_refined);
    out["refine_evals"] = mo_vec(arma::conv_to<arma::vec>::from(r.refine_evals));
  }
  out["balancing_failed"] = r.balancing_failed;
  return out;
}

}  // namespace

// The default scale grid of SOSI for the labelled points X.
// [[Rcpp::export(.mo_sosi_default_grid)]]
Rcpp::NumericVector mo_sosi_default_grid(const arma::mat& X, int n_grid) {
  MO_TRY {
    if (n_grid < 2) throw manifoldOOS::input_error("the scale grid needs at least two values");
    return mo_vec(manifoldOOS::sosi::default_grid(X, static_cast<arma::uword>(n_grid)));
  }
  MO_CATCH
}

// Scale selection of SOSI (one rule; lambda NaN = endpoint balancing; an
// empty grid = the default grid of n_grid scales) for the interpolator of
// targets T at centres A, the regulariser summed over the labelled points X.
// [[Rcpp::export(.mo_sosi_select_scales)]]
Rcpp::List mo_sosi_select_scales(const arma::mat& X, const arma::ivec& labels, int n_class,
                                 const arma::mat& Y, const arma::mat& A, const arma::mat& T,
                                 const arma::vec& grid, int n_grid, std::string mode, double lambda,
                                 int k_dir, bool per_class, double clip_sd, double ratio_rel,
                                 double sep_q, double ridge, double jitter0, bool refine,
                                 double refine_tol) {
  MO_TRY {
    const arma::vec g = grid.n_elem ? arma::vec(arma::sort(grid))
                                    : manifoldOOS::sosi::default_grid(X, n_grid);
    return selection_list(manifoldOOS::sosi::select_scales(
        X, labels0(labels), n_class, Y, A, T, g,
        scale_opts(mode, lambda, k_dir, per_class, clip_sd, ratio_rel, sep_q, ridge, jitter0, refine,
                   refine_tol)));
  }
  MO_CATCH
}

// The whole SOSI fit: scale selection (mode "regularizer" or "ratio"; or
// "fixed" with `sigma`, one per dimension), then the progressive rounds.
// [[Rcpp::export(.mo_sosi_fit)]]
Rcpp::List mo_sosi_fit(const arma::mat& Xtr, const arma::ivec& labels, int n_class,
                       const arma::mat& Ytr, const arma::mat& Xte, std::string mode,
                       const arma::vec& sigma, const arma::vec& grid, int n_grid, double lambda,
                       int k_dir, bool per_class, double clip_sd, double ratio_rel, double sep_q,
                       double ridge, double jitter0, bool refine, double refine_tol,
                       bool reoptimize, const arma::uvec& schedule, int K) {
  MO_TRY {
    manifoldOOS::sosi::sosi_options o;
    o.fixed = mode == "fixed";
    o.sigma = sigma;
    o.grid = grid;
    if (n_grid < 2) throw manifoldOOS::input_error("the scale grid needs at least two values");
    o.n_grid = static_cast<arma::uword>(n_grid);
    o.scales = scale_opts(o.fixed ? "regularizer" : mode, lambda, k_dir, per_class, clip_sd,
                          ratio_rel, sep_q, ridge, jitter0, refine, refine_tol);
    o.reoptimize = reoptimize;
    o.schedule = schedule;
    o.K = K;
    const manifoldOOS::sosi::sosi_fit_result f =
        manifoldOOS::sosi::sosi_fit(Xtr, labels0(labels), n_class, Ytr, Xte, o);
    const manifoldOOS::sosi::sosi_result& r = f.fit;
    Rcpp::List rounds(r.rounds.size());
    for (size_t t = 0; t < r.rounds.size(); ++t) {
      const manifoldOOS::sosi::sosi_round& rd = r.rounds[t];
      rounds[t] = Rcpp::List::create(
          Rcpp::Named("L") = static_cast<double>(rd.L),
          Rcpp::Named("centres") = mo_index1(rd.centres_test),
          Rcpp::Named("labels") = mo_index1(rd.labels),
          Rcpp::Named("confidence") = mo_vec(rd.conf), Rcpp::Named("jitter") = rd.jitter,
          Rcpp::Named("sigma") = mo_vec(rd.sigma));
    }
    return Rcpp::List::create(Rcpp::Named("rounds") = rounds, Rcpp::Named("C") = r.C,
                              Rcpp::Named("centres") = mo_index1(r.centres_test),
                              Rcpp::Named("targets") = r.targets, Rcpp::Named("Ftrain") = r.Ftrain,
                              Rcpp::Named("Ftest") = r.Ftest, Rcpp::Named("sigma") = mo_vec(r.sigma),
                              Rcpp::Named("scales") = f.selected ? Rcpp::RObject(selection_list(f.scales))
                                                                 : Rcpp::RObject(R_NilValue));
  }
  MO_CATCH
}
