// Conversions shared by the glue files (include after glue.h).
#ifndef MANIFOLDOOS_GLUE_HELPERS_H
#define MANIFOLDOOS_GLUE_HELPERS_H

#include <manifoldOOS/blocks/kernels.h>
#include <string>
#include <vector>

// 1-based R neighbour matrix -> 0-based, range-checked against n points.
inline arma::Mat<int> mo_index0(const arma::imat& idx1, arma::uword n) {
  arma::Mat<int> idx = arma::conv_to<arma::Mat<int>>::from(idx1) - 1;
  if (idx.n_elem > 0 && (idx.min() < 0 || idx.max() >= int(n)))
    throw manifoldOOS::input_error("neighbour index out of range");
  return idx;
}

// ---- index conversions: R is 1-based, the core 0-based --------------------------
// One 1-based R index (NA allowed: it maps to -1, out of every range) ->
// 0-based; the caller checks the range.
inline int mo_index0(int i1) { return i1 == NA_INTEGER ? -1 : i1 - 1; }

// One 0-based core index -> 1-based.
inline int mo_index1(int i0) { return i0 + 1; }

// 1-based R indices (a vector, or a matrix in column-major order) -> 0-based;
// NA is rejected, the range is the caller's to check.
inline std::vector<int> mo_index0(const Rcpp::IntegerVector& x) {
  std::vector<int> out(x.size());
  for (R_xlen_t t = 0; t < x.size(); ++t) {
    if (x[t] == NA_INTEGER) throw manifoldOOS::input_error("indices must not be NA.");
    out[t] = x[t] - 1;
  }
  return out;
}

// 0-based indices written by the core into an R integer vector or matrix ->
// 1-based, in place.
inline void mo_index1_inplace(Rcpp::IntegerVector& x) {
  for (R_xlen_t t = 0; t < x.size(); ++t) x[t] += 1;
}

// 0-based core indices -> a 1-based R integer vector.
template <typename Vec>
inline Rcpp::IntegerVector mo_index1(const Vec& idx0) {
  Rcpp::IntegerVector out(idx0.size());
  R_xlen_t t = 0;
  for (auto i : idx0) out[t++] = static_cast<int>(i) + 1;
  return out;
}

// Kernel specification from the fields of an R kernel_spec().
inline manifoldOOS::kernel_spec mo_kernel_spec(const std::string& type, double sigma,
                                               double gamma, double coef0, double degree) {
  manifoldOOS::kernel_spec k;
  k.type = manifoldOOS::parse_kernel_type(type);
  k.sigma = sigma;
  k.gamma = gamma;
  k.coef0 = coef0;
  k.degree = degree;
  manifoldOOS::check_kernel(k);
  return k;
}

inline Rcpp::NumericVector mo_vec(const arma::vec& v) {
  return Rcpp::NumericVector(v.begin(), v.end());
}

// The columns of an R table of edges: 1-based endpoints and a weight per edge.
struct mo_edge_columns {
  Rcpp::IntegerVector i, j;
  Rcpp::NumericVector weight;
};

// Core edges (0-based `i`, `j` and the double member `weight` points to, as in
// added_edge and mst_edge) -> the columns of an R edge table.
template <typename Edge>
inline mo_edge_columns mo_edges(const std::vector<Edge>& e, double Edge::*weight) {
  mo_edge_columns c{Rcpp::IntegerVector(e.size()), Rcpp::IntegerVector(e.size()),
                    Rcpp::NumericVector(e.size())};
  for (std::size_t t = 0; t < e.size(); ++t) {
    c.i[t] = mo_index1(e[t].i);
    c.j[t] = mo_index1(e[t].j);
    c.weight[t] = e[t].*weight;
  }
  return c;
}

#endif  // MANIFOLDOOS_GLUE_HELPERS_H

// The helpers below exist when the core header they convert for was included
// before this one. Each has its own guard outside the main one, so a
// translation unit that includes several glue files (src/unity_*.cpp) gets
// the helpers that a later glue file's headers enable.
#if defined(MANIFOLDOOS_PATHS_H) && !defined(MO_GLUE_HELPERS_ADJACENCY)
#define MO_GLUE_HELPERS_ADJACENCY
// Out-adjacency of a square dgCMatrix whose column u lists the out-edges of
// u (a symmetric W, or t(W) for a directed graph). The matrix must outlive
// the view.
inline manifoldOOS::adjacency_view mo_adjacency(
    const Eigen::Map<Eigen::SparseMatrix<double>>& A) {
  if (A.rows() != A.cols()) throw manifoldOOS::input_error("the graph matrix must be square.");
  manifoldOOS::adjacency_view v;
  v.n = static_cast<int>(A.cols());
  v.adj_ptr = A.outerIndexPtr();
  v.adj_idx = A.innerIndexPtr();
  v.adj_len = A.valuePtr();
  return v;
}
#endif

