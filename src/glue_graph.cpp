// R glue for the graph core (graph.h, paths.h). Indices are 1-based on the R
// side and 0-based in the core; the conversion happens here.
#define MO_GLUE_EIGEN
#include "glue.h"

#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/paths.h>

#include <string>
#include <vector>

#include "glue_helpers.h"

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

std::vector<int> to_zero_based(const Rcpp::IntegerVector& x) {
  std::vector<int> out(x.size());
  for (R_xlen_t t = 0; t < x.size(); ++t) {
    if (x[t] == NA_INTEGER) throw manifoldOOS::input_error("indices must not be NA.");
    out[t] = x[t] - 1;
  }
  return out;
}

Rcpp::IntegerVector to_one_based(const std::vector<int>& x) {
  Rcpp::IntegerVector out(x.size());
  for (std::size_t t = 0; t < x.size(); ++t) out[t] = x[t] + 1;
  return out;
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
    const std::vector<int> idx0 = to_zero_based(idx);
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
    const std::vector<int> idx0 = to_zero_based(idx);
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
                              Rcpp::Named("component") = to_one_based(c.label),
                              Rcpp::Named("sizes") = Rcpp::IntegerVector(c.size.begin(), c.size.end()));
  }
  MO_CATCH
}

// Smallest number of neighbours (<= ncol(idx)) giving a connected graph; NA if none.
// [[Rcpp::export(.mo_smallest_connecting_k)]]
int mo_smallest_connecting_k(const Rcpp::IntegerMatrix& idx, bool mutual) {
  MO_TRY {
    const std::vector<int> idx0 = to_zero_based(idx);
    const int k = manifoldOOS::smallest_connecting_k(idx0.data(), idx.nrow(), idx.ncol(), mutual);
    return k < 0 ? NA_INTEGER : k;
  }
  MO_CATCH
}

// Edges joining the components (1-based i < j, Euclidean length).
// [[Rcpp::export(.mo_connect_components)]]
Rcpp::List mo_connect_components(const Rcpp::NumericMatrix& X, const Rcpp::IntegerVector& component,
                                 int n_components, std::string rule, int n_threads) {
  MO_TRY {
    if (component.size() != X.nrow()) throw manifoldOOS::input_error("one component label per row of X needed.");
    manifoldOOS::connect_rule r;
    if (rule == "mst") {
      r = manifoldOOS::connect_rule::mst;
    } else if (rule == "all_pairs") {
      r = manifoldOOS::connect_rule::all_pairs;
    } else {
      throw manifoldOOS::input_error("unknown connect rule '" + rule + "'.");
    }
    const std::vector<int> lab = to_zero_based(component);
    const std::vector<manifoldOOS::added_edge> e = manifoldOOS::connect_components(
        X.begin(), X.nrow(), X.ncol(), lab, n_components, r, n_threads);
    Rcpp::IntegerVector i(e.size()), j(e.size());
    Rcpp::NumericVector len(e.size());
    for (std::size_t t = 0; t < e.size(); ++t) {
      i[t] = e[t].i + 1;
      j[t] = e[t].j + 1;
      len[t] = e[t].length;
    }
    return Rcpp::List::create(Rcpp::Named("i") = i, Rcpp::Named("j") = j,
                              Rcpp::Named("length") = len);
  }
  MO_CATCH
}

// W with the symmetric edges (i, j) (1-based) set to the given weights.
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
    for (R_xlen_t t = 0; t < i.size(); ++t) e[t] = manifoldOOS::added_edge{i[t] - 1, j[t] - 1, 0.0};
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
        Rcpp::Named("isolated") = to_one_based(r.isolated));
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
    const std::vector<int> src = to_zero_based(sources);
    const int m = static_cast<int>(src.size());
    Rcpp::NumericMatrix out(m, v.n);
    if (m > 0) manifoldOOS::dijkstra_multi(v, src.data(), m, out.begin(), n_threads);
    return out;
  }
  MO_CATCH
}
