// Glue for piecewise-linear manifold learning (inst/include/manifoldOOS/plml.h).
#include "glue.h"
#include "glue_helpers.h"
#include <manifoldOOS/methods/plml.h>

#include <string>
#include <vector>

namespace {

Rcpp::DataFrame edges_df(const std::vector<manifoldOOS::mst_edge>& e) {
  const mo_edge_columns c = mo_edges(e, &manifoldOOS::mst_edge::w);
  return Rcpp::DataFrame::create(Rcpp::Named("from") = c.i, Rcpp::Named("to") = c.j,
                                 Rcpp::Named("weight") = c.weight);
}

}  // namespace

// opts: a named list built by R/plml.R (all fields present).
// [[Rcpp::export(.mo_plml_fit)]]
Rcpp::List mo_plml_fit(const arma::mat& X, Rcpp::List opts) {
  MO_TRY {
    manifoldOOS::plml_options o;
    o.q = Rcpp::as<int>(opts["q"]);
    o.k = Rcpp::as<int>(opts["k"]);
    o.h = Rcpp::as<int>(opts["h"]);
    const std::string cl = Rcpp::as<std::string>(opts["cluster"]);
    o.cluster = cl == "kmeans_merge" ? manifoldOOS::plml_cluster::kmeans_merge
                : cl == "given"          ? manifoldOOS::plml_cluster::given
                                         : manifoldOOS::plml_cluster::constrained;
    if (cl == "given") {
      o.labels = mo_index0(Rcpp::IntegerVector(opts["labels"]));  // 1-based in R
    }
    const std::string top = Rcpp::as<std::string>(opts["topology"]);
    o.topology = top == "centroid_mst" ? manifoldOOS::plml_topology::centroid_mst
                                       : manifoldOOS::plml_topology::point_mst;
    const std::string var = Rcpp::as<std::string>(opts["variant"]);
    o.variant = var == "ihm" ? manifoldOOS::plml_variant::ihm : manifoldOOS::plml_variant::pp;
    const std::string ba = Rcpp::as<std::string>(opts["backalign"]);
    o.backalign = ba == "none" ? manifoldOOS::plml_backalign::none
                  : ba == "similarity" ? manifoldOOS::plml_backalign::similarity
                                       : manifoldOOS::plml_backalign::rigid;
    o.root = mo_index0(Rcpp::as<int>(opts["root"]));  // 0 (R: NULL) -> -1
    o.literal_path = Rcpp::as<bool>(opts["literal_path"]);
    o.pivot_origin = Rcpp::as<bool>(opts["pivot_origin"]);
    o.own_axes = Rcpp::as<bool>(opts["own_axes"]);
    o.mst_knn = Rcpp::as<int>(opts["mst_knn"]);
    o.n_start = Rcpp::as<int>(opts["n_start"]);
    o.max_iter = Rcpp::as<int>(opts["max_iter"]);
    o.lloyd_iter = Rcpp::as<int>(opts["lloyd_iter"]);
    o.random_init = Rcpp::as<std::string>(opts["init"]) == "random";
    o.n_candidates = Rcpp::as<int>(opts["n_candidates"]);
    o.seed = static_cast<unsigned int>(Rcpp::as<double>(opts["seed"]));
    o.n_threads = Rcpp::as<int>(opts["n_threads"]);
    o.contiguous = Rcpp::as<bool>(opts["contiguous"]);
    // the MST's neighbour graph when R searched it (knn_method = "hnsw")
    manifoldOOS::knn_result mst_graph;
    if (opts.containsElementNamed("mst_idx")) {
      mst_graph.idx = mo_index0(Rcpp::as<arma::imat>(opts["mst_idx"]), X.n_rows);
      mst_graph.dist = Rcpp::as<arma::mat>(opts["mst_dist"]);
      o.mst_graph = &mst_graph;
    }
    manifoldOOS::plml_result r = manifoldOOS::plml_fit(X, o);
    const Rcpp::IntegerVector walk = mo_index1(r.walk);
    Rcpp::NumericVector bases(r.bases.begin(), r.bases.end());
    bases.attr("dim") = Rcpp::IntegerVector::create(r.bases.n_rows, r.bases.n_cols, r.bases.n_slices);
    Rcpp::NumericVector maps(r.maps.begin(), r.maps.end());
    maps.attr("dim") = Rcpp::IntegerVector::create(r.maps.n_rows, r.maps.n_cols, r.maps.n_slices);
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.Y, Rcpp::Named("label") = mo_index1(r.label),
        Rcpp::Named("n_clusters") = r.n_clusters, Rcpp::Named("centres") = r.centres,
        Rcpp::Named("bases") = bases, Rcpp::Named("normals") = r.normals,
        Rcpp::Named("model_tree") = edges_df(r.model_tree), Rcpp::Named("walk") = walk,
        Rcpp::Named("root") = mo_index1(r.root), Rcpp::Named("maps") = maps,
        Rcpp::Named("n_rank_deficient") = static_cast<double>(r.n_rank_deficient),
        Rcpp::Named("objective") = r.objective, Rcpp::Named("kmeans_iter") = r.kmeans_iter,
        Rcpp::Named("kmeans_converged") = r.kmeans_converged,
        Rcpp::Named("kmeans_trace") = r.kmeans_trace, Rcpp::Named("n_forward") = r.n_forward, Rcpp::Named("n_backward") = r.n_backward,
        Rcpp::Named("n_moved") = r.n_moved);
  }
  MO_CATCH
}