#if defined(MANIFOLDOOS_LMDS_H) && !defined(MO_GLUE_HELPERS_LMDS)
#define MO_GLUE_HELPERS_LMDS
// Landmark-MDS map from the fields stored in an R fit (checked).
inline manifoldOOS::lmds_map mo_lmds_map(const arma::mat& lsharp_t, const arma::mat& coords,
                                         const arma::vec& values, const arma::vec& mu,
                                         double grand_mean) {
  manifoldOOS::lmds_map M = manifoldOOS::make_lmds_map(lsharp_t, coords, values, mu, grand_mean);
  M.check();
  return M;
}
#endif

#if defined(MANIFOLDOOS_MDS_H) && !defined(MO_GLUE_HELPERS_MDS)
#define MO_GLUE_HELPERS_MDS
// The fields of a classical-MDS model returned to R.
inline Rcpp::List mo_cmds_list(const manifoldOOS::cmds_model& m) {
  return Rcpp::List::create(
      Rcpp::Named("embedding") = m.embedding, Rcpp::Named("lsharp_t") = m.lsharp_t,
      Rcpp::Named("coords") = m.embedding, Rcpp::Named("values") = mo_vec(m.values),
      Rcpp::Named("mu") = mo_vec(m.mu), Rcpp::Named("grand_mean") = m.grand_mean,
      Rcpp::Named("negative_mass") = m.negative_mass, Rcpp::Named("solver") = m.method,
      Rcpp::Named("n_ops") = static_cast<double>(m.n_ops), Rcpp::Named("note") = m.note);
}
#endif

#if defined(MANIFOLDOOS_EIGEN_SPARSE_H) && !defined(MO_GLUE_HELPERS_EIG_OPTIONS)
#define MO_GLUE_HELPERS_EIG_OPTIONS
// Eigen-solver options from the list built by eig_opts() (R/eigen.R);
// missing entries keep the defaults. Include eigen_sparse.h first.
inline manifoldOOS::eig_options mo_eig_options(const Rcpp::List& L) {
  manifoldOOS::eig_options o;
  if (L.containsElementNamed("method"))
    o.method = manifoldOOS::parse_eig_method(Rcpp::as<std::string>(L["method"]));
  if (L.containsElementNamed("dense_max_n")) o.dense_max_n = Rcpp::as<double>(L["dense_max_n"]);
  if (L.containsElementNamed("dense_top_max_n"))
    o.dense_top_max_n = Rcpp::as<double>(L["dense_top_max_n"]);
  if (L.containsElementNamed("fallback_max_n"))
    o.fallback_max_n = Rcpp::as<double>(L["fallback_max_n"]);
  if (L.containsElementNamed("shift_eps")) o.shift_eps = Rcpp::as<double>(L["shift_eps"]);
  if (L.containsElementNamed("tol")) o.tol = Rcpp::as<double>(L["tol"]);
  if (L.containsElementNamed("maxit")) o.maxit = Rcpp::as<double>(L["maxit"]);
  if (L.containsElementNamed("ncv")) o.ncv = Rcpp::as<double>(L["ncv"]);
  if (L.containsElementNamed("ridge")) o.ridge = Rcpp::as<double>(L["ridge"]);
  if (L.containsElementNamed("deflated"))
    o.deflated = manifoldOOS::parse_deflated_solver(Rcpp::as<std::string>(L["deflated"]));
  if (L.containsElementNamed("lobpcg_min_n")) o.lobpcg_min_n = Rcpp::as<double>(L["lobpcg_min_n"]);
  if (L.containsElementNamed("lobpcg_tol")) o.lobpcg_tol = Rcpp::as<double>(L["lobpcg_tol"]);
  if (L.containsElementNamed("fill_min_n")) o.fill_min_n = Rcpp::as<double>(L["fill_min_n"]);
  if (L.containsElementNamed("lobpcg_flops_per_nnz"))
    o.lobpcg_flops_per_nnz = Rcpp::as<double>(L["lobpcg_flops_per_nnz"]);
  if (L.containsElementNamed("factor_memory")) o.factor_memory = Rcpp::as<double>(L["factor_memory"]);
  if (L.containsElementNamed("screen_n")) o.screen_n = Rcpp::as<double>(L["screen_n"]);
  return o;
}
#endif
