# Draws the site's logo, man/figures/logo.png (a Swiss roll's points coloured
# along the roll, and its unrolled embedding), and the favicons in
# pkgdown/favicon/ (pkgdown would otherwise fetch them from a web service).
#   Rscript tools/logo.R
library(manifoldOOS)
roll <- swiss_roll(1500, seed = 7)
fit <- isomap(roll$x, ndim = 2, k = 8)
cols <- grDevices::hcl.colors(100, "viridis")[cut(roll$color, 100)]
draw <- function(file, size, cex, icon = FALSE) {
  grDevices::png(file, width = size, height = size, bg = "transparent")
  op <- graphics::par(mar = c(0, 0, 0, 0), mfrow = c(if (icon) 1 else 2, 1))
  graphics::plot(roll$x[, 1], roll$x[, 3], col = cols, pch = 16, cex = cex, axes = FALSE,
                 ann = FALSE, asp = 1)
  if (!icon) graphics::plot(embedding(fit), col = cols, pch = 16, cex = cex, axes = FALSE, ann = FALSE)
  graphics::par(op)
  grDevices::dev.off()
}
draw("man/figures/logo.png", 240, 0.35)
dir.create("pkgdown/favicon", showWarnings = FALSE, recursive = TRUE)
for (s in c(16, 32)) draw(sprintf("pkgdown/favicon/favicon-%dx%d.png", s, s), s, 0.25, icon = TRUE)
