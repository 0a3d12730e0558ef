#' manifoldOOS: manifold learning with out-of-sample extension
#'
#' Fit a nonlinear embedding on training data, then map new observations onto
#' it with [predict()][manifold_fit]. See `vignette("manifoldOOS")` for an
#' overview.
#'
#' @section Naming conventions:
#' Exported functions, arguments and list fields use American spelling
#' (`neighbor`, `center`, `normalize`, `regularizer`) in `snake_case`; help
#' text keeps British prose. A renamed export keeps its former name as an
#' alias that works and warns with class `manifoldOOS_deprecated`:
#' `neighbour_graph()` is now [neighbor_graph()].
#'
#' @section Options:
#' * `manifoldOOS.threads`: default number of threads (0 = all available; see
#'   [manifoldOOS-threads]).
#' * `manifoldOOS.fork_threads`: most threads of the compiled code in a process
#'   created by `fork()` (1; see [manifoldOOS-threads]).
#' * `manifoldOOS.verbose`: default of the `verbose` argument of the fits,
#'   [oos_map()] and [predict()][manifold_fit] (`FALSE`; see
#'   [manifoldOOS-progress]).
#' * `manifoldOOS.data`: folder holding the image data sets read by
#'   [load_image_data()] (the environment variable `MANIFOLDOOS_DATA` is
#'   used when the option is unset).
#' * `manifoldOOS.dense_max_n`: largest `n` for which dense eigen-solvers
#'   are used by default (2000).
#' * `manifoldOOS.dense_top_max_n`: largest `n` for which the leading
#'   eigenpairs of a dense \eqn{n \times n} matrix (classical MDS, Isomap,
#'   kernel PCA) are computed by a full LAPACK decomposition by default
#'   (500; the smaller of the two options applies); above it Lanczos
#'   iterations, which are much faster for a few eigenpairs.
#' * `manifoldOOS.knn_method`: default neighbour search of [knn()], of the
#'   `knn_method` argument of the fits and of [oos_map()] (`"auto"`).
#' * `manifoldOOS.hnsw_args`: default `hnsw_args` of [knn()] (`list()`).
#' * `manifoldOOS.hnsw_cache`: keep the most recent HNSW index in the session
#'   (`TRUE`).
#' * `manifoldOOS.worker_threads`: threads of the compiled code on the
#'   workers of `predict(parallel = TRUE)` (1; see [manifoldOOS-chunked]).
#' * `manifoldOOS.dense_sparse_max_n`: the same for the bottom eigenpairs of
#'   the sparse matrices of Laplacian eigenmaps, LLE (and its variants) and
#'   LTSA (500; the smaller of it and `manifoldOOS.dense_max_n` applies).
#' * `manifoldOOS.sparse_cholesky`: factorisation of the shifted sparse
#'   matrix in the shift-invert eigen-solves of Laplacian eigenmaps, LLE (and
#'   its variants), LTSA and the other sparse bottom-eigenpair problems:
#'   `"cholmod"` (default; CHOLMOD's fill-reducing ordering and supernodal
#'   analysis from the Matrix package, the numeric factorisation and the
#'   solves by the package's own supernodal code with Eigen's dense kernels,
#'   independent subtrees on `manifoldOOS.threads` threads; the result does
#'   not depend on the number of threads), `"cholmod_blas"` (CHOLMOD's own
#'   numeric factorisation and solves with the BLAS R uses, the previous
#'   default) or `"eigen"` (Eigen's simplicial LDL', the first path). The
#'   eigenpairs of the three agree to the solver's tolerance, not bit for bit.
#' * `manifoldOOS.memory_limit`: bytes of memory a fit may plan to use
#'   (default: the memory the system reports available). Fits whose dense
#'   matrices would exceed it ([isomap()], [lgrm()]) stop before allocating
#'   them with an error of class `manifoldOOS_memory_error` that names the
#'   argument avoiding it (`landmarks`).
#'
#' @keywords internal
#' @useDynLib manifoldOOS, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats predict
"_PACKAGE"

# the tidy-evaluation pronoun used inside ggplot2::aes() in autoplot()
utils::globalVariables(".data")
