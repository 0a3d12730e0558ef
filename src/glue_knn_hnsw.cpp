// R glue for approximate nearest neighbours with HNSW (core:
// inst/include/manifoldOOS/blocks/knn_hnsw.h; hnswlib headers as shipped for
// RcppHNSW).
#include "glue.h"
#include <manifoldOOS/blocks/knn_hnsw.h>

#include <cstdio>
#include <string>

namespace {

manifoldOOS::hnsw_index* index_pointer(SEXP index) {
  if (TYPEOF(index) != EXTPTRSXP) throw manifoldOOS::input_error("`index` must be an HNSW index.");
  auto* ptr = static_cast<manifoldOOS::hnsw_index*>(R_ExternalPtrAddr(index));
  if (ptr == nullptr) {
    throw manifoldOOS::input_error("`index` is no longer valid (HNSW indexes do not survive saveRDS()).");
  }
  return ptr;
}

}  // namespace

// Build an HNSW index of the rows of X; returned as an external pointer.
// [[Rcpp::export(.mo_hnsw_build)]]
SEXP mo_hnsw_build(const Rcpp::NumericMatrix& X, int M, int ef_construction, double seed,
                   int n_threads) {
  MO_TRY {
    manifoldOOS::hnsw_options opt;
    opt.M = M;
    opt.ef_construction = ef_construction;
    opt.seed = static_cast<std::uint64_t>(seed);
    auto* ix = new manifoldOOS::hnsw_index(X.begin(), static_cast<std::size_t>(X.nrow()),
                                           static_cast<std::size_t>(X.ncol()), opt, n_threads);
    Rcpp::XPtr<manifoldOOS::hnsw_index> ptr(ix, true);
    return ptr;
  }
  MO_CATCH
}

// k nearest neighbours (1-based) of the rows of `query` (NULL: the indexed
// rows themselves, self excluded by index).
// [[Rcpp::export(.mo_hnsw_search)]]
Rcpp::List mo_hnsw_search(SEXP index, SEXP query, int k, int ef, int n_threads) {
  MO_TRY {
    const manifoldOOS::hnsw_index* ix = index_pointer(index);
    const double* Q = nullptr;
    std::size_t m = ix->n();
    if (!Rf_isNull(query)) {
      if (!Rf_isMatrix(query) || TYPEOF(query) != REALSXP) {
        throw manifoldOOS::input_error("`query` must be a double matrix.");
      }
      if (static_cast<std::size_t>(Rf_ncols(query)) != ix->p()) {
        throw manifoldOOS::input_error("`query` must have as many columns as `X`.");
      }
      m = static_cast<std::size_t>(Rf_nrows(query));
      Q = REAL(query);
    }
    Rcpp::IntegerMatrix idx(static_cast<int>(m), k);
    Rcpp::NumericMatrix dist(static_cast<int>(m), k);
    if (m > 0) ix->search(Q, m, k, ef, n_threads, idx.begin(), dist.begin());
    for (R_xlen_t t = 0; t < idx.size(); ++t) idx[t] += 1;
    return Rcpp::List::create(Rcpp::Named("idx") = idx, Rcpp::Named("dist") = dist);
  }
  MO_CATCH
}

// Fingerprint (hex) of a double matrix: dimensions and every bit of the data.
// [[Rcpp::export(.mo_fingerprint)]]
std::string mo_fingerprint(const Rcpp::NumericMatrix& X) {
  MO_TRY {
    std::uint64_t h = manifoldOOS::fingerprint(X.begin(), static_cast<std::size_t>(X.size()));
    h ^= static_cast<std::uint64_t>(X.nrow()) * 0x100000001b3ULL;
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
    return std::string(buf);
  }
  MO_CATCH
}
