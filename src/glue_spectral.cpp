// R glue for the spectral embeddings and their native out-of-sample rules: PCA,
// kernel PCA, classical and landmark MDS, Isomap, Laplacian eigenmaps, LLE
// (standard, modified, Hessian) and LTSA. Grouped in one translation unit to
// keep the build short (see glue_blocks.cpp).
#define MO_GLUE_EIGEN
#include "glue.h"

#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/local_align.h>
#include <manifoldOOS/methods/diffusion.h>
#include <manifoldOOS/methods/isomap.h>
#include <manifoldOOS/methods/kpca.h>
#include <manifoldOOS/methods/le.h>
#include <manifoldOOS/methods/lle.h>
#include <manifoldOOS/methods/ltsa.h>
#include <manifoldOOS/methods/mds.h>
#include <manifoldOOS/methods/pca.h>

#include <chrono>
#include <string>
#include <vector>

#include "glue_external_matrix.h"
#include "glue_helpers.h"

// ----------------------------------------------------------------------------
// [[Rcpp::export(.mo_pca_fit)]]
Rcpp::List mo_pca_fit(const arma::mat& X, int ndim, bool scale) {
  MO_TRY {
    manifoldOOS::pca_model m = manifoldOOS::pca_fit(X, ndim, scale);
    return Rcpp::List::create(
        Rcpp::Named("center") = Rcpp::NumericVector(m.center.begin(), m.center.end()),
        Rcpp::Named("scale") = Rcpp::NumericVector(m.scale.begin(), m.scale.end()),
        Rcpp::Named("rotation") = m.rotation,
        Rcpp::Named("sdev") = Rcpp::NumericVector(m.sdev.begin(), m.sdev.end()),
        Rcpp::Named("scores") = m.scores);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_pca_project)]]
arma::mat mo_pca_project(const arma::mat& Xnew, const arma::rowvec& center,
                         const arma::rowvec& scale, const arma::mat& rotation) {
  MO_TRY {
    manifoldOOS::pca_model m;
    m.center = center;
    m.scale = scale;
    m.rotation = rotation;
    return manifoldOOS::pca_project(m, Xnew);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// R glue for kernel PCA and classical MDS (kpca.h, mds.h, lmds.h).



// Kernel PCA of the rows of X with a built-in kernel.
// [[Rcpp::export(.mo_kpca_fit)]]
Rcpp::List mo_kpca_fit(const arma::mat& X, int ndim, std::string kernel, double sigma,
                       double gamma, double coef0, double degree, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::kernel_spec ks = mo_kernel_spec(kernel, sigma, gamma, coef0, degree);
    manifoldOOS::kpca_model m;
    {
      const arma::mat K = manifoldOOS::kernel_train(X, ks);
      m = manifoldOOS::kpca_fit(K, ndim, mo_eig_options(opts));
    }
    return Rcpp::List::create(
        Rcpp::Named("embedding") = m.embedding, Rcpp::Named("alpha") = m.alpha,
        Rcpp::Named("values") = mo_vec(m.values),
        Rcpp::Named("col_means") = Rcpp::NumericVector(m.centering.col_means.begin(),
                                                       m.centering.col_means.end()),
        Rcpp::Named("grand_mean") = m.centering.grand_mean,
        Rcpp::Named("solver") = m.method, Rcpp::Named("n_ops") = static_cast<double>(m.n_ops),
        Rcpp::Named("note") = m.note);
  }
  MO_CATCH
}

// Exact kernel PCA projection of new rows.
// [[Rcpp::export(.mo_kpca_project)]]
arma::mat mo_kpca_project(const arma::mat& X, const arma::mat& Xnew, std::string kernel,
                          double sigma, double gamma, double coef0, double degree,
                          const arma::rowvec& col_means, double grand_mean,
                          const arma::mat& alpha, int n_threads) {
  MO_TRY {
    const manifoldOOS::kernel_spec ks = mo_kernel_spec(kernel, sigma, gamma, coef0, degree);
    manifoldOOS::kernel_centering c;
    c.col_means = col_means;
    c.grand_mean = grand_mean;
    return manifoldOOS::kpca_project(X, Xnew, ks, c, alpha, n_threads);
  }
  MO_CATCH
}

// Classical MDS of Euclidean data.
// [[Rcpp::export(.mo_mds_fit)]]
Rcpp::List mo_mds_fit(const arma::mat& X, int ndim, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::cmds_model m = manifoldOOS::cmds_data(X, ndim, mo_eig_options(opts));
    return mo_cmds_list(m);
  }
  MO_CATCH
}

