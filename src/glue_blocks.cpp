// R glue for the building blocks: interrupt wiring, dense and iterative
// eigen-solvers, graphs and shortest paths, kernels, exact and approximate
// (HNSW) nearest neighbours, reconstruction weights. The glue is grouped by
// layer of the core: every glue translation unit pays for the Rcpp and
// Armadillo headers, so fewer, larger glue files keep the build short.
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/blocks/spd_factor.h>

#include <manifoldOOS/blocks/eigen_deflate.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/kernels.h>
#include <manifoldOOS/blocks/knn_hnsw.h>
#include <manifoldOOS/blocks/knn_impl.h>
#include <manifoldOOS/blocks/locality_order.h>
#include <manifoldOOS/blocks/paths.h>
#include <manifoldOOS/blocks/reconstruction.h>

#include <Rinternals.h>
#include <climits>
#ifndef _WIN32
#include <pthread.h>
#endif
#include <cstdio>
#include <string>
#include <vector>

#include "glue_eigen_result.h"
#include "glue_helpers.h"

// ----------------------------------------------------------------------------
namespace {
// Polling for interrupts runs R_CheckUserInterrupt() inside R_ToplevelExec(),
// so a user interrupt unwinds only to there (and is reported as pending).
// R_CheckUserInterrupt() can also signal an ordinary R error (for example a
// time limit set with setTimeLimit()); with no handler inside the top-level
// context a non-interactive R session would stop, so such errors are caught
// here, remembered, and re-raised as an R error once the core has unwound.
bool poll_error_seen = false;
SEXP poll_body(void*) {
  R_CheckUserInterrupt();
  return R_NilValue;
}
SEXP poll_error(SEXP, void*) {
  poll_error_seen = true;
  return R_NilValue;
}
void check_interrupt_cb(void*) { R_tryCatchError(poll_body, nullptr, poll_error, nullptr); }
bool r_interrupt_pending() {
  if (R_ToplevelExec(check_interrupt_cb, nullptr) == FALSE) return true;
  return poll_error_seen;
}
}  // namespace

bool mo_take_poll_error() {
  bool seen = poll_error_seen;
  poll_error_seen = false;
  return seen;
}

namespace {
// pthread_atfork child handler: a process created by fork() (parallel's
// mclapply(), future's multicore plan, doParallel's forked workers) runs the
// compiled code on one thread, since GNU OpenMP's thread pool does not
// survive fork(). Only async-signal-safe work: two stores.
void mo_atfork_child() { manifoldOOS::enter_forked_child(); }
}  // namespace

// [[Rcpp::init]]
void manifoldOOS_init(DllInfo* dll) {
  (void)dll;
  manifoldOOS::set_interrupt_hook(&r_interrupt_pending);
#ifndef _WIN32
  // once per process: the shared object is loaded once
  static bool registered = false;
  if (!registered) registered = pthread_atfork(nullptr, nullptr, &mo_atfork_child) == 0;
#endif
}

// Number of threads "all available" means for the package (1 without OpenMP).
// [[Rcpp::export(.mo_max_threads)]]
int mo_max_threads() { return manifoldOOS::resolve_threads(0); }

// OpenMP's own default (OMP_NUM_THREADS, else the CPUs of the affinity mask)
// and OMP_THREAD_LIMIT (0 when unlimited); 1 and 1 without OpenMP.
// [[Rcpp::export(.mo_omp_info)]]
Rcpp::IntegerVector mo_omp_info() {
#ifdef _OPENMP
  const int limit = omp_get_thread_limit();
  return Rcpp::IntegerVector::create(Rcpp::_["max_threads"] = omp_get_max_threads(),
                                     Rcpp::_["thread_limit"] = limit >= INT_MAX ? 0 : limit,
                                     Rcpp::_["openmp"] = 1);
#else
  return Rcpp::IntegerVector::create(Rcpp::_["max_threads"] = 1, Rcpp::_["thread_limit"] = 0,
                                     Rcpp::_["openmp"] = 0);
#endif
}

