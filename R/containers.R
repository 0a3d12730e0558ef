# Single-cell containers in and out: SummarizedExperiment /
# SingleCellExperiment (Bioconductor) and Seurat objects (suggested packages).

#' Single-cell containers: SingleCellExperiment and Seurat objects
#'
#' Every fitting function, [predict()], [novelty_scores()],
#' [transfer_labels()] and [oos_map()] take a `SummarizedExperiment` or
#' `SingleCellExperiment` (Bioconductor) or a `Seurat` object in place of a
#' matrix. Features are in the rows of such objects and cells in the
#' columns; the package reads them as one row per cell, keeping sparse
#' assays sparse. By default it reads the `"logcounts"` assay of a
#' `SingleCellExperiment` (else its first assay) and the `"data"` layer of
#' the default assay of a Seurat object; [cell_input()] chooses another
#' assay, layer, or an existing reduction (`reducedDim()`, a Seurat
#' `DimReduc`) instead.
#'
#' **Features by name.** A fit records the feature names it was made on and
#' what it read (the assay, layer or reduction). `predict()` on a container
#' reads the same assay (or reduction) and matches the features by name:
#' it reorders them, and features missing from the query are an error of
#' class `manifoldOOS_input_error` that says how many are missing and names
#' the first few, or, with `predict(..., missing = "zero")`, are set to zero
#' with a warning that says how many. The same holds for a matrix with
#' column names.
#'
#' **Results back.** [add_embedding()] stores the coordinates in the
#' object: as `reducedDim(sce, name)` (row names: the cell names) or as a
#' Seurat `DimReduc` made by `SeuratObject::CreateDimReducObject()`.
#'
#' @name manifoldOOS-containers
#' @examples
#' if (requireNamespace("SingleCellExperiment", quietly = TRUE)) {
#'   set.seed(1)
#'   rate <- outer(seq(0.5, 5, length.out = 40), seq(0.2, 2, length.out = 300))
#'   counts <- matrix(rpois(40 * 300, rate), 40, 300,
#'                    dimnames = list(paste0("gene", 1:40), paste0("cell", 1:300)))
#'   sce <- SingleCellExperiment::SingleCellExperiment(list(logcounts = log1p(counts)))
#'   fit <- laplacian_eigenmaps(sce[, 1:250], ndim = 2, k = 10)
#'   fit
#'   query <- sce[sample(nrow(sce)), 251:300]   # genes in another order
#'   query <- add_embedding(query, fit, "LE")
#'   head(SingleCellExperiment::reducedDim(query, "LE"))
#' }
NULL

#' Choose what to read from a single-cell container
#'
#' @param object A `SummarizedExperiment` / `SingleCellExperiment` or a
#'   `Seurat` object.
#' @param assay The assay to read: for a `SingleCellExperiment` an assay name
#'   (default `"logcounts"` when present, else the first assay); for a Seurat
#'   object an assay name (default: its default assay).
#' @param layer Seurat only: the layer (slot) of the assay, default `"data"`.
#' @param reduction Read an existing reduction instead of an assay: a
#'   `reducedDim()` name of a `SingleCellExperiment` or a reduction name of a
#'   Seurat object (e.g. `"PCA"`, `"pca"`).
#' @return An object of class `manifold_cell_input`, accepted wherever the
#'   package takes data: a list with the cells-by-features matrix `x` and
#'   `source` (what was read).
#' @seealso [manifoldOOS-containers], [add_embedding()].
#' @export
#' @examples
#' if (requireNamespace("SingleCellExperiment", quietly = TRUE)) {
#'   set.seed(1)
#'   m <- matrix(rpois(2000, 2), 20, 100, dimnames = list(paste0("g", 1:20), paste0("c", 1:100)))
#'   sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m, logcounts = log1p(m)))
#'   ci <- cell_input(sce, assay = "counts")
#'   dim(ci$x)   # cells in rows
#'   fit <- pca(ci, ndim = 2)
#'   head(predict(fit, sce))  # reads the counts again, as the fit did
#' }
cell_input <- function(object, assay = NULL, layer = NULL, reduction = NULL) {
  src <- list(type = container_type(object, "object"), assay = assay, layer = layer,
              reduction = reduction)
  if (!is.null(reduction) && (!is.null(assay) || !is.null(layer))) {
    abort_input("reduction", "reads an existing reduction: give it without `assay` and `layer`.")
  }
  for (a in c("assay", "layer", "reduction")) {
    v <- src[[a]]
    if (!is.null(v) && !(is.character(v) && length(v) == 1L && !is.na(v) && nzchar(v))) {
      abort_input(a, "must be a name (a single string).")
    }
  }
  if (src$type == "sce" && !is.null(layer)) {
    abort_input("layer", "applies to Seurat objects; a SingleCellExperiment has assays (`assay =`).")
  }
  read_container(object, src)
}

