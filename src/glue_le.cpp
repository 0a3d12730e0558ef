// Glue for Laplacian eigenmaps and their out-of-sample maps
// (inst/include/manifoldOOS/le.h).
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/methods/le.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include "glue_helpers.h"

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
    std::vector<int> idx(idx1.size());
    for (R_xlen_t i = 0; i < idx1.size(); ++i) {
      idx[i] = idx1[i] - 1;
      if (idx[i] < 0 || idx[i] >= int(Y.n_rows)) throw manifoldOOS::input_error("neighbour index out of range");
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