// Gower / Nystrom map of classical MDS for new rows.
// [[Rcpp::export(.mo_mds_project)]]
arma::mat mo_mds_project(const arma::mat& X, const arma::mat& Xnew, const arma::mat& lsharp_t,
                         const arma::mat& coords, const arma::vec& values, const arma::vec& mu,
                         double grand_mean, std::string rule, int n_threads) {
  MO_TRY {
    const manifoldOOS::lmds_map M = mo_lmds_map(lsharp_t, coords, values, mu, grand_mean);
    return manifoldOOS::mds_project(X, Xnew, M, manifoldOOS::parse_lmds_rule(rule), n_threads);
  }
  MO_CATCH
}

// Gower / Nystrom map of classical MDS for new points given by their squared
// distances S (m x n) to the training points.
// [[Rcpp::export(.mo_mds_place)]]
arma::mat mo_mds_place(const arma::mat& S, const arma::mat& lsharp_t, const arma::mat& coords,
                       const arma::vec& values, const arma::vec& mu, double grand_mean,
                       std::string rule) {
  MO_TRY {
    const manifoldOOS::lmds_map M = mo_lmds_map(lsharp_t, coords, values, mu, grand_mean);
    return manifoldOOS::lmds_place_rows(M, manifoldOOS::parse_lmds_rule(rule), S);
  }
  MO_CATCH
}