// Per-model map; model1: 1-based model of every new row.
// [[Rcpp::export(.mo_plml_model_map)]]
arma::mat mo_plml_model_map(const arma::mat& Xnew, const Rcpp::IntegerVector& model1,
                            const arma::mat& centres, const arma::cube& bases, const arma::cube& maps) {
  MO_TRY {
    const std::vector<int> model = mo_index0(model1);
    return manifoldOOS::plml_model_map(Xnew, model, centres, bases, maps);
  }
  MO_CATCH
}

// Constrained assignment for fixed centres (tests); price, prefer: warm-start
// potentials and labels (NULL: cold start). Attributes "stats" (work counters) and
// "price" (the optimal potentials).
// [[Rcpp::export(.mo_constrained_assignment)]]
Rcpp::IntegerVector mo_constrained_assignment(const arma::mat& X, const arma::mat& centres, int h,
                                              int n_candidates,
                                              Rcpp::Nullable<Rcpp::NumericVector> price = R_NilValue,
                                              Rcpp::Nullable<Rcpp::IntegerVector> prefer = R_NilValue) {
  MO_TRY {
    manifoldOOS::ssp_stats st;
    std::vector<double> pr;
    if (price.isNotNull()) pr = Rcpp::as<std::vector<double>>(price.get());
    std::vector<int> pref;
    if (prefer.isNotNull()) {
      pref = mo_index0(Rcpp::IntegerVector(prefer.get()));
    }
    Rcpp::IntegerVector lab = mo_index1(
        manifoldOOS::constrained_assignment(X, centres, h, n_candidates, 1, &st, &pr, &pref));
    lab.attr("stats") = Rcpp::NumericVector::create(
        Rcpp::Named("phases") = st.phases,
        Rcpp::Named("augment") = st.augment, Rcpp::Named("settled") = st.settled,
        Rcpp::Named("relaxed") = st.relaxed, Rcpp::Named("rebuilt") = st.rebuilt,
        Rcpp::Named("path_arcs") = st.path_arcs, Rcpp::Named("candidates") = st.candidates,
        Rcpp::Named("solves") = st.solves);
    lab.attr("served") = Rcpp::NumericVector(st.served.begin(), st.served.end());
    lab.attr("reached") = Rcpp::NumericVector(st.reached.begin(), st.reached.end());
    lab.attr("price") = Rcpp::NumericVector(pr.begin(), pr.end());
    return lab;
  }
  MO_CATCH
}

// Euclidean MST (tests, plotting): exact (mst_knn = 0) or via a kNN graph.
// [[Rcpp::export(.mo_euclidean_mst)]]
Rcpp::DataFrame mo_euclidean_mst(const arma::mat& X, int mst_knn, int n_threads) {
  MO_TRY { return edges_df(manifoldOOS::euclidean_mst(X, mst_knn, n_threads)); }
  MO_CATCH
}
