# Regenerates man/figures/README-overview.png, the key figure of the overview
# vignette shown in README.md: LGRM and LTSA (k = 10) fitted on 1500 points
# of swiss_roll(2000, seed = 42), the 500 unseen points placed with
# predict(), and the R_NX(K) curves. The titles give the affine R^2 against
# the roll's true coordinates (printed too, for the README caption).
# Run from the repository root after installing the package:
#   Rscript tools/readme-figure.R
library(manifoldOOS)
roll <- swiss_roll(2000, seed = 42)
train <- 1:1500
test <- 1501:2000
fit_lgrm <- lgrm(roll$x[train, ], ndim = 2, k = 10, sigma = 10)
fit_ltsa <- ltsa(roll$x[train, ], ndim = 2, k = 10)
truth <- roll$truth_isometric
# affine R^2 against the true coordinate along the roll and the one across
# it, for the training points and for the placed ones
r2 <- function(fit) {
  per <- function(Y, Z) vapply(1:2, function(j) affine_r2(Y, Z[, j, drop = FALSE]), 0)
  c(per(embedding(fit), truth[train, ]), per(predict(fit, roll$x[test, ]), truth[test, ]))
}
r2_lgrm <- r2(fit_lgrm)
r2_ltsa <- r2(fit_ltsa)
cat(sprintf("affine R^2 along / across (training; new): LGRM %.4f %.4f; %.4f %.4f, LTSA %.4f %.4f; %.4f %.4f\n",
            r2_lgrm[1], r2_lgrm[2], r2_lgrm[3], r2_lgrm[4], r2_ltsa[1], r2_ltsa[2], r2_ltsa[3], r2_ltsa[4]))
title_r2 <- function(label, r) {
  sprintf("%s\nR\u00b2 along / across the roll: %.3f / %.3f (training), %.3f / %.3f (new)",
          label, r[1], r[2], r[3], r[4])
}
grDevices::png("man/figures/README-overview.png", width = 1500, height = 500, res = 110)
op <- graphics::par(mfrow = c(1, 3), mar = c(4, 4, 3.5, 1))
plot(fit_lgrm, color = roll$color[train], newdata = roll$x[test, ], new_color = roll$color[test],
     main = title_r2("LGRM (k = 10): training (dots), predict() (triangles)", r2_lgrm), cex.main = 0.95)
plot(fit_ltsa, color = roll$color[train], newdata = roll$x[test, ], new_color = roll$color[test],
     main = title_r2("LTSA (k = 10): training and predict()", r2_ltsa), cex.main = 0.95)
plot_rnx(roll$x[train, ], list(PCA = pca(roll$x[train, ], 2), LTSA = fit_ltsa, LGRM = fit_lgrm),
         K_max = 200)
graphics::par(op)
grDevices::dev.off()
