# citation("manifoldOOS"): the package and the five works it implements.

test_that("citation() gives the package and the five implemented works", {
  cit <- citation("manifoldOOS")
  expect_length(cit, 6L)
  keys <- vapply(unclass(cit), function(e) attr(e, "key"), "")
  expect_identical(keys, c("manifoldOOS", "Yang2010LGRM", "Qiao2010NPPE", "Vural2015SOSI",
                           "Strange2011PLML", "Raducanu2013Sparse"))
  titles <- vapply(unclass(cit), function(e) e$title, "")
  expect_match(titles[1], "manifoldOOS", fixed = TRUE)
  expect_match(titles[2], "Local and Global Regressive Mapping", fixed = TRUE)
  expect_match(titles[3], "Explicit Nonlinear Mapping", fixed = TRUE)
  expect_match(titles[4], "supervised manifold learning", fixed = TRUE)
  expect_match(titles[5], "Piecewise-Linear Manifold Learning", fixed = TRUE)
  expect_match(titles[6], "Sparse-Coding", fixed = TRUE)
  years <- vapply(unclass(cit)[-1], function(e) e$year, "")
  expect_identical(years, c("2010", "2010", "2015", "2011", "2013"))
  # the package entry carries the installed version
  expect_match(unclass(cit)[[1]]$note, as.character(utils::packageVersion("manifoldOOS")), fixed = TRUE)
  # every entry renders as BibTeX with its key
  bib <- paste(format(cit, style = "bibtex"), collapse = "\n")
  for (k in keys) expect_match(bib, paste0("{", k, ","), fixed = TRUE)
})
