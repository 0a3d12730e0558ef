# Diffusion maps against destiny (Bioconductor; Debian r-bioc-destiny), each
# at its defaults, in one run: the fit on n rows of the atlas roll (a Swiss
# roll rotated into 50 dimensions, noise sd 0.3; bench/common.R) and the
# out-of-sample placement of m new rows (predict() against dm_predict()).
# Each side runs in a child process under /usr/bin/time -v (peak RSS of fit
# and placement together). Run from the package root:
#   PEERS_N=2e4 PEERS_M=5000 Rscript bench/run.R peers-diffusion
# PEERS_DESTINY=0 leaves destiny out (our rows and the kernel-search time only).
# On both sides the placement is timed after a gc(), so that it does not pay
# for collecting the garbage the fit left (since 2026-11-29).
# (or Rscript bench/peers-diffusion.R after source("bench/common.R")).
if (!exists("bench_child")) source("bench/common.R")
n <- as.numeric(Sys.getenv("PEERS_N", "2e4"))
m <- as.numeric(Sys.getenv("PEERS_M", "5000"))
d <- rotated_roll(n + m, 7, noise = 0.3, p = 50L)
work <- tempfile("peers-diffusion-")
dir.create(work)
fx <- file.path(work, "x.rds")
saveRDS(list(x = d$x[seq_len(n), ], xn = d$x[n + seq_len(m), ], t = d$t[seq_len(n)], tn = d$t[n + seq_len(m)]), fx)
tail_code <- c(
  'cat(sprintf("RESULT fit %.3f\\n", t1 - t0)); cat(sprintf("RESULT predict %.3f\\n", t2 - t1g))',
  'cat(sprintf("RESULT spearman_fit %.6f\\n", abs(cor(y[, 1], D$t, method = "spearman"))))',
  'cat(sprintf("RESULT spearman_new %.6f\\n", abs(cor(yn[, 1], D$tn, method = "spearman"))))')
ours <- bench_child(c(
  sprintf('D <- readRDS("%s")', fx),
  't0 <- proc.time()[["elapsed"]]',
  'fit <- diffusion_map(D$x, 2)',
  't1 <- proc.time()[["elapsed"]]', 'invisible(gc()); t1g <- proc.time()[["elapsed"]]',
  'yn <- predict(fit, D$xn)',
  't2 <- proc.time()[["elapsed"]]',
  'y <- embedding(fit)', tail_code), work)
# the share of our placement spent searching the default kernel's neighbours
# (kernel_k = 10 k = 150) of the new rows among the training rows
srch <- bench_child(c(
  sprintf('D <- readRDS("%s")', fx),
  't0 <- proc.time()[["elapsed"]]',
  'nb <- knn(D$x, 150L, query = D$xn)',
  'cat(sprintf("RESULT search %.3f\\n", proc.time()[["elapsed"]] - t0))'), work)
cat(sprintf("our placement: %.2f s, of which the search of 150 kernel neighbours alone takes %.2f s\n",
            ours$values[["predict"]], srch$values[["search"]]))
use_destiny <- Sys.getenv("PEERS_DESTINY", "1") == "1"
peer <- if (use_destiny && requireNamespace("destiny", quietly = TRUE)) bench_child(c(
  'suppressPackageStartupMessages(library(destiny))',
  sprintf('D <- readRDS("%s")', fx),
  't0 <- proc.time()[["elapsed"]]',
  'dm <- DiffusionMap(D$x)',
  't1 <- proc.time()[["elapsed"]]', 'invisible(gc()); t1g <- proc.time()[["elapsed"]]',
  'yn <- dm_predict(dm, D$xn)',
  't2 <- proc.time()[["elapsed"]]',
  'y <- eigenvectors(dm); yn <- as.matrix(yn)', tail_code), work) else NULL
row <- function(who, r) data.frame(
  impl = who, fit_s = r$values[["fit"]], predict_s = r$values[["predict"]], peak_rss_mb = round(r$rss),
  spearman_fit = r$values[["spearman_fit"]], spearman_new = r$values[["spearman_new"]])
res <- rbind(row("manifoldOOS diffusion_map() / predict()", ours),
             if (!is.null(peer) && length(peer$values)) row("destiny DiffusionMap() / dm_predict()", peer))
cat(sprintf("\n-- diffusion maps, %s training rows x 50, %s new rows, each at its defaults --\n",
            format(n, big.mark = ","), format(m, big.mark = ",")))
print(res, row.names = FALSE)
if (nrow(res) == 2L) {
  cat(sprintf("destiny / manifoldOOS: fit %.1fx, placement %.1fx, peak memory %.1fx\n",
              res$fit_s[2] / res$fit_s[1], res$predict_s[2] / res$predict_s[1], res$peak_rss_mb[2] / res$peak_rss_mb[1]))
} else cat(if (use_destiny) "destiny is not installed: its row is missing\n" else "destiny left out (PEERS_DESTINY=0)\n")
cat(sprintf("destiny %s; commit %s, %s\n",
            if (requireNamespace("destiny", quietly = TRUE)) as.character(utils::packageVersion("destiny")) else "absent",
            tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
            format(Sys.time(), tz = "UTC", usetz = TRUE)))
