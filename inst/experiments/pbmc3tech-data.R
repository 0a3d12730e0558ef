# Reads the PBMC3tech data set (real 10x PBMC counts of three technologies
# with cell-type labels; see its README) from the folder `dir` holding it, as
# a SingleCellExperiment with log(CP10k + 1) values (library sizes: the cells'
# nUMI) in "logcounts". Shared by vignette("reference-mapping") and the
# reference-mapping benchmark.
read_pbmc3tech <- function(dir) {
  counts <- methods::as(Matrix::readMM(gzfile(file.path(dir, "counts.mtx.gz"))), "CsparseMatrix")
  cells <- utils::read.csv(file.path(dir, "cells.csv"), stringsAsFactors = FALSE)
  dimnames(counts) <- list(readLines(file.path(dir, "genes.txt")), cells$cell_id)
  logc <- counts
  logc@x <- log1p(logc@x / rep(cells$nUMI, diff(logc@p)) * 1e4)
  SingleCellExperiment::SingleCellExperiment(list(counts = counts, logcounts = logc), colData = cells)
}
