// Sparse matrices in compressed form, as views of memory owned elsewhere
// (the arrays of an R dgCMatrix, say) and as owned row-compressed copies.
// The building block of the sparse-input paths: exact sparse kNN
// (blocks/knn_sparse.h) and the truncated PCA of a sparse matrix
// (methods/pca_sparse.h).
#ifndef MANIFOLDOOS_SPARSE_ROWS_H
#define MANIFOLDOOS_SPARSE_ROWS_H

#include <cstddef>
#include <vector>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// Column-compressed n_rows x n_cols matrix (0-based, row indices sorted
// within each column): column j holds entries ptr[j] .. ptr[j + 1] - 1.
struct csc_view {
  std::size_t n_rows = 0, n_cols = 0;
  const int* ptr = nullptr;
  const int* idx = nullptr;
  const double* val = nullptr;
};

// Row-compressed copy: row i holds entries ptr[i] .. ptr[i + 1] - 1, with
// column indices ascending.
struct sparse_rows {
  std::size_t n_rows = 0, n_cols = 0;
  std::vector<std::size_t> ptr;
  std::vector<int> col;
  std::vector<double> val;
  std::size_t nnz(std::size_t i) const { return ptr[i + 1] - ptr[i]; }
};

// The rows of a column-compressed matrix (a counting-sort transpose, O(nnz)).
inline sparse_rows csc_to_rows(const csc_view& A) {
  sparse_rows R;
  R.n_rows = A.n_rows;
  R.n_cols = A.n_cols;
  R.ptr.assign(A.n_rows + 1, 0);
  const std::size_t nnz = A.n_cols ? static_cast<std::size_t>(A.ptr[A.n_cols]) : 0;
  for (std::size_t e = 0; e < nnz; ++e) {
    const int r = A.idx[e];
    if (r < 0 || static_cast<std::size_t>(r) >= A.n_rows) throw input_error("sparse matrix: row index out of range");
    ++R.ptr[static_cast<std::size_t>(r) + 1];
  }
  for (std::size_t i = 0; i < A.n_rows; ++i) R.ptr[i + 1] += R.ptr[i];
  R.col.resize(nnz);
  R.val.resize(nnz);
  std::vector<std::size_t> next(R.ptr.begin(), R.ptr.end() - 1);
  for (std::size_t j = 0; j < A.n_cols; ++j) {
    for (int e = A.ptr[j]; e < A.ptr[j + 1]; ++e) {
      const std::size_t at = next[static_cast<std::size_t>(A.idx[e])]++;
      R.col[at] = static_cast<int>(j);
      R.val[at] = A.val[e];
    }
  }
  return R;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SPARSE_ROWS_H
