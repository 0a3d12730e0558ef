# Build the documentation site into docs/ without network access:
#   Rscript tools/build-site.R        (what `make site` runs, after installing
#                                      the package and its Suggests)
# pkgdown's default page head loads scripts from content delivery networks;
# pkgdown/templates/head.html replaces them by local ones (pkgdown/assets/
# offline.js) and by MathJax from Debian's libjs-mathjax, copied into docs/.
options(pkgdown.internet = FALSE)   # no CRAN / Bioconductor look-ups
Sys.setenv(R_DEFAULT_INTERNET_TIMEOUT = "2")

mathjax_dir <- function() {
  dir <- Sys.getenv("MATHJAX_DIR")
  if (nzchar(dir)) return(dir)
  if (nzchar(Sys.which("dpkg"))) {
    files <- suppressWarnings(system2("dpkg", c("-L", "libjs-mathjax"), stdout = TRUE, stderr = FALSE))
    hit <- grep("/MathJax\\.js$", files, value = TRUE)
    if (length(hit)) return(dirname(hit[1]))
  }
  ""
}
mj <- mathjax_dir()
if (!nzchar(mj) || !file.exists(file.path(mj, "MathJax.js"))) {
  stop("MathJax not found: install Debian's libjs-mathjax (make site does) or set MATHJAX_DIR.",
       call. = FALSE)
}

t0 <- proc.time()[["elapsed"]]
pkgdown::build_site(".", install = FALSE, new_process = FALSE, preview = FALSE)

# MathJax 2 with SVG output: the loader, configurations, extensions and jax
# (its HTML-CSS web fonts are not needed).
dest <- file.path("docs", "mathjax")
unlink(dest, recursive = TRUE)
dir.create(dest, recursive = TRUE)
for (part in c("MathJax.js", "config", "extensions", "jax", "localization")) {
  file.copy(file.path(mj, part), dest, recursive = TRUE)
}
message(sprintf("site built in docs/ in %.0f s", proc.time()[["elapsed"]] - t0))
