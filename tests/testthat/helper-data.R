# Shared test helpers.

# Folder with the image data sets, or "" when absent.
shared_data_dir <- function() {
  d <- getOption("manifoldOOS.data", Sys.getenv("MANIFOLDOOS_DATA", ""))
  if (nzchar(d) && dir.exists(d)) return(d)
  for (cand in c("../../../shared/data", "../../../../shared/data")) {
    if (dir.exists(cand)) return(normalizePath(cand))
  }
  ""
}

skip_if_no_shared_data <- function(name = NULL) {
  d <- shared_data_dir()
  if (!nzchar(d)) skip("image data folder not available")
  if (!is.null(name) && !dir.exists(file.path(d, name))) skip(paste("data set", name, "not available"))
  d
}

# Largest principal angle (in radians) between the column spaces of A and B.
max_principal_angle <- function(A, B) {
  qa <- qr.Q(qr(A)); qb <- qr.Q(qr(B))
  s <- svd(crossprod(qa, qb))$d
  acos(min(1, max(0, min(s))))
}

expect_input_error <- function(expr, arg = NULL) {
  err <- expect_error(expr, class = "manifoldOOS_input_error")
  if (!is.null(arg)) expect_match(conditionMessage(err), arg, fixed = TRUE)
  invisible(err)
}
