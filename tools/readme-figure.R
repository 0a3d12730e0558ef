# Regenerates man/figures/README-overview.png, the key figure of the overview
# vignette shown in README.md: LGRM and LTSA fitted on 1500 Swiss-roll points,
# 500 unseen points placed with predict(), and the R_NX(K) curves.
# Run from the repository root after installing the package:
#   Rscript tools/readme-figure.R
library(manifoldOOS)
roll <- swiss_roll(2000, seed = 42)
train <- 1:1500
test <- 1501:2000
fit_lgrm <- lgrm(roll$x[train, ], ndim = 2, k = 10, sigma = 10)
fit_ltsa <- ltsa(roll$x[train, ], ndim = 2, k = 10)
grDevices::png("man/figures/README-overview.png", width = 1500, height = 500, res = 110)
op <- graphics::par(mfrow = c(1, 3), mar = c(4, 4, 3, 1))
plot(fit_lgrm, color = roll$color[train], newdata = roll$x[test, ], new_color = roll$color[test],
     main = "LGRM: training (dots) and predict() (triangles)")
plot(fit_ltsa, color = roll$color[train], newdata = roll$x[test, ], new_color = roll$color[test],
     main = "LTSA: training and predict()")
plot_rnx(roll$x[train, ], list(PCA = pca(roll$x[train, ], 2), LTSA = fit_ltsa, LGRM = fit_lgrm),
         K_max = 200)
graphics::par(op)
grDevices::dev.off()
