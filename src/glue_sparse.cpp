// R glue for the sparse-input paths: exact kNN on sparse rows and the
// truncated PCA of a sparse matrix. A dgCMatrix arrives as its slots
// (p, i, x, Dim), viewed without a copy.
#include "glue.h"

#include <manifoldOOS/blocks/knn_sparse.h>
#include <manifoldOOS/methods/pca_sparse.h>

namespace {

manifoldOOS::csc_view csc_of(const Rcpp::S4& A) {
  const Rcpp::IntegerVector dim = A.slot("Dim");
  const Rcpp::IntegerVector p = A.slot("p");
  const Rcpp::IntegerVector i = A.slot("i");
  const Rcpp::NumericVector x = A.slot("x");
  manifoldOOS::csc_view v;
  v.n_rows = static_cast<std::size_t>(dim[0]);
  v.n_cols = static_cast<std::size_t>(dim[1]);
  if (p.size() != dim[1] + 1 || i.size() != x.size() || (dim[1] > 0 && p[dim[1]] != x.size())) {
    throw manifoldOOS::input_error("the sparse matrix is not a valid dgCMatrix");
  }
  v.ptr = p.begin();
  v.idx = i.begin();
  v.val = x.begin();
  return v;
}

}  // namespace

// [[Rcpp::export(.mo_knn_sparse)]]
Rcpp::List mo_knn_sparse(const Rcpp::S4& X, SEXP query, int k, std::string metric, bool centre_rows,
                         int n_threads) {
  MO_TRY {
    const manifoldOOS::sparse_metric m = manifoldOOS::parse_choice<manifoldOOS::sparse_metric>(
        metric, {{"euclidean", manifoldOOS::sparse_metric::euclidean},
                 {"manhattan", manifoldOOS::sparse_metric::manhattan}},
        "unknown sparse metric");
    const manifoldOOS::csc_view xv = csc_of(X);
    manifoldOOS::csc_view qv;
    const bool has_query = !Rf_isNull(query);
    if (has_query) qv = csc_of(Rcpp::S4(query));
    manifoldOOS::knn_result r =
        manifoldOOS::knn_sparse(xv, has_query ? &qv : nullptr, k, m, centre_rows, n_threads);
    Rcpp::IntegerMatrix idx(static_cast<int>(r.idx.n_rows), static_cast<int>(r.idx.n_cols));
    for (arma::uword e = 0; e < r.idx.n_elem; ++e) idx[e] = r.idx[e] + 1;
    return Rcpp::List::create(Rcpp::Named("idx") = idx, Rcpp::Named("dist") = r.dist);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_pca_sparse_fit)]]
Rcpp::List mo_pca_sparse_fit(const Rcpp::S4& X, int ndim, bool scale, double tol, int n_threads) {
  MO_TRY {
    manifoldOOS::pca_sparse_info info;
    const manifoldOOS::pca_model m = manifoldOOS::pca_fit_sparse(
        csc_of(X), static_cast<arma::uword>(ndim), scale, tol, n_threads, &info);
    return Rcpp::List::create(
        Rcpp::Named("center") = Rcpp::NumericVector(m.center.begin(), m.center.end()),
        Rcpp::Named("scale") = Rcpp::NumericVector(m.scale.begin(), m.scale.end()),
        Rcpp::Named("rotation") = m.rotation,
        Rcpp::Named("sdev") = Rcpp::NumericVector(m.sdev.begin(), m.sdev.end()),
        Rcpp::Named("scores") = m.scores,
        Rcpp::Named("total_variance") = info.total_variance,
        Rcpp::Named("solver") = info.solver,
        Rcpp::Named("n_ops") = static_cast<double>(info.n_ops),
        Rcpp::Named("residual") = info.residual);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_pca_sparse_project)]]
arma::mat mo_pca_sparse_project(const Rcpp::S4& Xnew, const arma::rowvec& center, const arma::rowvec& scale,
                                const arma::mat& rotation, int n_threads) {
  MO_TRY {
    manifoldOOS::pca_model m;
    m.center = center;
    m.scale = scale;
    m.rotation = rotation;
    return manifoldOOS::pca_project_sparse(m, csc_of(Xnew), n_threads);
  }
  MO_CATCH
}
