# plml() at n = 20,000 on two Swiss-roll generators, three seeds each and
# k = 5..14: elapsed seconds (whole fit and the constrained k-means steps),
# iterations, k-means objective and trustworthiness T(10), for the given
# seedings; and the first constrained step's seconds, solves and final
# candidate centres per point (fit$kmeans$trace). Run from the package root with the package installed:
#   Rscript bench/plml_seeding.R 5,6,7,8,9,10,11,12,13,14 auto,kmeans++ [generators]
# generators: "other,pkg" (default); "pkg" is swiss_roll(20000, seed = s),
# "other" the roll with t uniform in [1.5 pi, 4.5 pi] and height 21.
# Prints CSV.
suppressPackageStartupMessages(library(manifoldOOS))
other_roll <- function(n, seed) {
  set.seed(seed)
  t <- 1.5 * pi * (1 + 2 * runif(n))
  y <- 21 * runif(n)
  list(x = cbind(t * cos(t), y, t * sin(t)))
}
a <- commandArgs(TRUE)
ks <- as.integer(strsplit(a[1], ",")[[1]])
inits <- strsplit(a[2], ",")[[1]]
gens <- if (length(a) >= 3) strsplit(a[3], ",")[[1]] else c("other", "pkg")
cat("generator,seed,k,init,seconds,kmeans_seconds,iterations,objective,T10,step1_seconds,step1_solves,step1_candidates\n")
for (g in gens) for (sd in 1:3) for (k in ks) for (ini in inits) {
  r <- if (g == "pkg") swiss_roll(20000, seed = sd) else other_roll(20000, sd)
  el <- system.time(f <- plml(r$x, k = k, seed = 1, init = ini))[["elapsed"]]
  tr <- f$kmeans$trace
  cat(sprintf("%s,%d,%d,%s,%.2f,%.2f,%d,%.6g,%.7f,%.2f,%d,%d\n", g, sd, k, ini, el, sum(tr[, 3]),
              nrow(tr), f$kmeans$objective, trustworthiness(r$x, embedding(f), 10), tr[1, "seconds"],
              as.integer(tr[1, "solves"]), as.integer(tr[1, "candidates"])))
}
