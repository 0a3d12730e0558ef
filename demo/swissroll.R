# manifoldOOS demo: fit on 1500 Swiss-roll points, place 500 held-out points
# with predict(), score both with trustworthiness, and save a plot.
library(manifoldOOS)

roll <- swiss_roll(2000, seed = 42)
train <- 1:1500
test <- 1501:2000

# The best nonlinear method available until LGRM lands: LTSA, whose
# out-of-sample rule is the reconstruction-weight map.
method_name <- "LTSA"
fit <- ltsa(roll$x[train, ], ndim = 2, k = 10)
print(fit)

t0 <- proc.time()[["elapsed"]]
y_test <- predict(fit, roll$x[test, ])
t_pred <- proc.time()[["elapsed"]] - t0

k <- 10
tab <- data.frame(
  set = c("training", "held-out"),
  n = c(length(train), length(test)),
  trustworthiness = c(trustworthiness(roll$x[train, ], embedding(fit), k = k),
                      trustworthiness(roll$x[test, ], y_test, k = k)),
  continuity = c(continuity(roll$x[train, ], embedding(fit), k = k),
                 continuity(roll$x[test, ], y_test, k = k))
)
cat(sprintf("\n%s on the Swiss roll: quality of the embedding (k = %d)\n", method_name, k))
print(tab, digits = 4, row.names = FALSE)
cat(sprintf("predict() placed %d held-out points in %.3f s\n", length(test), t_pred))

png_file <- file.path(getwd(), "manifoldOOS-demo.png")
grDevices::png(png_file, width = 900, height = 700, res = 110)
plot(fit, color = roll$color[train], newdata = roll$x[test, ],
     new_color = roll$color[test],
     main = sprintf("%s: 1500 training points (dots), 500 predicted (triangles)", method_name))
grDevices::dev.off()
cat("plot written to", png_file, "\n")