// Sets what n_threads = 0 ("all available") means (set at load time from the
// CPU quota of the process; n < 1: OpenMP's default).
// [[Rcpp::export(.mo_set_available_threads)]]
int mo_set_available_threads(int n) {
  manifoldOOS::threads_config().available.store(n > 0 ? n : 0);
  return manifoldOOS::resolve_threads(0);
}

// In a process created by fork(): the most threads the compiled code may use
// (set from options(manifoldOOS.fork_threads)); returns 0 outside a forked
// child (nothing is changed there) and the limit in effect inside one.
// [[Rcpp::export(.mo_fork_threads)]]
int mo_fork_threads(int n) {
  manifoldOOS::thread_settings& cfg = manifoldOOS::threads_config();
  if (!manifoldOOS::in_forked_child()) return 0;
  if (n >= 1) {
    cfg.fork_limit.store(n);
#ifdef _OPENMP
    if (n > 1) omp_set_num_threads(n);
#endif
  }
  return cfg.fork_limit.load();
}

// ----------------------------------------------------------------------------
// Glue for the dense eigen-solvers (Armadillo only; see glue_eigen_sparse.cpp
// for the Eigen/Spectra paths).


// All / bottom m / top m eigenpairs of a dense symmetric matrix (LAPACK).
// [[Rcpp::export(.mo_eigs_dense)]]
Rcpp::List mo_eigs_dense(const arma::mat& A, std::string which, int m) {
  MO_TRY {
    if (m < 0) throw manifoldOOS::input_error("the number of eigenpairs must be positive");
    return eigen_result_to_list(
        manifoldOOS::eig_dense(A, manifoldOOS::parse_eig_which(which), static_cast<arma::uword>(m)));
  }
  MO_CATCH
}

// Dense generalised problem A v = lambda B v (B SPD; ridge: <0 auto, 0 none, >0 fixed).
// [[Rcpp::export(.mo_geigs_dense)]]
Rcpp::List mo_geigs_dense(const arma::mat& A, const arma::mat& B, std::string which, int m,
                          double ridge) {
  MO_TRY {
    if (m < 0) throw manifoldOOS::input_error("the number of eigenpairs must be positive");
    return eigen_result_to_list(manifoldOOS::geig_dense(
        A, B, manifoldOOS::parse_eig_which(which), static_cast<arma::uword>(m), ridge));
  }
  MO_CATCH
}

