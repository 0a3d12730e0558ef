library(testthat)
library(manifoldOOS)

# at most two threads (CRAN policy; see ?manifoldOOS-threads)
options(manifoldOOS.threads = 2L)

test_check("manifoldOOS")
