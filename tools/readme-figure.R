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
# affine R^2 of the training and the placed points against the true coordinates
r2 <- function(fit) {
  c(affine_r2(embedding(fit), truth[train, ]), affine_r2(predict(fit, roll$x[test, ]), truth[test, ]))
}
r2_lgrm <- r2(fit_lgrm)
r2_ltsa <- r2(fit_ltsa)
cat(sprintf("affine R^2 (training, new): LGRM %.4f %.4f, LTSA %.4f %.4f\n",
            r2_lgrm[1], r2_lgrm[2], r2_ltsa[1], r2_ltsa[2]))
grDevices::png("man/figures/README-overview.png", width = 1500, height = 500, res = 110)
op <- graphics::par(mfrow = c(1, 3), mar = c(4, 4, 3.5, 1))
plot(fit_lgrm, color = roll$color[train], newdata = roll$x[test, ], new_color = roll$color[test],
     main = sprintf("LGRM (k = 10): training (dots), predict() (triangles)\nR\u00b2 %.3f (training), %.3f (new)",
                    r2_lgrm[1], r2_lgrm[2]))
plot(fit_ltsa, color = roll$color[train], newdata = roll$x[test, ], new_color = roll$color[test],
     main = sprintf("LTSA (k = 10): training and predict()\nR\u00b2 %.3f (training), %.3f (new)",
                    r2_ltsa[1], r2_ltsa[2]))
plot_rnx(roll$x[train, ], list(PCA = pca(roll$x[train, ], 2), LTSA = fit_ltsa, LGRM = fit_lgrm),
         K_max = 200)
graphics::par(op)
grDevices::dev.off()