// Drop the trivial (null) eigenpair of an ascending bottom-(q+1) result.
// [[Rcpp::export(.mo_drop_trivial)]]
Rcpp::List mo_drop_trivial(const arma::vec& values, const arma::mat& vectors,
                           const arma::vec& null_vec, double scale) {
  MO_TRY {
    manifoldOOS::eigen_result r;
    r.values = values;
    r.vectors = vectors;
    double dropped = 0.0;
    manifoldOOS::eigen_result out = manifoldOOS::drop_trivial(r, null_vec, scale, &dropped);
    return Rcpp::List::create(
        Rcpp::Named("values") = Rcpp::NumericVector(out.values.begin(), out.values.end()),
        Rcpp::Named("vectors") = out.vectors,
        Rcpp::Named("dropped_value") = dropped);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// Glue for the iterative eigen-solvers (Eigen + Spectra) and the single entry
// point eigs_sym().


// Sparse symmetric A (dgCMatrix): bottom/top/all m eigenpairs via eigs_sym().
// [[Rcpp::export(.mo_eigs_sparse)]]
Rcpp::List mo_eigs_sparse(const Eigen::Map<Eigen::SparseMatrix<double>> A, std::string which,
                          int m, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e As(A);
    return eigen_result_to_list(manifoldOOS::eigs_sym(manifoldOOS::sym_problem::sparse(As),
                                                manifoldOOS::parse_eig_which(which), m,
                                                mo_eig_options(opts)));
  }
  MO_CATCH
}

// Bottom m pairs of a sparse PSD A on the orthogonal complement of its null
// vector `null_vec` (the deflated solver of eigen_deflate.h).
// [[Rcpp::export(.mo_eigs_bottom_deflated)]]
Rcpp::List mo_eigs_bottom_deflated(const Eigen::Map<Eigen::SparseMatrix<double>> A,
                                   const arma::vec& null_vec, int m, Rcpp::List opts) {
  MO_TRY {
    manifoldOOS::sp_mat_e As(A);  // our copy: the LOBPCG route may renumber it in place
    return eigen_result_to_list(
        manifoldOOS::eigs_sparse_bottom_deflated_in_place(As, null_vec, m, mo_eig_options(opts)));
  }
  MO_CATCH
}

// Predicted nonzeros of the Cholesky factor and flops of the numeric
// factorisation of a sparse symmetric matrix (the registered symbolic
// analysis; NA when none is registered or it fails).
// [[Rcpp::export(.mo_predicted_fill)]]
Rcpp::NumericVector mo_predicted_fill(const Eigen::Map<Eigen::SparseMatrix<double>> A) {
  MO_TRY {
    double lnz = NA_REAL, fl = NA_REAL;
    const manifoldOOS::sp_mat_e As(A);
    if (const manifoldOOS::spd_fill_estimator f = manifoldOOS::spd_fill_estimator_fn()) {
      if (!f(As, &lnz, &fl, nullptr)) lnz = fl = NA_REAL;
    }
    return Rcpp::NumericVector::create(Rcpp::Named("lnz") = lnz, Rcpp::Named("flops") = fl);
  }
  MO_CATCH
}

// The automatic choice of the deflated solver for A (sparse symmetric)
// with the options of eig_opts(), without solving: list(lobpcg, note).
// [[Rcpp::export(.mo_choose_deflated)]]
Rcpp::List mo_choose_deflated(const Eigen::Map<Eigen::SparseMatrix<double>> A, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e As(A);
    const manifoldOOS::deflated_choice c = manifoldOOS::choose_deflated_solver(As, mo_eig_options(opts), false);
    return Rcpp::List::create(Rcpp::Named("lobpcg") = c.lobpcg, Rcpp::Named("note") = c.note);
  }
  MO_CATCH
}

long mo_cholmod_analyses();  // glue_cholmod.cpp

// The number of CHOLMOD symbolic analyses run in this session (for tests).
// [[Rcpp::export(.mo_cholmod_analyses)]]
double mo_cholmod_analyses_r() { return static_cast<double>(mo_cholmod_analyses()); }

long mo_cholmod_kept();  // glue_cholmod.cpp

// Of those, the analyses handed back with a copy of the pattern for a later
// factorisation (for tests).
// [[Rcpp::export(.mo_cholmod_kept)]]
double mo_cholmod_kept_r() { return static_cast<double>(mo_cholmod_kept()); }

// Sparse generalised A v = lambda B v (both dgCMatrix, B SPD).
// [[Rcpp::export(.mo_geigs_sparse)]]
Rcpp::List mo_geigs_sparse(const Eigen::Map<Eigen::SparseMatrix<double>> A,
                           const Eigen::Map<Eigen::SparseMatrix<double>> B, std::string which,
                           int m, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e As(A), Bs(B);
    return eigen_result_to_list(manifoldOOS::eigs_sym(manifoldOOS::sym_problem::sparse_generalized(As, Bs),
                                                manifoldOOS::parse_eig_which(which), m,
                                                mo_eig_options(opts)));
  }
  MO_CATCH
}

// Dense symmetric A through eigs_sym(): auto chooses LAPACK or the
// matrix-free Lanczos path (top only); `center` solves for H A H.
// [[Rcpp::export(.mo_eigs_dense_auto)]]
Rcpp::List mo_eigs_dense_auto(const arma::mat& A, std::string which, int m, bool center,
                              Rcpp::List opts) {
  MO_TRY {
    return eigen_result_to_list(manifoldOOS::eigs_sym(manifoldOOS::sym_problem::dense(A, center),
                                                manifoldOOS::parse_eig_which(which), m,
                                                mo_eig_options(opts)));
  }
  MO_CATCH
}

