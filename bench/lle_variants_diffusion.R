# Benchmarks for lle(variant = "modified" | "hessian") and diffusion_map()
# (run as `Rscript bench/run.R lle_variants_diffusion`).
#   * Swiss roll n = 5000, k = 10, 2-D: fit times (median of 3) of the three
#     LLE variants and of the diffusion map (kNN kernel above 2000 points),
#     with dimRed's "HLLE" (run once) as the peer of Hessian LLE;
#   * predict() of 10,000 new points (reconstruction rule, Nystrom extension);
#   * dimRed's HLLE against lle(variant = "hessian") at n = 1000: largest
#     deviation after the best rotation (both embeddings scaled to unit
#     column norm).
local({
  n <- 5000L
  k <- 10L
  roll <- bench_roll(n)
  tab <- bench_table()
  add <- tab$add
  for (v in c("standard", "modified", "hessian")) {
    add(sprintf("LLE %s fit n=5000", v), "manifoldOOS",
        bench_time(lle(roll$X, 2, k = k, variant = v), reps = 3L))
  }
  if (have("dimRed")) {
    add("LLE hessian fit n=5000", "dimRed HLLE",
        bench_once(suppressMessages(dimRed::embed(roll$X, "HLLE", knn = k, ndim = 2, .mute = c("message", "output")))))
  }
  add("diffusion map fit n=5000", "manifoldOOS", bench_time(diffusion_map(roll$X, 2), reps = 3L))
  fits <- list(hessian = lle(roll$X, 2, k = k, variant = "hessian"),
               modified = lle(roll$X, 2, k = k, variant = "modified"),
               diffusion = diffusion_map(roll$X, 2))
  for (nm in names(fits)) {
    f <- fits[[nm]]
    add(sprintf("%s predict 10000", nm), "manifoldOOS", bench_time(predict(f, roll$new), reps = 3L))
  }
  bench_report(tab$table())
  if (have("dimRed")) {
    X1 <- swiss_roll(1000L, seed = 3)$x
    ours <- embedding(lle(X1, 2, k = k, variant = "hessian"))
    theirs <- suppressMessages(dimRed::embed(X1, "HLLE", knn = k, ndim = 2,
                                             .mute = c("message", "output")))@data@data
    unit <- function(Y) sweep(Y, 2, sqrt(colSums(Y^2)), "/")
    gap <- max(abs(procrustes(unit(ours), unit(theirs), scale = FALSE)$fitted - unit(theirs)))
    cat(sprintf("  dimRed HLLE vs lle(variant = \"hessian\"), n = 1000, k = 10: max deviation after rotation %.3g\n", gap))
  }
})
