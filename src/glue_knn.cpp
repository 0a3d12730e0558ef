// R glue for exact nearest-neighbour search (core: src/knn.cpp).
#include "glue.h"
#include <manifoldOOS/blocks/knn_impl.h>

#include <climits>
#include <string>

namespace {

manifoldOOS::knn_algorithm parse_algorithm(const std::string& a) {
  if (a == "auto") return manifoldOOS::knn_algorithm::automatic;
  if (a == "kdtree") return manifoldOOS::knn_algorithm::kdtree;
  if (a == "brute") return manifoldOOS::knn_algorithm::brute;
  throw manifoldOOS::input_error("`algorithm` must be one of \"auto\", \"kdtree\", \"brute\".");
}

// The query matrix, or nullptr for a self-search.
const double* query_pointer(SEXP query, std::size_t p, std::size_t& m) {
  if (Rf_isNull(query)) return nullptr;
  if (!Rf_isMatrix(query) || TYPEOF(query) != REALSXP) {
    throw manifoldOOS::input_error("`query` must be a double matrix.");
  }
  if (static_cast<std::size_t>(Rf_ncols(query)) != p) {
    throw manifoldOOS::input_error("`query` must have as many columns as `X`.");
  }
  m = static_cast<std::size_t>(Rf_nrows(query));
  return REAL(query);
}

}  // namespace

// kNN lists (1-based indices) of the rows of `query` (or of X itself, self
// excluded, when query is NULL) among the rows of X.
// [[Rcpp::export(.mo_knn)]]
Rcpp::List mo_knn(const Rcpp::NumericMatrix& X, SEXP query, int k, std::string algorithm,
                  int n_threads) {
  MO_TRY {
    const std::size_t n = X.nrow(), p = X.ncol();
    std::size_t m = n;
    const double* Q = query_pointer(query, p, m);
    if (k < 1) throw manifoldOOS::input_error("`k` must be at least 1.");
    Rcpp::IntegerMatrix idx(static_cast<int>(m), k);
    Rcpp::NumericMatrix dist(static_cast<int>(m), k);
    manifoldOOS::knn_search_raw(X.begin(), n, p, Q, m, k, parse_algorithm(algorithm), n_threads,
                                idx.begin(), dist.begin());
    for (R_xlen_t t = 0; t < idx.size(); ++t) idx[t] += 1;
    return Rcpp::List::create(Rcpp::Named("idx") = idx, Rcpp::Named("dist") = dist);
  }
  MO_CATCH
}

// Radius lists in CSR form: ptr (0-based offsets, length m + 1), idx
// (1-based), dist; sorted by (distance, index) within each query.
// [[Rcpp::export(.mo_radius)]]
Rcpp::List mo_radius(const Rcpp::NumericMatrix& X, SEXP query, double eps,
                     std::string algorithm, int n_threads) {
  MO_TRY {
    const std::size_t n = X.nrow(), p = X.ncol();
    std::size_t m = n;
    const double* Q = query_pointer(query, p, m);
    manifoldOOS::radius_lists r = manifoldOOS::radius_search_raw(
        X.begin(), n, p, Q, m, eps, parse_algorithm(algorithm), n_threads);
    if (r.ptr.back() > static_cast<std::int64_t>(INT_MAX)) {
      throw manifoldOOS::input_error(
          "`eps` gives more than 2^31 - 1 neighbour pairs; choose a smaller radius.");
    }
    Rcpp::IntegerVector ptr(r.ptr.size());
    for (std::size_t i = 0; i < r.ptr.size(); ++i) ptr[i] = static_cast<int>(r.ptr[i]);
    Rcpp::IntegerVector idx(r.idx.size());
    for (std::size_t i = 0; i < r.idx.size(); ++i) idx[i] = r.idx[i] + 1;
    Rcpp::NumericVector dist(r.dist.begin(), r.dist.end());
    return Rcpp::List::create(Rcpp::Named("ptr") = ptr, Rcpp::Named("idx") = idx,
                              Rcpp::Named("dist") = dist);
  }
  MO_CATCH
}

// Testing/benchmark hook: choose the cross-product kernel of the brute-force
// path ("auto", "portable", "avx2"; "" leaves it) and return the one in use.
// [[Rcpp::export(.mo_knn_kernel)]]
std::string mo_knn_kernel(std::string kernel) {
  MO_TRY {
    if (kernel == "auto") manifoldOOS::set_gram_kernel(manifoldOOS::gram_kernel::automatic);
    else if (kernel == "portable") manifoldOOS::set_gram_kernel(manifoldOOS::gram_kernel::portable);
    else if (kernel == "avx2") manifoldOOS::set_gram_kernel(manifoldOOS::gram_kernel::avx2);
    else if (!kernel.empty()) throw manifoldOOS::input_error("unknown kernel name.");
    return manifoldOOS::gram_kernel_name();
  }
  MO_CATCH
}
