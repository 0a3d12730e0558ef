# Reference mapping on real single-cell data: PBMC3tech (reference: the 3'
# v1 and v2 cells, query: the 5' cells), label accuracy, per-class recall,
# time, and the novelty of a cell type left out of the reference, against
# Seurat's FindTransferAnchors + MapQuery in the same run.
#
#   Rscript bench/run.R reference-mapping
#
# Environment: MANIFOLDOOS_DATA (the folder holding PBMC3tech; default
# ../shared/data next to the source tree). Peers: Seurat (Debian
# r-cran-seurat), skipped when absent.
data_dir <- Sys.getenv("MANIFOLDOOS_DATA", "")
if (!nzchar(data_dir)) data_dir <- file.path(dirname(bench_dir), "..", "shared", "data")
pbmc_dir <- file.path(data_dir, "PBMC3tech")
if (!dir.exists(pbmc_dir) || !have("SingleCellExperiment")) {
  cat("PBMC3tech or SingleCellExperiment not available: skipped\n")
} else {
  source(file.path(dirname(bench_dir), "inst", "experiments", "pbmc3tech-data.R"), local = TRUE)
  sce <- read_pbmc3tech(pbmc_dir)
  is_q <- sce$donor == "5p"
  ref <- sce[, !is_q]
  qry <- sce[, is_q]
  truth <- qry$cell_type
  cat(sprintf("  reference %d cells (3pv1 + 3pv2), query %d cells (5p), %d genes\n",
              ncol(ref), ncol(qry), nrow(sce)))
  recall <- function(pred) {
    tab <- tapply(pred == truth, truth, mean)
    tab[is.na(tab)] <- 0
    round(tab, 3)
  }
  auroc <- function(score, positive) {
    r <- rank(score)
    n1 <- sum(positive)
    n0 <- sum(!positive)
    (sum(r[positive]) - n1 * (n1 + 1) / 2) / (n1 * n0)
  }
  rows <- list()
  recalls <- list()
  # ours: the reference fitted with 30 principal components first, the query
  # placed and labelled with the defaults of transfer_labels()
  fits <- list(
    laplacian_eigenmaps = function(x) laplacian_eigenmaps(x, ndim = 2, k = 15, pca = 30),
    diffusion_map = function(x) diffusion_map(x, ndim = 2, pca = 30),
    isomap = function(x) isomap(x, ndim = 2, k = 15, pca = 30))
  for (nm in names(fits)) {
    t_fit <- bench_time(fit <- fits[[nm]](ref), reps = 3L)
    t_map <- bench_time(tl <- transfer_labels(fit, qry, ref$cell_type), reps = 3L)
    te <- transfer_labels(fit, qry, ref$cell_type, space = "embedding")
    rows[[nm]] <- data.frame(case = "map 5p onto 3p", impl = paste("manifoldOOS", nm),
                             seconds = t_fit + t_map,
                             # unassigned cells count as wrong
                             accuracy = mean(!is.na(tl$label) & tl$label == truth),
                             accuracy_2d_embedding = mean(!is.na(te$label) & te$label == truth),
                             unassigned = mean(is.na(tl$label)))
    recalls[[nm]] <- recall(tl$label_predicted)
  }
  if (have("Seurat")) {
    suppressPackageStartupMessages(library(Seurat))
    seurat_run <- function(ref, qry) {
      so_r <- suppressWarnings(CreateSeuratObject(SingleCellExperiment::counts(ref), meta.data = as.data.frame(SummarizedExperiment::colData(ref))))
      so_r <- SetAssayData(so_r, slot = "data", new.data = SingleCellExperiment::logcounts(ref))
      VariableFeatures(so_r) <- rownames(so_r)
      so_r <- ScaleData(so_r, verbose = FALSE)
      so_r <- RunPCA(so_r, npcs = 30, verbose = FALSE)
      so_r <- RunUMAP(so_r, dims = 1:30, return.model = TRUE, verbose = FALSE)
      so_q <- suppressWarnings(CreateSeuratObject(SingleCellExperiment::counts(qry)))
      so_q <- SetAssayData(so_q, slot = "data", new.data = SingleCellExperiment::logcounts(qry))
      anchors <- FindTransferAnchors(reference = so_r, query = so_q, dims = 1:30,
                                     reference.reduction = "pca", verbose = FALSE)
      MapQuery(anchorset = anchors, reference = so_r, query = so_q,
               refdata = list(celltype = "cell_type"), reference.reduction = "pca",
               reduction.model = "umap", verbose = FALSE)
    }
    t_s <- bench_time(mq <- suppressWarnings(seurat_run(ref, qry)), reps = 3L)
    rows$seurat <- data.frame(case = "map 5p onto 3p", impl = "Seurat MapQuery", seconds = t_s,
                              accuracy = mean(mq$predicted.celltype == truth),
                              accuracy_2d_embedding = NA_real_, unassigned = 0)
    recalls$seurat <- recall(mq$predicted.celltype)
  }
  res <- do.call(rbind, rows)
  res$ratio <- signif(res$seconds / res$seconds[1], 3)
  res$seconds <- signif(res$seconds, 3)
  res$accuracy <- round(res$accuracy, 3)
  res$accuracy_2d_embedding <- round(res$accuracy_2d_embedding, 3)
  print(res, row.names = FALSE)
  cat(sprintf("  our defaults: labels voted by the %d nearest reference cells in the 30 principal components (space = \"input\"); accuracy_2d_embedding: voted in the 2-D embedding instead\n", 15L))
  cat("  per-class recall (query cells per class:",
      paste(sprintf("%s %d", names(table(truth)), table(truth)), collapse = ", "), ")\n")
  print(do.call(rbind, recalls))
  # a cell type absent from the reference: are the query's cells of that type flagged?
  for (held in c("B", "Mono_CD14", "NK")) {
    keep <- ref$cell_type != held
    fit <- laplacian_eigenmaps(ref[, keep], ndim = 2, k = 15, pca = 30)
    tl <- transfer_labels(fit, qry, ref$cell_type[keep])
    pos <- truth == held
    line <- sprintf("  %s left out of the reference: novelty AUROC %.3f, flagged %.2f of the %d %s cells and %.3f of the others",
                    held, auroc(tl$novelty, pos), mean(tl$novel[pos]), sum(pos), held, mean(tl$novel[!pos]))
    if (have("Seurat")) {
      mq <- suppressWarnings(seurat_run(ref[, keep], qry))
      line <- sprintf("%s; Seurat (1 - prediction score): AUROC %.3f", line,
                      auroc(1 - mq$predicted.celltype.score, pos))
    }
    cat(line, "\n")
  }
}