is_container <- function(x) {
  inherits(x, c("SummarizedExperiment", "Seurat", "manifold_cell_input"))
}

container_type <- function(x, arg) {
  if (inherits(x, "SummarizedExperiment")) return("sce")
  if (inherits(x, "Seurat")) return("seurat")
  abort_input(arg, sprintf("must be a SummarizedExperiment / SingleCellExperiment or a Seurat object, not '%s'.",
                           class(x)[1L]))
}

# Reads a container as described by `src` (NULL entries: the defaults):
# returns a manifold_cell_input with the cells x features matrix and the
# source with its defaults filled in.
read_container <- function(object, src) {
  if (src$type == "sce") {
    require_suggested("SummarizedExperiment", "a SingleCellExperiment")
    if (!is.null(src$reduction)) {
      require_suggested("SingleCellExperiment", "reducedDim()")
      have <- SingleCellExperiment::reducedDimNames(object)
      if (!src$reduction %in% have) {
        abort_input("reduction", sprintf("\"%s\" is not a reducedDim of the object (it has %s).", src$reduction,
                                         if (length(have)) show_names(have) else "none"))
      }
      x <- as.matrix(SingleCellExperiment::reducedDim(object, src$reduction))
      rownames(x) <- colnames(object)
    } else {
      have <- SummarizedExperiment::assayNames(object)
      if (!length(have)) abort_input("object", "has no assay.")
      if (is.null(src$assay)) src$assay <- if ("logcounts" %in% have) "logcounts" else have[1L]
      if (!src$assay %in% have) {
        abort_input("assay", sprintf("\"%s\" is not an assay of the object (it has %s).", src$assay,
                                     show_names(have)))
      }
      x <- t_cells(SummarizedExperiment::assay(object, src$assay, withDimnames = TRUE))
    }
  } else {
    require_suggested("SeuratObject", "a Seurat object")
    if (!is.null(src$reduction)) {
      have <- SeuratObject::Reductions(object)
      if (!src$reduction %in% have) {
        abort_input("reduction", sprintf("\"%s\" is not a reduction of the object (it has %s).", src$reduction,
                                         if (length(have)) show_names(have) else "none"))
      }
      x <- as.matrix(SeuratObject::Embeddings(object, reduction = src$reduction))
    } else {
      have <- SeuratObject::Assays(object)
      if (is.null(src$assay)) src$assay <- SeuratObject::DefaultAssay(object)
      if (!src$assay %in% have) {
        abort_input("assay", sprintf("\"%s\" is not an assay of the object (it has %s).", src$assay,
                                     show_names(have)))
      }
      if (is.null(src$layer)) src$layer <- "data"
      x <- t_cells(seurat_layer(object, src$assay, src$layer))
    }
  }
  structure(list(x = x, source = src), class = "manifold_cell_input")
}

# A Seurat assay's layer (slot in SeuratObject 4, layer in 5), features x cells.
seurat_layer <- function(object, assay, layer) {
  a <- object[[assay]]
  m <- tryCatch(
    if ("layer" %in% names(formals(SeuratObject::GetAssayData))) {
      SeuratObject::GetAssayData(a, layer = layer)
    } else {
      SeuratObject::GetAssayData(a, slot = layer)
    },
    error = function(e) abort_input("layer", sprintf("\"%s\" cannot be read from assay \"%s\": %s", layer, assay,
                                                     conditionMessage(e))))
  if (!length(m) || !nrow(m)) {
    abort_input("layer", sprintf("\"%s\" of assay \"%s\" is empty.", layer, assay))
  }
  m
}

# Features x cells (dense, sparse or delayed) -> cells x features, sparse
# kept sparse.
t_cells <- function(m) {
  if (inherits(m, "DelayedArray")) {
    m <- if (requireNamespace("DelayedArray", quietly = TRUE) && DelayedArray::is_sparse(m)) {
      methods::as(m, "dgCMatrix")
    } else {
      as.matrix(m)
    }
  }
  if (inherits(m, "Matrix")) return(Matrix::t(methods::as(m, "CsparseMatrix")))
  t(as.matrix(m))
}

# The data of a container for a fit (the default source) or for a fitted
# model's new data (the fit's recorded source): a manifold_cell_input.
as_cell_input <- function(x, source = NULL, arg = "X") {
  if (inherits(x, "manifold_cell_input")) return(x)
  type <- container_type(x, arg)
  src <- if (!is.null(source) && identical(source$type, type)) source else list(type = type)
  read_container(x, src)
}

format_source <- function(src) {
  what <- if (identical(src$type, "sce")) "a SingleCellExperiment" else "a Seurat object"
  if (!is.null(src$reduction)) return(sprintf("reduction \"%s\" of %s", src$reduction, what))
  sprintf("assay \"%s\"%s of %s", src$assay,
          if (!is.null(src$layer)) sprintf(", layer \"%s\"", src$layer) else "", what)
}

