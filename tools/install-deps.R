# Install what one step of the Makefile needs, and nothing more.
#
#   Rscript tools/install-deps.R demo    Imports + LinkingTo (what the package
#                                        and demo("swissroll") need)
#   Rscript tools/install-deps.R test    + Suggests, testthat (the test suite)
#   Rscript tools/install-deps.R site    + Suggests, pkgdown, pandoc, MathJax
#                                        (make site)
#   Rscript tools/install-deps.R site-test  chromium (make site-test)
#   Rscript tools/install-deps.R check   + Suggests, pandoc, qpdf (R CMD check)
#   Rscript tools/install-deps.R document  + roxygen2
#
# Further arguments are extra R packages (for example the peers of bench/).
#
# Where the machine offers Debian's prebuilt r-cran-* / r-bioc-* packages (apt-get
# usable as root), every missing package that Debian has is installed from
# there in ONE apt-get call (after one `apt-get update`), together with the
# system tools; only what Debian lacks (or ships too old) is compiled from
# the configured CRAN repository. Prints how long each part took.
args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args)) args[1] else "test"
modes <- c("demo", "test", "site", "site-test", "check", "document")
if (!mode %in% modes) {
  stop("unknown mode '", mode, "'; use one of: ", paste(modes, collapse = ", "), call. = FALSE)
}
extra <- args[-1]

desc <- read.dcf("DESCRIPTION")
field <- function(f) {
  if (!f %in% colnames(desc)) return(character())
  x <- strsplit(desc[1, f], ",")[[1]]
  x <- trimws(gsub("\\s+", " ", x))
  x[nzchar(x)]
}
# "Rcpp (>= 1.0.7)" -> name "Rcpp", minimum version "1.0.7"
dep_names <- function(x) trimws(sub("\\(.*\\)", "", x))
dep_min <- function(x) {
  v <- ifelse(grepl(">=", x), trimws(sub(".*>=\\s*([^)]*)\\).*", "\\1", x)), NA_character_)
  stats::setNames(v, dep_names(x))
}
base_pkgs <- c("R", rownames(utils::installed.packages(priority = "base")))

core <- c(field("Depends"), field("Imports"), field("LinkingTo"))
wanted <- switch(mode,
  demo = core,
  test = c(core, field("Suggests"), "testthat"),
  site = c(core, field("Suggests"), "pkgdown"),
  `site-test` = character(),
  check = c(core, field("Suggests")),
  document = c(core, "roxygen2"))
wanted <- c(wanted, extra)
min_version <- dep_min(wanted)
wanted <- setdiff(unique(dep_names(wanted)), base_pkgs)
# system packages: Debian name = what shows it is there (a command, or the
# package's own dpkg status when it installs no command)
tools_needed <- switch(mode,
  site = c(pandoc = "pandoc", `libjs-mathjax` = ""),
  `site-test` = c(chromium = "chromium"),
  check = c(pandoc = "pandoc", qpdf = "qpdf"),
  # scikit-learn: the outside implementation some tests agree with
  test = c(`python3-sklearn` = ""),
  character())
# Debian's r-cran-rcpphnsw leaves hnswlib's headers to libhnswlib-dev (CRAN's
# RcppHNSW ships them): needed to compile the package where apt is used.
if (mode %in% c("demo", "test", "site", "check") && nzchar(Sys.which("apt-get")) &&
    !file.exists(file.path(system.file(package = "RcppHNSW"), "include", "hnswlib", "hnswlib.h"))) {
  tools_needed <- c(tools_needed, `libhnswlib-dev` = "")
}

have <- function(p) {
  if (!nzchar(system.file(package = p))) return(FALSE)
  v <- min_version[p]
  is.na(v) || utils::packageVersion(p) >= v
}
missing_pkgs <- function() wanted[!vapply(wanted, have, logical(1))]
tool_ok <- function(deb, cmd) {
  if (nzchar(cmd)) return(nzchar(Sys.which(cmd)))
  st <- suppressWarnings(system2("dpkg-query", c("-W", shQuote("-f=${Status}"), deb),
                                 stdout = TRUE, stderr = FALSE))
  identical(st, "install ok installed")
}
missing_tools <- function() {
  names(tools_needed)[!vapply(names(tools_needed), function(d) tool_ok(d, tools_needed[[d]]), logical(1))]
}
elapsed <- function(t0) sprintf("%.0f s", proc.time()[["elapsed"]] - t0)

