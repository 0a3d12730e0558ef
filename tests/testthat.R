library(testthat)
library(manifoldOOS)

test_check("manifoldOOS")