// Top m eigenpairs of a dense symmetric K (or H K H) by matrix-free Lanczos.
// [[Rcpp::export(.mo_eigs_dense_top_matfree)]]
Rcpp::List mo_eigs_dense_top_matfree(const arma::mat& K, int m, bool center, Rcpp::List opts) {
  MO_TRY {
    return eigen_result_to_list(manifoldOOS::eigs_dense_top_matfree(K, m, center, mo_eig_options(opts)));
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// R glue for the graph core (graph.h, paths.h). Indices are 1-based on the R
// side and 0-based in the core; the conversion happens here.




namespace {

using sparse_map = Eigen::Map<Eigen::SparseMatrix<double>>;

manifoldOOS::symmetrize_rule parse_sym(const std::string& s) {
  if (s == "or") return manifoldOOS::symmetrize_rule::max_or;
  if (s == "and") return manifoldOOS::symmetrize_rule::min_and;
  if (s == "mean") return manifoldOOS::symmetrize_rule::mean;
  if (s == "none") return manifoldOOS::symmetrize_rule::none;
  throw manifoldOOS::input_error("unknown symmetrize rule '" + s + "'.");
}

manifoldOOS::weight_rule parse_weights(const std::string& s) {
  if (s == "binary") return manifoldOOS::weight_rule::binary;
  if (s == "heat") return manifoldOOS::weight_rule::heat;
  if (s == "distance") return manifoldOOS::weight_rule::distance;
  throw manifoldOOS::input_error("unknown weights '" + s + "'.");
}

manifoldOOS::connect_rule parse_connect_rule(const std::string& rule) {
  if (rule == "mst") return manifoldOOS::connect_rule::mst;
  if (rule == "all_pairs") return manifoldOOS::connect_rule::all_pairs;
  throw manifoldOOS::input_error("unknown connect rule '" + rule + "'.");
}

// Radius lists as an R list: ptr (0-based offsets), idx (1-based), dist.
Rcpp::List radius_to_list(const manifoldOOS::radius_lists& r) {
  if (r.ptr.back() > static_cast<std::int64_t>(INT_MAX)) {
    throw manifoldOOS::input_error(
        "`eps` gives more than 2^31 - 1 neighbour pairs; choose a smaller radius.");
  }
  Rcpp::IntegerVector ptr(r.ptr.size());
  for (std::size_t i = 0; i < r.ptr.size(); ++i) ptr[i] = static_cast<int>(r.ptr[i]);
  const Rcpp::IntegerVector idx = mo_index1(r.idx);
  Rcpp::NumericVector dist(r.dist.begin(), r.dist.end());
  return Rcpp::List::create(Rcpp::Named("ptr") = ptr, Rcpp::Named("idx") = idx,
                            Rcpp::Named("dist") = dist);
}

// Added edges as an R list (1-based i < j, length).
Rcpp::List edges_to_list(const std::vector<manifoldOOS::added_edge>& e) {
  const mo_edge_columns c = mo_edges(e, &manifoldOOS::added_edge::length);
  return Rcpp::List::create(Rcpp::Named("i") = c.i, Rcpp::Named("j") = c.j,
                            Rcpp::Named("length") = c.weight);
}


}  // namespace

// kNN lists (n x k, 1-based idx) -> sparse weighted adjacency (dgCMatrix).
// [[Rcpp::export(.mo_knn_graph)]]
SEXP mo_knn_graph(const Rcpp::IntegerMatrix& idx,
                                         const Rcpp::NumericMatrix& dist, int n,
                                         std::string symmetrize, std::string weights,
                                         double sigma) {
  MO_TRY {
    if (idx.nrow() != n || dist.nrow() != n || idx.ncol() != dist.ncol()) {
      throw manifoldOOS::input_error("neighbour index and distance matrices must both be n x k.");
    }
    const std::vector<int> idx0 = mo_index0(idx);
    return Rcpp::wrap(manifoldOOS::knn_graph(idx0.data(), dist.begin(), n, idx.ncol(),
                                             parse_sym(symmetrize), parse_weights(weights), sigma));
  }
  MO_CATCH
}

// Radius lists in CSR form (ptr 0-based offsets of length n + 1, idx 1-based).
// [[Rcpp::export(.mo_eps_graph)]]
SEXP mo_eps_graph(const Rcpp::IntegerVector& ptr,
                                         const Rcpp::IntegerVector& idx,
                                         const Rcpp::NumericVector& dist, int n,
                                         std::string symmetrize, std::string weights,
                                         double sigma) {
  MO_TRY {
    if (ptr.size() != n + 1 || idx.size() != dist.size() || ptr[n] != idx.size()) {
      throw manifoldOOS::input_error("radius lists: inconsistent ptr / idx / dist lengths.");
    }
    const std::vector<int> idx0 = mo_index0(idx);
    return Rcpp::wrap(manifoldOOS::eps_graph(ptr.begin(), idx0.data(), dist.begin(), n,
                                             parse_sym(symmetrize), parse_weights(weights), sigma));
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_bandwidth_median_knn)]]
Rcpp::List mo_bandwidth_median_knn(const Rcpp::NumericMatrix& dist, double ref_max) {
  MO_TRY {
    const manifoldOOS::bandwidth_result b =
        manifoldOOS::bandwidth_median_knn(dist.begin(), dist.nrow(), dist.ncol(), ref_max);
    return Rcpp::List::create(Rcpp::Named("sigma") = b.sigma,
                              Rcpp::Named("floored") = b.floored);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_bandwidth_floor)]]