todo <- missing_pkgs()
todo_tools <- missing_tools()
if (!length(todo) && !length(todo_tools)) {
  message("install-deps (", mode, "): everything is installed.")
  quit(save = "no", status = 0)
}

# ---- 1. Debian's prebuilt packages, one apt-get call --------------------------
apt_ok <- nzchar(Sys.which("apt-get")) && nzchar(Sys.which("apt-cache")) &&
  identical(unname(Sys.info()[["effective_user"]]), "root")
if (apt_ok) {
  t0 <- proc.time()[["elapsed"]]
  run <- function(cmd) system(paste("DEBIAN_FRONTEND=noninteractive", cmd))
  if (run("apt-get update -qq > /dev/null") != 0) message("apt-get update failed; trying with the old lists")
  # which r-cran-* / r-bioc-* names exist (Debian lower-cases the CRAN or
  # Bioconductor name)
  debian <- system2("apt-cache", c("pkgnames", "r-"), stdout = TRUE)
  deb_cran <- if (length(todo)) paste0("r-cran-", tolower(todo)) else character()
  deb_bioc <- if (length(todo)) paste0("r-bioc-", tolower(todo)) else character()
  deb_of <- ifelse(deb_cran %in% debian, deb_cran, deb_bioc)
  on_debian <- deb_of %in% debian
  tool_debs <- todo_tools[todo_tools %in% system2("apt-cache", "pkgnames", stdout = TRUE)]
  debs <- c(deb_of[on_debian], tool_debs)
  if (length(debs)) {
    message("install-deps (", mode, "): apt-get install ", length(debs), " Debian packages: ",
            paste(debs, collapse = " "))
    status <- run(paste("apt-get install -y -qq --no-install-recommends",
                        paste(debs, collapse = " "), "> /dev/null"))
    if (status != 0) message("apt-get install failed (status ", status, "); falling back to CRAN")
    message("install-deps (", mode, "): Debian packages done in ", elapsed(t0))
  }
  if (any(!on_debian)) {
    message("install-deps (", mode, "): not on Debian: ", paste(todo[!on_debian], collapse = ", "))
  }
}

# ---- 2. CRAN for the rest (and for Debian packages older than required) -------
todo <- missing_pkgs()
if (length(todo)) {
  t0 <- proc.time()[["elapsed"]]
  repos <- getOption("repos")
  if (is.null(repos) || !length(repos) || any(repos == "@CRAN@")) {
    utils::chooseCRANmirror(graphics = FALSE, ind = 1)   # R's first listed mirror
  }
  message("install-deps (", mode, "): compiling from CRAN: ", paste(todo, collapse = ", "))
  ncpus <- max(1L, parallel::detectCores())
  try(utils::install.packages(todo, Ncpus = ncpus, quiet = TRUE))
  message("install-deps (", mode, "): CRAN packages done in ", elapsed(t0))
}

# ---- 3. report -----------------------------------------------------------------
todo <- missing_pkgs()
required <- setdiff(dep_names(c(core, if (mode == "test") "testthat",
                                if (mode == "site") "pkgdown",
                                if (mode == "document") "roxygen2")), base_pkgs)
if (length(todo)) {
  message("install-deps (", mode, "): still missing (tests that need them are skipped): ",
          paste(todo, collapse = ", "))
}
if (length(missing_tools())) {
  message("install-deps (", mode, "): not available: ", paste(missing_tools(), collapse = ", "),
          if ("pandoc" %in% missing_tools()) " (vignettes cannot be built)" else "")
}
if (mode == "site-test" && length(missing_tools())) {
  stop("chromium could not be installed: the site cannot be tested.", call. = FALSE)
}
if (any(required %in% todo)) {
  stop("required packages could not be installed: ", paste(intersect(required, todo), collapse = ", "),
       call. = FALSE)
}
invisible(TRUE)