// Classical MDS of a symmetric matrix of distances (squared = FALSE) or of
// squared distances (squared = TRUE). Internal (tests, landmark blocks).
// [[Rcpp::export(.mo_cmds_distances)]]
Rcpp::List mo_cmds_distances(const arma::mat& D, bool squared, int ndim, Rcpp::List opts,
                             int n_threads) {
  MO_TRY {
    const manifoldOOS::cmds_model m =
        manifoldOOS::cmds_distances(D, !squared, ndim, mo_eig_options(opts), n_threads);
    return mo_cmds_list(m);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// R glue for Isomap and landmark Isomap (isomap.h, mds.h, lmds.h).




namespace {

using sparse_map = Eigen::Map<Eigen::SparseMatrix<double>>;


}  // namespace

// Isomap on the symmetric distance-weighted graph W (dgCMatrix, n x n).
// landmarks: empty = full Isomap; otherwise 1-based landmark indices, or
// (maxmin = TRUE) a single 1-based starting vertex and the count m.
// Returns the geodesic storage D (n x n for full Isomap, m x n otherwise),
// the (landmark) MDS model and the training embedding.
// [[Rcpp::export(.mo_isomap_fit)]]
Rcpp::List mo_isomap_fit(SEXP W, int ndim, Rcpp::IntegerVector landmarks, bool maxmin, int m_max,
                         bool normalise, Rcpp::List opts, int n_threads) {
  MO_TRY {
    const sparse_map A = Rcpp::as<sparse_map>(W);
    const manifoldOOS::adjacency_view v = mo_adjacency(A);
    manifoldOOS::isomap_options o;
    o.ndim = ndim;
    o.normalise = normalise;
    o.eig = mo_eig_options(opts);
    o.n_threads = n_threads;
    if (landmarks.size() == 0) {
      o.landmarks = manifoldOOS::isomap_landmarks::none;
    } else if (maxmin) {
      if (landmarks.size() != 1) throw manifoldOOS::input_error("maxmin needs one starting vertex.");
      o.landmarks = manifoldOOS::isomap_landmarks::maxmin;
      o.first = mo_index0(landmarks[0]);
      o.m = m_max;
    } else {
      o.landmarks = manifoldOOS::isomap_landmarks::given;
      o.given.resize(landmarks.size());
      for (R_xlen_t b = 0; b < landmarks.size(); ++b) o.given[b] = mo_index0(landmarks[b]);
    }
    const int m = manifoldOOS::isomap_reference_count(o, v.n);
    if (m < 1 || m > v.n) throw manifoldOOS::input_error("the number of landmarks must lie in [1, n].");
    // outside R's heap and not zero-filled (glue_external_matrix.h):
    // isomap_fit() writes every entry
    const mo_external::matrix D = mo_external::new_matrix(m, v.n);
    const manifoldOOS::isomap_model r = manifoldOOS::isomap_fit(v, o, D.data);
    Rcpp::List out = mo_cmds_list(r.mds);
    out["embedding"] = r.embedding;
    out["D"] = D.sexp;
    if (o.landmarks == manifoldOOS::isomap_landmarks::none) return out;
    out["landmarks"] = mo_index1(r.landmarks);
    out["center"] = Rcpp::NumericVector(r.center.begin(), r.center.end());
    out["rotation"] = r.rotation;
    return out;
  }
  MO_CATCH
}

// Out-of-sample Isomap for new rows (see isomap_project()). idx: 1-based
// m x k neighbour indices of the rows of Xnew among the rows of X, and dist
// their distances (from knn(), exact or HNSW, so that predict() uses the
// fit's search); a 0 x 0 idx: the exact search with the fit's k.
// [[Rcpp::export(.mo_isomap_project)]]
arma::mat mo_isomap_project(const arma::mat& X, const arma::mat& Xnew, int k, const arma::imat& idx,
                            const arma::mat& dist, const arma::mat& D, const arma::mat& lsharp_t,
                            const arma::mat& coords, const arma::vec& values, const arma::vec& mu,
                            double grand_mean, std::string rule, const arma::mat& Y_train, bool snap,
                            const arma::rowvec& center, const arma::mat& rotation, int n_threads) {
  MO_TRY {
    const manifoldOOS::lmds_map M = mo_lmds_map(lsharp_t, coords, values, mu, grand_mean);
    const manifoldOOS::lmds_rule r = manifoldOOS::parse_lmds_rule(rule);
    if (idx.n_cols == 0) {
      return manifoldOOS::isomap_project(X, Xnew, k, D, M, r, Y_train, snap, center, rotation, n_threads);
    }
    manifoldOOS::knn_result nb;
    nb.idx = mo_index0(idx, X.n_rows);
    nb.dist = dist;
    return manifoldOOS::isomap_project_nb(X, Xnew, nb, D, M, r, Y_train, snap, center, rotation,
                                          n_threads);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// Glue for Laplacian eigenmaps and their out-of-sample maps
// (inst/include/manifoldOOS/le.h).

namespace {

Rcpp::List le_to_list(const manifoldOOS::le_result& r) {
  return Rcpp::List::create(
      Rcpp::Named("Y") = r.Y,
      Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
      Rcpp::Named("dropped") = r.dropped,
      Rcpp::Named("degree") = Rcpp::NumericVector(r.degree.begin(), r.degree.end()),
      Rcpp::Named("method") = r.method, Rcpp::Named("residual") = r.residual,
      Rcpp::Named("note") = r.note);
}

manifoldOOS::le_map make_map(const arma::mat& Y, const arma::vec& lambda, const arma::vec& degree,
                             const std::string& variant, bool nystrom, bool binary, double sigma) {
  if (lambda.n_elem != Y.n_cols) throw manifoldOOS::input_error("one eigenvalue per column is needed");
  manifoldOOS::le_map m;
  m.Y = &Y;
  m.lambda = lambda;
  m.degree = degree;
  m.variant = manifoldOOS::parse_le_variant(variant);
  if (m.variant == manifoldOOS::le_variant::symmetric && degree.n_elem != Y.n_rows)
    throw manifoldOOS::input_error("one degree per training point is needed");
  m.nystrom = nystrom;
  m.binary = binary;
  m.sigma = sigma;
  if (!binary && !(sigma > 0 && std::isfinite(sigma)))
    throw manifoldOOS::input_error("`sigma` must be positive and finite");
  return m;
}

Rcpp::List extend_to_list(const arma::mat& y, const arma::uvec& far) {
  return Rcpp::List::create(Rcpp::Named("y") = y,
                            Rcpp::Named("far") = Rcpp::LogicalVector(far.begin(), far.end()));
}

}  // namespace

// Symmetric sparse weights W (dgCMatrix).
// [[Rcpp::export(.mo_le_fit_sparse)]]
Rcpp::List mo_le_fit_sparse(const Eigen::Map<Eigen::SparseMatrix<double>> W, std::string variant,
                            int q, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e Ws(W);
    return le_to_list(manifoldOOS::le_fit_sparse(Ws, manifoldOOS::parse_le_variant(variant), q,
                                                 mo_eig_options(opts)));
  }
  MO_CATCH
}

// Diffusion map on a sparse symmetric kernel K (dgCMatrix): with a unit
// diagonal, or (add_unit_diagonal) the weights W of K = W + I.
// [[Rcpp::export(.mo_diffusion_fit_sparse)]]
Rcpp::List mo_diffusion_fit_sparse(const Eigen::Map<Eigen::SparseMatrix<double>> K, double alpha,
                                   int q, Rcpp::List opts, bool add_unit_diagonal = false) {
  MO_TRY {
    if (K.rows() != K.cols()) throw manifoldOOS::input_error("the diffusion kernel must be square");
    const manifoldOOS::diffusion_result r = manifoldOOS::diffusion_fit_sparse(
        add_unit_diagonal ? manifoldOOS::add_unit_diagonal(K.cols(), K.outerIndexPtr(), K.innerIndexPtr(),
                                                           K.valuePtr())
                          : manifoldOOS::sp_mat_e(K),
        alpha, q, mo_eig_options(opts));
    return Rcpp::List::create(
        Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
        Rcpp::Named("vectors") = r.vectors,
        Rcpp::Named("q") = Rcpp::NumericVector(r.q.begin(), r.q.end()),
        Rcpp::Named("d") = Rcpp::NumericVector(r.d.begin(), r.d.end()),
        Rcpp::Named("method") = r.method, Rcpp::Named("residual") = r.residual,
        Rcpp::Named("note") = r.note);
  }
  MO_CATCH
}

// Full mesh on X (dense).
// [[Rcpp::export(.mo_le_fit_full)]]
Rcpp::List mo_le_fit_full(const arma::mat& X, double sigma, bool binary, std::string variant,
                          int q) {
  MO_TRY {
    const arma::mat W = manifoldOOS::le_full_weights(X, sigma, binary);
    return le_to_list(manifoldOOS::le_fit_dense(W, manifoldOOS::parse_le_variant(variant), q));
  }
  MO_CATCH
}

// Out-of-sample map on CSR neighbour lists: ptr (m + 1 offsets, 0-based),
// idx1 (1-based training rows), dist (Euclidean).
// [[Rcpp::export(.mo_le_extend)]]
Rcpp::List mo_le_extend(const arma::mat& Y, const arma::vec& lambda, const arma::vec& degree,
                        const Rcpp::NumericVector& ptr, const Rcpp::IntegerVector& idx1,
                        const Rcpp::NumericVector& dist, std::string variant, bool nystrom,
                        bool binary, double sigma) {
  MO_TRY {
    const manifoldOOS::le_map m = make_map(Y, lambda, degree, variant, nystrom, binary, sigma);
    std::vector<long> p(ptr.size());
    for (R_xlen_t i = 0; i < ptr.size(); ++i) p[i] = static_cast<long>(ptr[i]);
    if (p.empty() || p.front() != 0 || p.back() != idx1.size() || dist.size() != idx1.size())
      throw manifoldOOS::input_error("inconsistent neighbour lists");
    const std::vector<int> idx = mo_index0(idx1);
    for (int i : idx) {
      if (i < 0 || i >= int(Y.n_rows)) throw manifoldOOS::input_error("neighbour index out of range");
    }
    arma::uvec far;
    arma::mat y = manifoldOOS::le_extend_lists(m, p, idx.data(), dist.begin(), far);
    return extend_to_list(y, far);
  }
  MO_CATCH
}

// Out-of-sample map for the full mesh (all training points are neighbours).
// [[Rcpp::export(.mo_le_extend_full)]]
Rcpp::List mo_le_extend_full(const arma::mat& X, const arma::mat& Y, const arma::vec& lambda,
                             const arma::vec& degree, const arma::mat& Q, std::string variant,
                             bool nystrom, bool binary, double sigma) {
  MO_TRY {
    if (X.n_rows != Y.n_rows) throw manifoldOOS::input_error("X and Y must have the same rows");
    if (Q.n_cols != X.n_cols) throw manifoldOOS::input_error("query columns differ from the training data");
    const manifoldOOS::le_map m = make_map(Y, lambda, degree, variant, nystrom, binary, sigma);
    arma::uvec far;
    arma::mat y = manifoldOOS::le_extend_full(m, X, Q, far);
    return extend_to_list(y, far);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// Glue for locally linear embedding (inst/include/manifoldOOS/lle.h).

// idx1: n x k neighbour lists (1-based, self excluded).
// [[Rcpp::export(.mo_lle_fit)]]
Rcpp::List mo_lle_fit(const arma::mat& X, const arma::imat& idx1, double reg, int q,
                      Rcpp::List opts, int n_threads) {
  MO_TRY {
    const arma::Mat<int> idx = mo_index0(idx1, X.n_rows);
    manifoldOOS::lle_result r =
        manifoldOOS::lle_fit(X, idx, reg, q, mo_eig_options(opts), n_threads);
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.emb.Y,
        Rcpp::Named("values") = Rcpp::NumericVector(r.emb.values.begin(), r.emb.values.end()),
        Rcpp::Named("dropped") = r.emb.dropped, Rcpp::Named("n_null") = r.emb.n_null,
        Rcpp::Named("tol_null") = r.emb.tol_null, Rcpp::Named("method") = r.emb.method,
        Rcpp::Named("residual") = r.emb.residual, Rcpp::Named("note") = r.emb.note,
        Rcpp::Named("seconds") = Rcpp::NumericVector::create(Rcpp::Named("weights") = r.seconds[0],
                                                             Rcpp::Named("assembly") = r.seconds[1],
                                                             Rcpp::Named("eigen") = r.seconds[2]));
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// Glue for the LLE variants (R/lle-variants.R): modified and Hessian LLE build
// their alignment matrices in R; this entry point computes the bottom
// eigenvectors of such a matrix with the constant vector removed, by the same
// routine as standard LLE and LTSA (local_align.h, align_bottom()).

// M: sparse symmetric positive semidefinite n x n matrix (dgCMatrix) that
// annihilates the constant vector; q: number of vectors kept.
// [[Rcpp::export(.mo_align_bottom)]]
Rcpp::List mo_align_bottom(const Eigen::Map<Eigen::SparseMatrix<double>> M, int q, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e Ms(M);
    manifoldOOS::align_result r = manifoldOOS::align_bottom(Ms, q, mo_eig_options(opts));
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.Y,
        Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
        Rcpp::Named("dropped") = r.dropped, Rcpp::Named("n_null") = r.n_null,
        Rcpp::Named("tol_null") = r.tol_null, Rcpp::Named("method") = r.method,
        Rcpp::Named("residual") = r.residual, Rcpp::Named("note") = r.note);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// Glue for local tangent space alignment (inst/include/manifoldOOS/ltsa.h).

// nbhd1: n x k neighbourhoods (1-based; normally x_i itself first).
// [[Rcpp::export(.mo_ltsa_fit)]]
Rcpp::List mo_ltsa_fit(const arma::mat& X, const arma::imat& nbhd1, int q, Rcpp::List opts,
                       int n_threads) {
  MO_TRY {
    const arma::Mat<int> nb = mo_index0(nbhd1, X.n_rows);
    const auto t0 = std::chrono::steady_clock::now();
    manifoldOOS::ltsa_alignment B = manifoldOOS::ltsa_alignment_matrix(X, nb, q, n_threads);
    const auto t1 = std::chrono::steady_clock::now();
    manifoldOOS::align_result r = manifoldOOS::align_bottom_in_place(B.B, q, mo_eig_options(opts), true);
    const auto t2 = std::chrono::steady_clock::now();
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.Y,
        Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
        Rcpp::Named("dropped") = r.dropped, Rcpp::Named("n_null") = r.n_null,
        Rcpp::Named("tol_null") = r.tol_null, Rcpp::Named("method") = r.method,
        Rcpp::Named("residual") = r.residual, Rcpp::Named("note") = r.note,
        Rcpp::Named("n_rank_deficient") = static_cast<double>(B.n_rank_deficient),
        Rcpp::Named("nnz") = static_cast<double>(B.B.nonZeros()),
        Rcpp::Named("seconds") = Rcpp::NumericVector::create(
            Rcpp::Named("assembly") = std::chrono::duration<double>(t1 - t0).count(),
            Rcpp::Named("eigen") = std::chrono::duration<double>(t2 - t1).count()));
  }
  MO_CATCH
}

// The alignment matrix itself (tests).
// [[Rcpp::export(.mo_ltsa_alignment)]]
Eigen::SparseMatrix<double> mo_ltsa_alignment(const arma::mat& X, const arma::imat& nbhd1, int q) {
  MO_TRY {
    const arma::Mat<int> nb = mo_index0(nbhd1, X.n_rows);
    return manifoldOOS::ltsa_alignment_matrix(X, nb, q, 1).B;
  }
  MO_CATCH
}
