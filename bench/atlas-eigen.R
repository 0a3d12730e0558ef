# The eigen-solve of the atlas-scale Laplacian eigenmaps fit alone, its
# neighbour lists given (the stage timed in bench/RESULTS.md, "Atlas scale,
# second pass"), and the HNSW search of k and 10 k neighbours (the diffusion
# map's default kernel). Run with
#   ATLAS_N=1e6 Rscript bench/atlas-eigen.R
# Prints the verbose stage lines of the fit, its solver note, |Spearman| with
# the roll parameter and the search times.
source("bench/common.R")
suppressPackageStartupMessages(library(manifoldOOS))
n <- as.numeric(Sys.getenv("ATLAS_N", "1e5"))
k <- 15L
d <- rotated_roll(n, 7, noise = 0.3, p = 50L, block = 2e5)
options(manifoldOOS.hnsw_cache = FALSE)
t_knn <- system.time(nb <- knn(d$x, k, method = "hnsw"))[["elapsed"]]
t_knn10 <- if (n <= 1e5) system.time(knn(d$x, 10L * k, method = "hnsw"))[["elapsed"]] else NA_real_
fit <- laplacian_eigenmaps(d$x, 2, k = k, neighbors = nb, eigen_solver = "lobpcg", verbose = TRUE)
cat(sprintf("n = %g: knn(k = %d) %.1f s, knn(k = %d) %s s; %s; |Spearman| %.5f\n", n, k, t_knn, 10L * k,
            format(round(t_knn10, 1)), fit$solver$note, abs(cor(fit$embedding[, 1], d$t, method = "spearman"))))
cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
            format(Sys.time(), tz = "UTC", usetz = TRUE)))
