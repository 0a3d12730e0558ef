# Do rerun rows equal the committed rows of a results file?
#
#   Rscript tools/check-results.R NEW.csv COMMITTED.csv --keys=a,b,c --values=x,y \
#     [--where="R expression on the committed rows"] [--command="how NEW.csv was made"] \
#     [--record=FILE]
#
# NEW.csv holds the rows a cheap rerun with today's code wrote (a subset of the
# committed settings: one split, one fold, one data set ...). Rows are matched
# on the --keys columns (numbers as 15 significant digits); every --values
# column (the numbers a verdict uses; timings are left out by not naming
# them) must agree to 1e-9 relative (or 1e-12 absolute, for values near 0).
# --where restricts the committed rows the rerun must cover (default: the
# keys present in NEW.csv). Prints a record (command, commit, date, rows
# compared, max differences, verdict) and appends it to --record if given.
# Exits non-zero if a row is missing or a value differs.
args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default = NULL) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default
}
files <- args[!startsWith(args, "--")]
if (length(files) != 2L || is.null(opt("keys")) || is.null(opt("values"))) {
  stop("usage: Rscript tools/check-results.R NEW.csv COMMITTED.csv --keys=a,b --values=x,y ",
       "[--where=EXPR] [--command=TEXT] [--record=FILE]", call. = FALSE)
}
keys <- strsplit(opt("keys"), ",", fixed = TRUE)[[1]]
vals <- strsplit(opt("values"), ",", fixed = TRUE)[[1]]
new <- utils::read.csv(files[1], stringsAsFactors = FALSE)
old <- utils::read.csv(files[2], stringsAsFactors = FALSE)
miss <- setdiff(c(keys, vals), intersect(names(new), names(old)))
if (length(miss)) stop("columns missing from one of the files: ", paste(miss, collapse = ", "), call. = FALSE)
key_of <- function(d) do.call(paste, c(lapply(d[keys], function(v) if (is.numeric(v)) sprintf("%.15g", v) else v),
                                        sep = "|"))
kn <- key_of(new)
ko <- key_of(old)
if (anyDuplicated(kn)) stop("the keys do not identify the rows of ", files[1], call. = FALSE)
want <- if (is.null(opt("where"))) ko %in% kn else eval(parse(text = opt("where")), old)
want[is.na(want)] <- FALSE
o <- old[want, , drop = FALSE]
ko <- ko[want]
m <- match(ko, kn)
missing <- sum(is.na(m))
n_cmp <- sum(!is.na(m))
rel <- 0
abs_d <- 0
n_diff <- 0
worst <- ""
for (v in vals) {
  a <- as.numeric(o[[v]][!is.na(m)])
  b <- as.numeric(new[[v]][m[!is.na(m)]])
  both_na <- is.na(a) & is.na(b)
  one_na <- xor(is.na(a), is.na(b))
  d <- abs(a - b)
  r <- d / pmax(abs(a), abs(b))
  r[d == 0] <- 0
  bad <- one_na | (!both_na & !one_na & r > 1e-9 & d > 1e-12)
  n_diff <- n_diff + sum(bad)
  if (any(!both_na & !one_na)) {
    i <- which(!both_na & !one_na)
    j <- i[which.max(r[i])]
    if (r[j] > rel) worst <- sprintf("%s of %s (%.15g committed, %.15g now)", v, ko[!is.na(m)][j], a[j], b[j])
    rel <- max(rel, r[!both_na & !one_na])
    abs_d <- max(abs_d, d[!both_na & !one_na])
  }
}
commit <- tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "unknown")
dirty <- tryCatch(length(system("git status --porcelain --untracked-files=no -- R src inst/include inst/experiments/*.R", intern = TRUE)) > 0,
                  error = function(e) FALSE)
ok <- missing == 0 && n_diff == 0 && n_cmp > 0
rec <- c(sprintf("file: %s", basename(files[2])),
         sprintf("rerun: %s", opt("command", files[1])),
         sprintf("code: commit %s%s, manifoldOOS %s, %s", commit, if (dirty) " (with uncommitted changes to the package or experiment code)" else "",
                 as.character(utils::packageVersion("manifoldOOS")), R.version.string),
         sprintf("checked: %s", format(Sys.time(), tz = "UTC", usetz = TRUE)),
         sprintf("subset: %s", opt("where", "the committed rows whose keys the rerun holds")),
         sprintf("rows compared: %d of %d committed rows (%d of the subset missing from the rerun); keys %s; values %s",
                 n_cmp, nrow(old), missing, paste(keys, collapse = ","), paste(vals, collapse = ",")),
         sprintf("max relative difference %.3g, max absolute difference %.3g; %d value(s) beyond 1e-9 relative",
                 rel, abs_d, n_diff),
         if (nzchar(worst)) sprintf("largest relative difference: %s", worst),
         sprintf("verdict: %s", if (ok) "IDENTICAL (to 1e-9 relative)" else "DIFFERENT"), "")
cat(rec, sep = "\n")
if (!is.null(opt("record"))) cat(rec, sep = "\n", file = opt("record"), append = TRUE)
if (!ok) quit(status = 1)
