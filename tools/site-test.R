# Open every page of the built documentation site in headless Chromium and
# check it:
#   Rscript tools/site-test.R [docs] [--screenshots=DIR]
# * no JavaScript error and no resource (script, style sheet, image) that
#   fails to load;
# * every image of the page loaded (non-zero natural size);
# * each article has figures, and every figure file knitr wrote for it is
#   shown on its page;
# * formulas are typeset by MathJax on the pages that have them.
# Pages are opened from a copy of the site in which a small probe script is
# put first in every page's <head>: it records errors (window "error" events,
# including failed resource loads, and console.error()) and, once the page
# has settled, writes its findings into the page, which Chromium's
# --dump-dom prints. Chromium's own log of uncaught errors is checked too.
# One line per failing check; the last line is "site: N passed, N failed"
# (one test per page). Exit status 1 when a check failed or nothing ran.
args <- commandArgs(trailingOnly = TRUE)
shots <- sub("^--screenshots=", "", grep("^--screenshots=", args, value = TRUE))
args <- grep("^--", args, value = TRUE, invert = TRUE)
site <- normalizePath(if (length(args)) args[1] else "docs", mustWork = FALSE)
if (!file.exists(file.path(site, "index.html"))) {
  cat("site: no built site in", site, "(run make site)\n")
  cat("site: 0 passed, 1 failed\n")
  quit(save = "no", status = 1)
}
chromium <- Sys.getenv("CHROMIUM", Sys.which("chromium"))
if (!nzchar(chromium)) {
  cat("site: chromium not found (set CHROMIUM)\n")
  cat("site: 0 passed, 1 failed\n")
  quit(save = "no", status = 1)
}

probe <- paste0(
  "<script>(function(){var errs=[];",
  "function add(m){errs.push(String(m).slice(0,300));}",
  "window.addEventListener('error',function(e){var t=e.target;",
  "if(t&&t!==window&&(t.src||t.href)){add('failed to load '+(t.src||t.href));}",
  "else{add('error: '+(e.message||e));}},true);",
  "window.addEventListener('unhandledrejection',function(e){add('unhandled rejection: '+e.reason);});",
  "var ce=console.error;console.error=function(){add('console.error: '+",
  "Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);};",
  "window.addEventListener('load',function(){setTimeout(function(){",
  "var imgs=[].slice.call(document.images);",
  "var bad=imgs.filter(function(i){return !(i.complete&&i.naturalWidth>0);}).map(function(i){return i.getAttribute('src');});",
  "var out={errors:errs,images:imgs.map(function(i){return i.getAttribute('src');}),broken:bad,",
  "mathjax:document.querySelectorAll('.MathJax_SVG, .MathJax_SVG_Display').length};",
  "var d=document.createElement('pre');d.id='site-probe-result';",
  "d.textContent=JSON.stringify(out);document.body.appendChild(d);},2500);});",
  "})();</script>")

# a copy of the site with the probe in every page
work <- tempfile("site-test-")
dir.create(work)
on.exit(unlink(work, recursive = TRUE), add = TRUE)
invisible(file.copy(list.files(site, full.names = TRUE), work, recursive = TRUE))
pages <- list.files(work, pattern = "\\.html$", recursive = TRUE)
pages <- pages[!grepl("^(mathjax|deps)/", pages)]
for (p in pages) {
  f <- file.path(work, p)
  html <- readLines(f, warn = FALSE, encoding = "UTF-8")
  i <- grep("<head[^>]*>", html)[1]
  if (is.na(i)) next
  html[i] <- sub("(<head[^>]*>)", paste0("\\1", probe), html[i])
  writeLines(html, f, useBytes = TRUE)
}

