#' Assess a fitted embedding on training and held-out points
#'
#' Computes the package's quality measures for the training embedding of a
#' fit and, when `newdata` is given, for its out-of-sample predictions, and
#' returns them as one tidy data frame. Which measures appear depends on what
#' is supplied:
#'
#' | supplied | measures (`set = "training"` and/or `"held-out"`) |
#' |---|---|
#' | `X` (training) / `newdata` | `trustworthiness`, `continuity`, `rnx` (`R_NX(k)`) for each `k`; `rnx_auc` (with `k = K_max`); `residual_variance` (geodesic, `k[1]` neighbours) when `geodesic = TRUE` |
#' | `truth` / `truth_new` | `trustworthiness_truth`, `continuity_truth` (ranks in the ground truth against ranks in the embedding), `residual_variance_truth` ([residual_variance_coords()], Procrustes-aligned), `procrustes_d_truth` (MATLAB-style Procrustes `d`) |
#' | `truth` and `truth_new` | held-out `embedding_error_truth`: [oos_error()] `type = "embedding"` against the truth, aligned on the training points |
#' | `reference_new` | held-out `procrustes_error` ([oos_error()] `type = "procrustes"`) |
#' | `reference` and `reference_new` | held-out `embedding_error` and `goose_error` ([oos_error()], aligned on the training points) |
#' | `labels` (and `labels_new`) | `knn_accuracy`: leave-one-out 1-NN on the training embedding; 1-NN of the held-out points against the training embedding |
#'
#' Held-out neighbourhood measures are computed among the held-out points only
#' (`heldout = "test"`: ranks within `newdata` and within its predictions) or
#' on the union of training and held-out points (`heldout = "all"`, which
#' needs `X`). Neighbourhood sizes larger than the held-out set allows
#' (`k > m - 2`) are skipped with a warning.
#'
#' @param fit A `manifold_fit`.
#' @param X Training data of the fit (the fit does not store it); needed for
#'   the data-based measures on the training set and for `heldout = "all"`.
#' @param newdata Held-out data; its embedding is `predict(fit, newdata, ...)`.
#' @param truth,truth_new Ground-truth coordinates of the training and the
#'   held-out points (e.g. the generating coordinates of synthetic data).
#' @param reference,reference_new A reference embedding of the training and the
#'   held-out points, e.g. the rows of a batch embedding of all the data.
#' @param labels,labels_new Class labels of the training and held-out points.
#' @param k Neighbourhood sizes for trustworthiness, continuity and `R_NX`.
#' @param K_max Largest neighbourhood size of the `R_NX` curve whose area is
#'   reported (`NULL`: `min(n - 2, 1000)`).
#' @param heldout `"test"` or `"all"`, see Details.
#' @param geodesic Also compute the geodesic residual variance of the training
#'   embedding (costs one shortest-path search per point).
#' @param n_threads Number of threads (0 = all available).
#' @param ... Passed to [predict()][predict.manifold_fit()].
#' @return A data frame with columns `set` (`"training"` or `"held-out"`),
#'   `measure`, `k` (the neighbourhood size, `NA` where none applies) and
#'   `value`.
#' @seealso [trustworthiness()], [rnx()], [residual_variance()],
#'   [procrustes()], [oos_error()], [knn_accuracy()].
#' @export
#' @examples
#' set.seed(1)
#' t <- runif(300, 0, 1.5 * pi)
#' Z <- cbind(t, runif(300))                       # ground truth
#' X <- cbind(cos(t), sin(t), Z[, 2]) + rnorm(900, sd = 0.01)
#' fit <- pca(X[1:200, ], ndim = 2)
#' assess(fit, X = X[1:200, ], newdata = X[201:300, ], truth = Z[1:200, ],
#'        truth_new = Z[201:300, ], k = c(5, 10))
assess <- function(fit, X = NULL, newdata = NULL, truth = NULL, truth_new = NULL,
                   reference = NULL, reference_new = NULL, labels = NULL, labels_new = NULL,
                   k = 10, K_max = NULL, heldout = c("test", "all"), geodesic = FALSE,
                   n_threads = default_threads(), ...) {
  if (!inherits(fit, "manifold_fit")) {
    abort_input("fit", paste0("must be a `manifold_fit` (a fitted embedding).", masked_hint(fit)))
  }
  # with `newdata`, predict() checks the arguments in `...`
  if (is.null(newdata)) check_dots(..., fun = "assess()", context = "without `newdata` nothing is predicted")
  heldout <- check_choice(heldout, c("test", "all"), "heldout")
  geodesic <- check_flag(geodesic, "geodesic")
  n_threads <- check_threads(n_threads)
  Y <- unname(embedding(fit))
  n <- nrow(Y)
  k <- check_k_vector(k, n)
  if (!is.null(K_max)) K_max <- check_number(K_max, "K_max", lower = 1, upper = n - 2, integer = TRUE)
  if (!is.null(X)) {
    X <- as_data_matrix(X, "X")
    if (nrow(X) != n) {
      abort_input("X", sprintf("must be the training data of `fit` (%d rows); it has %d.", n, nrow(X)))
    }
  }
  check_rows <- function(M, rows, arg, what) {
    if (is.null(M)) return(NULL)
    M <- as_data_matrix(M, arg, min_rows = 1L)
    if (nrow(M) != rows) {
      abort_input(arg, sprintf("must have one row per %s (%d); it has %d.", what, rows, nrow(M)))
    }
    unname(M)
  }
  truth <- check_rows(truth, n, "truth", "training point")
  reference <- check_rows(reference, n, "reference", "training point")

  rows <- list()
  add <- function(set, measure, k, value) {
    rows[[length(rows) + 1L]] <<- data.frame(set = set, measure = measure, k = as.integer(k),
                                             value = as.numeric(value), stringsAsFactors = FALSE)
  }
  # neighbourhood measures of configuration Z (data) vs E (embedding)
  nbhd <- function(set, Z, E, suffix = "", with_rnx = TRUE, with_geo = FALSE) {
    m <- nrow(Z)
    kk <- k[k <= m - 2L]
    if (length(kk) < length(k)) {
      warn_mo(sprintf("%s set: neighbourhood sizes %s skipped (at most %d points minus 2).",
                      set, paste(k[k > m - 2L], collapse = ", "), m))
    }
    if (length(kk)) {
      tc <- core(.mo_nx_measures(Z, E, 0L, kk, TRUE, TRUE, FALSE, n_threads))
      add(set, paste0("trustworthiness", suffix), kk, tc$T)
      add(set, paste0("continuity", suffix), kk, tc$C)
    }
    if (with_rnx && m >= 3L) {
      Km <- if (is.null(K_max)) min(m - 2L, 1000L) else min(K_max, m - 2L)
      Km <- max(Km, if (length(kk)) max(kk) else 1L)
      q <- core(.mo_nx_measures(Z, E, Km, integer(0), FALSE, FALSE, FALSE, n_threads))$qnx
      K <- seq_len(Km)
      r <- ((m - 1) * q - K) / (m - 1 - K)
      if (length(kk)) add(set, paste0("rnx", suffix), kk, r[kk])
      add(set, paste0("rnx_auc", suffix), Km, sum(r / K) / sum(1 / K))
    }
    if (with_geo) {
      add(set, "residual_variance", k[1], residual_variance(Z, E, k = k[1], n_threads = n_threads))
    }
  }
  vs_truth <- function(set, Zt, E) {
    nbhd(set, Zt, E, suffix = "_truth", with_rnx = FALSE)
    add(set, "residual_variance_truth", NA, residual_variance_coords(E, Zt))
    add(set, "procrustes_d_truth", NA, procrustes(E, Zt)$matlab_d)
  }

  # ---- training set
  if (!is.null(X)) nbhd("training", unname(X), Y, with_geo = geodesic)
  if (!is.null(truth)) vs_truth("training", truth, Y)
  if (!is.null(labels)) add("training", "knn_accuracy", 1L, knn_accuracy(Y, labels, k = 1))

  # ---- held-out set
  if (!is.null(newdata)) {
    Yn <- unname(predict(fit, newdata, ...))
    Xn <- unname(check_newdata(newdata, fit$feature_names, fit$n_features))
    m <- nrow(Yn)
    truth_new <- check_rows(truth_new, m, "truth_new", "row of `newdata`")
    reference_new <- check_rows(reference_new, m, "reference_new", "row of `newdata`")
    if (heldout == "all") {
      if (is.null(X)) abort_input("X", "is needed for heldout = \"all\".")
      nbhd("held-out", rbind(unname(X), Xn), rbind(Y, Yn))
      if (!is.null(truth_new)) {
        if (is.null(truth)) abort_input("truth", "is needed with `truth_new` for heldout = \"all\".")
        vs_truth("held-out", rbind(truth, truth_new), rbind(Y, Yn))
      }
    } else {
      if (m >= 3L) {
        nbhd("held-out", Xn, Yn)
        if (!is.null(truth_new)) vs_truth("held-out", truth_new, Yn)
      } else {
        warn_mo("held-out set: fewer than 3 points, neighbourhood measures skipped.")
      }
    }
    if (!is.null(truth_new) && !is.null(truth)) {
      add("held-out", "embedding_error_truth", NA,
          oos_error(Yn, truth_new, Y, truth, type = "embedding"))
    }
    if (!is.null(reference_new)) {
      add("held-out", "procrustes_error", NA, oos_error(Yn, reference_new, type = "procrustes"))
      if (!is.null(reference)) {
        add("held-out", "embedding_error", NA,
            oos_error(Yn, reference_new, Y, reference, type = "embedding"))
        add("held-out", "goose_error", NA,
            oos_error(Yn, reference_new, Y, reference, type = "goose"))
      }
    }
    if (!is.null(labels_new)) {
      if (is.null(labels)) abort_input("labels", "is needed with `labels_new`.")
      add("held-out", "knn_accuracy", 1L,
          knn_accuracy(Y, labels, Yn, labels_new, k = 1))
    }
  }
  if (!length(rows)) {
    abort_input("X", "and every other input are NULL: nothing to assess (give `X`, `truth`, `labels` or `newdata`).")
  }
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}