Rcpp::List mo_bandwidth_floor(double sigma, double ref_max) {
  MO_TRY {
    const manifoldOOS::bandwidth_result b = manifoldOOS::bandwidth_floor(sigma, ref_max);
    return Rcpp::List::create(Rcpp::Named("sigma") = b.sigma,
                              Rcpp::Named("floored") = b.floored);
  }
  MO_CATCH
}

// Mean / median / max of the pairwise distances between the rows of S.
// [[Rcpp::export(.mo_pairwise_summary)]]
Rcpp::List mo_pairwise_summary(const Rcpp::NumericMatrix& S, int n_threads) {
  MO_TRY {
    const manifoldOOS::pairwise_summary s =
        manifoldOOS::pairwise_distance_summary(S.begin(), S.nrow(), S.ncol(), n_threads);
    return Rcpp::List::create(Rcpp::Named("mean") = s.mean, Rcpp::Named("median") = s.median,
                              Rcpp::Named("max") = s.max);
  }
  MO_CATCH
}

// Connected components of the structure of W (1-based labels).
// [[Rcpp::export(.mo_components)]]
Rcpp::List mo_components(SEXP W) {
  MO_TRY {
    const sparse_map A = Rcpp::as<sparse_map>(W);
    const manifoldOOS::components_result c =
        manifoldOOS::connected_components(manifoldOOS::view_of(A));
    return Rcpp::List::create(Rcpp::Named("n_components") = c.n_components,
                              Rcpp::Named("component") = mo_index1(c.label),
                              Rcpp::Named("sizes") = Rcpp::IntegerVector(c.size.begin(), c.size.end()));
  }
  MO_CATCH
}

// Smallest number of neighbours (<= ncol(idx)) giving a connected graph; NA if none.
// [[Rcpp::export(.mo_smallest_connecting_k)]]
int mo_smallest_connecting_k(const Rcpp::IntegerMatrix& idx, bool mutual) {
  MO_TRY {
    const std::vector<int> idx0 = mo_index0(idx);
    const int k = manifoldOOS::smallest_connecting_k(idx0.data(), idx.nrow(), idx.ncol(), mutual);
    return k < 0 ? NA_INTEGER : k;
  }
  MO_CATCH
}

