# Install what the package needs to build, test, check and run its vignettes:
# the Imports, LinkingTo and Suggests fields of DESCRIPTION, roxygen2, and pandoc.
# Packages come from the configured CRAN repositories; when that fails and apt is
# usable, from Debian's r-cran-* packages. Extra packages (for example the R peers
# used by bench/) can be passed as arguments.
args <- commandArgs(trailingOnly = TRUE)

desc <- read.dcf("DESCRIPTION")
field <- function(f) {
  if (!f %in% colnames(desc)) return(character())
  x <- strsplit(desc[1, f], ",")[[1]]
  x <- trimws(sub("\\(.*\\)", "", x))
  x[nzchar(x)]
}
base_pkgs <- c("R", rownames(installed.packages(priority = "base")))
wanted <- unique(c(field("Imports"), field("LinkingTo"), field("Suggests"),
                   field("Depends"), "roxygen2", args))
wanted <- setdiff(wanted, base_pkgs)

have <- function(p) nzchar(system.file(package = p))
missing_pkgs <- function() wanted[!vapply(wanted, have, logical(1))]

todo <- missing_pkgs()
if (length(todo)) {
  message("Installing from CRAN: ", paste(todo, collapse = ", "))
  ncpus <- max(1L, parallel::detectCores())
  try(utils::install.packages(todo, Ncpus = ncpus, quiet = TRUE), silent = FALSE)
}

apt_ok <- function() nzchar(Sys.which("apt-get")) && identical(unname(Sys.info()[["effective_user"]]), "root")
apt_install <- function(debs) {
  if (!length(debs) || !apt_ok()) return(invisible(FALSE))
  if (!file.exists("/tmp/.manifoldOOS-apt-updated")) {
    system("apt-get update -qq", ignore.stdout = TRUE)
    file.create("/tmp/.manifoldOOS-apt-updated")
  }
  status <- system(paste("DEBIAN_FRONTEND=noninteractive apt-get install -y -qq",
                         paste(debs, collapse = " ")), ignore.stdout = TRUE)
  invisible(status == 0)
}

todo <- missing_pkgs()
if (length(todo)) {
  message("Not installed from CRAN, trying Debian packages: ", paste(todo, collapse = ", "))
  for (p in todo) apt_install(paste0("r-cran-", tolower(p)))
}

# System tools: pandoc builds the vignettes; qpdf is needed by R CMD check --as-cran.
for (tool in c("pandoc", "qpdf")) {
  if (!nzchar(Sys.which(tool))) {
    message("Installing ", tool)
    apt_install(tool)
  }
}

todo <- missing_pkgs()
required <- setdiff(c(field("Imports"), field("LinkingTo"), "testthat"), base_pkgs)
if (length(todo)) message("Still missing (optional ones are skipped by tests): ",
                          paste(todo, collapse = ", "))
if (any(required %in% todo)) {
  stop("required packages could not be installed: ",
       paste(intersect(required, todo), collapse = ", "))
}
if (!nzchar(Sys.which("pandoc"))) message("pandoc is not available: vignettes cannot be built.")
invisible(TRUE)
