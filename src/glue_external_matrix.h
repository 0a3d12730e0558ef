// Numeric matrices whose values live outside R's vector heap (ALTREP), for
// the large results the core writes in one go (Isomap's geodesic storage:
// 200 MB at n = 5000). Allocating such a vector on R's heap first makes R run
// a full garbage collection (0.12 s after library(manifoldOOS) on the
// project's machine, 15 % of the whole fit at n = 5000) and fills it with
// zeros; a buffer from malloc() does neither, and its pages are first touched
// by the threads that write the values.
//
// To R the object is an ordinary double matrix: its data pointer is the
// buffer's (so REAL(), arma/Rcpp views and the C code of the package read it
// in place). It has no serialisation method of its own, so saveRDS() writes
// plain values, and duplicate() (R's copy-on-modify) gives a plain matrix.
// The buffer is freed by the finalizer of the external pointer it hangs on
// (when the matrix is garbage collected, or at the end of the session).
#ifndef MO_GLUE_EXTERNAL_MATRIX_H
#define MO_GLUE_EXTERNAL_MATRIX_H

#include <R_ext/Altrep.h>
#include <R_ext/Rdynload.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace mo_external {

struct buffer {
  void* raw = nullptr;     // from malloc()
  double* data = nullptr;  // raw rounded up to 64 bytes
  R_xlen_t length = 0;
};

inline buffer* get(SEXP x) {
  return static_cast<buffer*>(R_ExternalPtrAddr(R_altrep_data1(x)));
}

inline void finalize(SEXP ptr) {
  buffer* b = static_cast<buffer*>(R_ExternalPtrAddr(ptr));
  if (b == nullptr) return;
  std::free(b->raw);
  delete b;
  R_ClearExternalPtr(ptr);
}

inline R_xlen_t length_method(SEXP x) { return get(x)->length; }
inline void* dataptr_method(SEXP x, Rboolean) { return get(x)->data; }
inline const void* dataptr_or_null_method(SEXP x) { return get(x)->data; }
inline double elt_method(SEXP x, R_xlen_t i) { return get(x)->data[i]; }
inline Rboolean inspect_method(SEXP x, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" manifoldOOS external double vector (length %.0f)\n", static_cast<double>(get(x)->length));
  return TRUE;
}

// The ALTREP class, made on first use (it belongs to the package's DLL).
inline R_altrep_class_t matrix_class() {
  static bool made = false;
  static R_altrep_class_t cls;
  if (!made) {
    cls = R_make_altreal_class("mo_external_double", "manifoldOOS", R_getDllInfo("manifoldOOS"));
    R_set_altrep_Length_method(cls, length_method);
    R_set_altrep_Inspect_method(cls, inspect_method);
    R_set_altvec_Dataptr_method(cls, dataptr_method);
    R_set_altvec_Dataptr_or_null_method(cls, dataptr_or_null_method);
    R_set_altreal_Elt_method(cls, elt_method);
    made = true;
  }
  return cls;
}

// An nrow x ncol double matrix with uninitialised values: the caller writes
// every entry before the matrix is seen by R code. Throws std::bad_alloc
// when the memory is not available.
struct matrix {
  Rcpp::NumericMatrix sexp;
  double* data = nullptr;
};

inline matrix new_matrix(int nrow, int ncol) {
  const R_xlen_t len = static_cast<R_xlen_t>(nrow) * static_cast<R_xlen_t>(ncol);
  buffer* b = new buffer;
  b->length = len;
  // 64-byte aligned (a cache line): malloc() alone gives 16 bytes, and the
  // vectorised kernels that read the columns then split loads across lines
  // (predict() of an Isomap fit was 8 % slower)
  const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(len > 0 ? len : 1);
  b->raw = std::malloc(bytes + 64);
  if (b->raw != nullptr) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(b->raw);
    b->data = reinterpret_cast<double*>((a + 63) & ~static_cast<std::uintptr_t>(63));
  }
  if (b->raw == nullptr) {
    delete b;
    throw std::bad_alloc();
  }
  Rcpp::Shield<SEXP> ptr(R_MakeExternalPtr(b, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(ptr, finalize, TRUE);
  Rcpp::Shield<SEXP> x(R_new_altrep(matrix_class(), ptr, R_NilValue));
  Rcpp::Shield<SEXP> dim(Rf_allocVector(INTSXP, 2));
  INTEGER(dim)[0] = nrow;
  INTEGER(dim)[1] = ncol;
  Rf_setAttrib(x, R_DimSymbol, dim);
  matrix m;
  m.sexp = Rcpp::NumericMatrix(static_cast<SEXP>(x));
  m.data = b->data;
  return m;
}

}  // namespace mo_external

#endif  // MO_GLUE_EXTERNAL_MATRIX_H