// Edges joining the components of points given by a symmetric distance
// matrix D (1-based i < j, length = D[i, j]).
// [[Rcpp::export(.mo_connect_components_distances)]]
Rcpp::List mo_connect_components_distances(const Rcpp::NumericMatrix& D,
                                           const Rcpp::IntegerVector& component,
                                           int n_components, std::string rule, int n_threads) {
  MO_TRY {
    if (D.nrow() != D.ncol()) throw manifoldOOS::input_error("the distance matrix must be square.");
    if (component.size() != D.nrow()) throw manifoldOOS::input_error("one component label per point needed.");
    const std::vector<int> lab = mo_index0(component);
    return edges_to_list(manifoldOOS::connect_components_distances(
        D.begin(), D.nrow(), lab, n_components, parse_connect_rule(rule), n_threads));
  }
  MO_CATCH
}

// Edges joining the components (1-based i < j, Euclidean length).
// [[Rcpp::export(.mo_connect_components)]]
Rcpp::List mo_connect_components(const Rcpp::NumericMatrix& X, const Rcpp::IntegerVector& component,
                                 int n_components, std::string rule, int n_threads) {
  MO_TRY {
    if (component.size() != X.nrow()) throw manifoldOOS::input_error("one component label per row of X needed.");
    const std::vector<int> lab = mo_index0(component);
    return edges_to_list(manifoldOOS::connect_components(
        X.begin(), X.nrow(), X.ncol(), lab, n_components, parse_connect_rule(rule), n_threads));
  }
  MO_CATCH
}

// W with the symmetric edges (i, j) (1-based) set to the given weights.
// Weights of edges of the given lengths (the graph's weight rule and bandwidth).
// [[Rcpp::export(.mo_edge_weights)]]
Rcpp::NumericVector mo_edge_weights(const Rcpp::NumericVector& length, std::string weights,
                                    double sigma) {
  MO_TRY {
    const manifoldOOS::weight_rule rule = parse_weights(weights);
    Rcpp::NumericVector out(length.size());
    for (R_xlen_t t = 0; t < length.size(); ++t)
      out[t] = manifoldOOS::edge_weight(length[t], rule, sigma);
    return out;
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_add_edges)]]
SEXP mo_add_edges(SEXP W, const Rcpp::IntegerVector& i,
                                         const Rcpp::IntegerVector& j,
                                         const Rcpp::NumericVector& weight) {
  MO_TRY {
    const sparse_map A = Rcpp::as<sparse_map>(W);
    if (i.size() != j.size() || i.size() != weight.size()) {
      throw manifoldOOS::input_error("added edges: i, j and weight must have equal lengths.");
    }
    std::vector<manifoldOOS::added_edge> e(i.size());
    for (R_xlen_t t = 0; t < i.size(); ++t) e[t] = manifoldOOS::added_edge{mo_index0(i[t]), mo_index0(j[t]), 0.0};
    std::vector<double> w(weight.begin(), weight.end());
    return Rcpp::wrap(manifoldOOS::add_edges(Eigen::SparseMatrix<double>(A), e, w));
  }
  MO_CATCH
}

// Graph Laplacian of W with the degree vector and the isolated vertices (1-based).
// [[Rcpp::export(.mo_laplacian)]]
Rcpp::List mo_laplacian(SEXP W, std::string type) {
  MO_TRY {
    const sparse_map A = Rcpp::as<sparse_map>(W);
    manifoldOOS::laplacian_type t;
    if (type == "unnormalized") {
      t = manifoldOOS::laplacian_type::unnormalized;
    } else if (type == "symmetric") {
      t = manifoldOOS::laplacian_type::symmetric;
    } else if (type == "random_walk") {
      t = manifoldOOS::laplacian_type::random_walk;
    } else {
      throw manifoldOOS::input_error("unknown Laplacian type '" + type + "'.");
    }
    manifoldOOS::laplacian_result r = manifoldOOS::graph_laplacian(manifoldOOS::view_of(A), t);
    return Rcpp::List::create(
        Rcpp::Named("L") = Rcpp::wrap(r.L),
        Rcpp::Named("degree") = Rcpp::NumericVector(r.degree.begin(), r.degree.end()),
        Rcpp::Named("isolated") = mo_index1(r.isolated));
  }
  MO_CATCH
}