require_suggested <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    stop(structure(class = c("manifoldOOS_input_error", "manifoldOOS_error", "error", "condition"),
                   list(message = sprintf("reading %s needs the package '%s'; install it first.", what, pkg),
                        call = NULL, arg = "X")))
  }
  invisible(TRUE)
}

#' Store a fit's coordinates in a single-cell container
#'
#' Adds the embedding of the cells of `object` to it: for the training cells
#' of the fit (recognised by their names) the training embedding, for other
#' cells the coordinates `predict()` places them at.
#'
#' @param object A `SingleCellExperiment` or a `Seurat` object.
#' @param fit A `manifold_fit`.
#' @param name Name of the reduction (default: the fit's method, e.g.
#'   `"Isomap"`).
#' @param training `NULL` (default: decided by the cell names: `TRUE` when
#'   the object's cells are the fit's training cells, in order), `TRUE` (store
#'   the training embedding) or `FALSE` (place the cells with `predict()`).
#' @param ... Arguments of [predict()] (`method`, `missing`, `chunk_size`,
#'   ...).
#' @return `object` with the coordinates added: `reducedDim(object, name)`
#'   for a `SingleCellExperiment`, `object[[name]]` (a `DimReduc` whose key
#'   is `name` without punctuation, followed by `_`) for a Seurat object.
#' @seealso [manifoldOOS-containers].
#' @export
#' @examples
#' if (requireNamespace("SingleCellExperiment", quietly = TRUE)) {
#'   set.seed(2)
#'   m <- matrix(rpois(30 * 200, 3), 30, 200, dimnames = list(paste0("g", 1:30), paste0("c", 1:200)))
#'   sce <- SingleCellExperiment::SingleCellExperiment(list(logcounts = log1p(m)))
#'   fit <- isomap(sce[, 1:150], ndim = 2, k = 10)
#'   ref <- add_embedding(sce[, 1:150], fit)           # the training embedding
#'   query <- add_embedding(sce[, 151:200], fit)       # placed by predict()
#'   SingleCellExperiment::reducedDimNames(query)
#' }
add_embedding <- function(object, fit, name = NULL, training = NULL, ...) {
  type <- container_type(object, "object")
  if (!inherits(fit, "manifold_fit")) abort_input("fit", "must be a fitted model (a manifold_fit).")
  if (is.null(name)) name <- gsub("[^A-Za-z0-9_.]", "", fit$method)
  if (!(is.character(name) && length(name) == 1L && !is.na(name) && nzchar(name))) {
    abort_input("name", "must be a name (a single string).")
  }
  cells <- colnames(object)
  if (is.null(training)) {
    training <- !is.null(cells) && identical(cells, rownames(fit$embedding))
  } else {
    training <- check_flag(training, "training")
  }
  if (training) {
    if (length(cells) != fit$n) {
      abort_input("training", sprintf("= TRUE needs the %d training cells; the object has %d.", fit$n, length(cells)))
    }
    check_dots(..., fun = "add_embedding()", context = "the training embedding is stored as it is")
    y <- fit$embedding
  } else {
    y <- predict(fit, object, ...)
  }
  y <- unname(as.matrix(y))
  attributes(y) <- list(dim = dim(y))
  rownames(y) <- cells
  if (type == "sce") {
    require_suggested("SingleCellExperiment", "reducedDim()")
    colnames(y) <- paste0(name, seq_len(ncol(y)))
    SingleCellExperiment::reducedDim(object, name) <- y
  } else {
    require_suggested("SeuratObject", "a Seurat object")
    key <- paste0(gsub("[^A-Za-z0-9]", "", name), "_")
    colnames(y) <- paste0(key, seq_len(ncol(y)))
    object[[name]] <- SeuratObject::CreateDimReducObject(embeddings = y, key = key,
                                                         assay = SeuratObject::DefaultAssay(object))
  }
  object
}

# An embedding made elsewhere, for oos_map(): a matrix, Rtsne's list (`Y`),
# uwot's model (`embedding`), a Seurat DimReduc, or the name of a reduction
# of the container X.
resolve_embedding <- function(Y, X) {
  if (is.character(Y) && length(Y) == 1L && is_container(X) && !inherits(X, "manifold_cell_input")) {
    return(cell_input(X, reduction = Y)$x)
  }
  if (inherits(Y, "DimReduc")) {
    require_suggested("SeuratObject", "a DimReduc")
    return(SeuratObject::Embeddings(Y))
  }
  if (is.list(Y) && !is.data.frame(Y)) {
    if (is.matrix(Y$Y) && !is.null(Y$theta)) return(Y$Y)            # Rtsne
    if (is.matrix(Y$embedding)) return(Y$embedding)                  # uwot's returned model
  }
  Y
}