open_page <- function(path, extra = "--dump-dom") {
  profile <- tempfile("chromium-profile-")
  dir.create(profile)
  on.exit(unlink(profile, recursive = TRUE), add = TRUE)
  err <- tempfile()
  on.exit(unlink(err), add = TRUE)
  flags <- c("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             paste0("--user-data-dir=", profile), "--allow-file-access-from-files",
             "--enable-logging=stderr", "--v=0", "--virtual-time-budget=8000", extra)
  url <- paste0("file://", path)
  out <- suppressWarnings(system2(chromium, c(flags, shQuote(url)), stdout = TRUE, stderr = err,
                                  timeout = 120))
  list(dom = paste(out, collapse = "\n"), log = readLines(err, warn = FALSE))
}

json_field <- function(txt) {
  # the probe's JSON, decoded without a JSON package: only the fields we need
  m <- regmatches(txt, regexpr('<pre id="site-probe-result">[^<]*</pre>', txt))
  if (!length(m)) return(NULL)
  j <- sub('^<pre id="site-probe-result">(.*)</pre>$', "\\1", m)
  j <- gsub("&quot;", '"', gsub("&amp;", "&", gsub("&lt;", "<", gsub("&gt;", ">", j))))
  arr <- function(name) {
    a <- regmatches(j, regexpr(sprintf('"%s":\\[[^]]*\\]', name), j))
    if (!length(a)) return(character())
    items <- regmatches(a, gregexpr('"([^"\\\\]|\\\\.)*"', a))[[1]][-1]
    gsub('^"|"$', "", items)
  }
  mj <- as.integer(sub('.*"mathjax":([0-9]+).*', "\\1", j))
  list(errors = arr("errors"), images = arr("images"), broken = arr("broken"), mathjax = mj)
}

passed <- 0L
failed <- 0L
fail <- function(page, what) cat(sprintf("FAIL %s: %s\n", page, what))
for (p in sort(pages)) {
  res <- open_page(file.path(work, p))
  problems <- character()
  r <- json_field(res$dom)
  if (is.null(r)) {
    problems <- "the page did not finish loading (no probe result)"
  } else {
    if (length(r$errors)) problems <- c(problems, r$errors)
    if (length(r$broken)) problems <- c(problems, paste("image not loaded:", r$broken))
  }
  uncaught <- grep("CONSOLE.*Uncaught", res$log, value = TRUE)
  if (length(uncaught)) problems <- c(problems, sub(".*CONSOLE[^]]*\\] ", "", uncaught))
  # text outside code with TeX delimiters \( or \[ must come out typeset
  src <- paste(readLines(file.path(site, p), warn = FALSE), collapse = "\n")
  text <- gsub("<(pre|code)[^>]*>.*?</\\1>", "", src, perl = TRUE)
  if (!is.null(r) && grepl("\\\\[([]", text) && r$mathjax == 0L) {
    problems <- c(problems, "formulas were not typeset by MathJax")
  }
  if (!is.null(r) && grepl("^articles/", p) && !grepl("index\\.html$", p)) {
    stem <- sub("\\.html$", "", basename(p))
    figs <- list.files(file.path(site, "articles", paste0(stem, "_files")), recursive = TRUE,
                       pattern = "\\.(png|svg|jpe?g)$")
    shown <- basename(r$images)
    if (!length(r$images)) problems <- c(problems, "the article shows no figure")
    missing <- setdiff(basename(figs), shown)
    if (length(missing)) problems <- c(problems, paste("figure not shown:", missing))
  }
  if (length(problems)) {
    failed <- failed + 1L
    for (x in unique(problems)) fail(p, x)
  } else {
    passed <- passed + 1L
  }
}

if (length(shots) && nzchar(shots)) {
  dir.create(shots, showWarnings = FALSE, recursive = TRUE)
  for (p in c("index.html", "articles/gallery.html")) {
    png <- file.path(normalizePath(shots), sub("/", "-", sub("\\.html$", ".png", p)))
    open_page(file.path(site, p), c("--window-size=1280,1600", paste0("--screenshot=", png)))
    cat("screenshot:", png, "\n")
  }
}

cat(sprintf("site: %d pages opened in headless Chromium\n", length(pages)))
cat(sprintf("site: %d passed, %d failed\n", passed, failed))
quit(save = "no", status = if (failed > 0L || passed == 0L) 1L else 0L)