// Geodesic distances from `sources` (1-based) over the out-edges given by the
// columns of G (pass W for a symmetric graph, t(W) for a directed one).
// [[Rcpp::export(.mo_dijkstra)]]
Rcpp::NumericMatrix mo_dijkstra(SEXP G, const Rcpp::IntegerVector& sources, int n_threads) {
  MO_TRY {
    const sparse_map A = Rcpp::as<sparse_map>(G);
    const manifoldOOS::adjacency_view v = mo_adjacency(A);
    const std::vector<int> src = mo_index0(sources);
    const int m = static_cast<int>(src.size());
    Rcpp::NumericMatrix out(m, v.n);
    if (m > 0) manifoldOOS::dijkstra_multi(v, src.data(), m, out.begin(), n_threads);
    return out;
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// Kernel matrix between the rows of A and B (B = A when `B` has no rows).
// [[Rcpp::export(.mo_kernel_cross)]]
arma::mat mo_kernel_cross(const arma::mat& A, const arma::mat& B, std::string type,
                          double sigma, double gamma, double coef0, double degree) {
  MO_TRY {
    const manifoldOOS::kernel_spec k = mo_kernel_spec(type, sigma, gamma, coef0, degree);
    if (B.n_rows == 0) return manifoldOOS::kernel_train(A, k);
    return manifoldOOS::kernel_cross(A, B, k);
  }
  MO_CATCH
}

// Squared Euclidean distances between the rows of A and B.
// [[Rcpp::export(.mo_sq_dist_cross)]]
arma::mat mo_sq_dist_cross(const arma::mat& A, const arma::mat& B) {
  MO_TRY { return manifoldOOS::sq_dist_cross(A, B); }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// R glue for exact nearest-neighbour search (core: src/knn.cpp).


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
    mo_index1_inplace(idx);
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
    const manifoldOOS::radius_lists r = manifoldOOS::radius_search_raw(
        X.begin(), n, p, Q, m, eps, parse_algorithm(algorithm), n_threads);
    return radius_to_list(r);
  }
  MO_CATCH
}

// kNN lists (1-based) from distances given by the user: Dq is n x m, column a
// holding query a's distances to the n training points (self: Dq is the
// training points' own n x n distance matrix, each point excluded).
// [[Rcpp::export(.mo_knn_distances)]]
Rcpp::List mo_knn_distances(const Rcpp::NumericMatrix& Dq, int k, bool self, int n_threads) {
  MO_TRY {
    const std::size_t n = Dq.nrow(), m = Dq.ncol();
    Rcpp::IntegerMatrix idx(static_cast<int>(m), k);
    Rcpp::NumericMatrix dist(static_cast<int>(m), k);
    manifoldOOS::knn_from_distances_raw(Dq.begin(), n, m, k, self, n_threads, idx.begin(),
                                        dist.begin());
    mo_index1_inplace(idx);
    return Rcpp::List::create(Rcpp::Named("idx") = idx, Rcpp::Named("dist") = dist);
  }
  MO_CATCH
}

// Radius lists (as .mo_radius returns them) from distances given by the user
// (Dq as in .mo_knn_distances).
// [[Rcpp::export(.mo_radius_distances)]]
Rcpp::List mo_radius_distances(const Rcpp::NumericMatrix& Dq, double eps, bool self) {
  MO_TRY {
    const manifoldOOS::radius_lists r =
        manifoldOOS::radius_from_distances_raw(Dq.begin(), Dq.nrow(), Dq.ncol(), eps, self);
    return radius_to_list(r);
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

// Testing hook: the path the last exact kNN search took.
// [[Rcpp::export(.mo_knn_last_path)]]
std::string mo_knn_last_path() { return manifoldOOS::knn_last_exact_path(); }

// ----------------------------------------------------------------------------
// idx is 1-based from R.
// [[Rcpp::export(.mo_reconstruction_weights)]]
arma::mat mo_reconstruction_weights(const arma::mat& X, const arma::mat& Q,
                                    const arma::imat& idx1, double reg,
                                    const arma::mat& snap_dist, int n_threads) {
  MO_TRY {
    arma::Mat<int> idx = mo_index0(idx1, X.n_rows);
    return manifoldOOS::reconstruction_weights(X, Q, idx, reg, snap_dist, n_threads);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_reconstruct_embedding)]]
arma::mat mo_reconstruct_embedding(const arma::mat& Y, const arma::imat& idx1, const arma::mat& W) {
  MO_TRY {
    arma::Mat<int> idx = mo_index0(idx1, Y.n_rows);
    return manifoldOOS::reconstruct_embedding(Y, idx, W);
  }
  MO_CATCH
}

// LELVM / normalised heat-kernel average (idx 1-based, dist m x k sorted).
// [[Rcpp::export(.mo_lvm_average)]]
Rcpp::List mo_lvm_average(const arma::mat& Y, const arma::imat& idx1, const arma::mat& dist,
                          double sigma) {
  MO_TRY {
    arma::Mat<int> idx = mo_index0(idx1, Y.n_rows);
    arma::uvec far;
    arma::mat out = manifoldOOS::lvm_average(Y, idx, dist, sigma, &far);
    return Rcpp::List::create(Rcpp::Named("y") = out,
                              Rcpp::Named("far") = Rcpp::LogicalVector(far.begin(), far.end()));
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// R glue for approximate nearest neighbours with HNSW (core:
// inst/include/manifoldOOS/blocks/knn_hnsw.h; hnswlib headers as shipped for
// RcppHNSW).


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
// locality = FALSE inserts the rows in their given order (for comparisons).
// [[Rcpp::export(.mo_hnsw_build)]]
SEXP mo_hnsw_build(const Rcpp::NumericMatrix& X, int M, int ef_construction, double seed,
                   int n_threads, bool locality = true) {
  MO_TRY {
    manifoldOOS::hnsw_options opt;
    opt.locality = locality;
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
    mo_index1_inplace(idx);
    return Rcpp::List::create(Rcpp::Named("idx") = idx, Rcpp::Named("dist") = dist);
  }
  MO_CATCH
}

// The bottom layer's lists of an HNSW index, in rows (1-based; testing hook).
// [[Rcpp::export(.mo_hnsw_links)]]
Rcpp::List mo_hnsw_links(SEXP index) {
  MO_TRY {
    const std::vector<std::vector<int>> l = index_pointer(index)->bottom_links();
    Rcpp::List out(l.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
      Rcpp::IntegerVector v(l[i].begin(), l[i].end());
      out[i] = v + 1;
    }
    return out;
  }
  MO_CATCH
}

// The locality order of the rows of X in which the HNSW index inserts them
// (1-based; testing hook).
// [[Rcpp::export(.mo_locality_order)]]
Rcpp::IntegerVector mo_locality_order(const Rcpp::NumericMatrix& X) {
  MO_TRY {
    const std::vector<std::uint32_t> perm = manifoldOOS::locality_order(
        X.begin(), static_cast<std::size_t>(X.nrow()), static_cast<std::size_t>(X.ncol()));
    Rcpp::IntegerVector out(perm.size());
    for (std::size_t t = 0; t < perm.size(); ++t) out[t] = static_cast<int>(perm[t]) + 1;
    return out;
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
