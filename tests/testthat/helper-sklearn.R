# Outside references computed by scikit-learn, run through system2(): the
# first python3 that imports sklearn (MANIFOLDOOS_PYTHON, then python3 on the
# PATH, then the system interpreter that Debian's python3-sklearn installs
# into). Tests call skip_if_no_sklearn() first.

sklearn_python <- local({
  found <- NULL
  function() {
    if (!is.null(found)) return(found)
    cands <- unique(c(Sys.getenv("MANIFOLDOOS_PYTHON"), Sys.which("python3"), "/usr/bin/python3"))
    cands <- cands[nzchar(cands) & file.exists(cands)]
    found <<- ""
    for (py in cands) {
      ok <- suppressWarnings(tryCatch(
        system2(py, c("-c", shQuote("import sklearn, scipy, numpy")), stdout = FALSE, stderr = FALSE),
        error = function(e) 1L))
      if (identical(as.integer(ok), 0L)) {
        found <<- py
        break
      }
    }
    found
  }
})

skip_if_no_sklearn <- function() {
  testthat::skip_if(!nzchar(sklearn_python()), "python3 with scikit-learn is not available")
}

# Run a python script on the matrix X (written to a text file with 17
# significant digits); the script finds X in the variable X and must leave its
# result (a 2-d array) in the variable OUT. Returns OUT as an R matrix.
run_sklearn <- function(X, script) {
  fx <- tempfile(fileext = ".txt")
  fo <- tempfile(fileext = ".txt")
  fp <- tempfile(fileext = ".py")
  on.exit(unlink(c(fx, fo, fp)), add = TRUE)
  utils::write.table(format(X, digits = 17), fx, quote = FALSE, row.names = FALSE, col.names = FALSE)
  writeLines(c("import numpy as np", sprintf("X = np.loadtxt(%s, ndmin=2)", shQuote(fx, "sh")),
               script, sprintf("np.savetxt(%s, np.atleast_2d(OUT), fmt='%%.17g')", shQuote(fo, "sh"))),
             fp)
  status <- system2(sklearn_python(), fp, stdout = FALSE, stderr = FALSE)
  if (!identical(as.integer(status), 0L)) stop("the scikit-learn reference script failed")
  unname(as.matrix(utils::read.table(fo)))
}
