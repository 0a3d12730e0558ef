# Developer entry points. See README.md.
R ?= R
RSCRIPT ?= Rscript
PKG := manifoldOOS
# a fixed time zone: without one, packages that ask for it (lubridate via recipes) warn on machines without timedatectl
TZ ?= UTC
export TZ
# compile the C++ sources in parallel on every core
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz

.PHONY: deps deps-demo deps-test deps-site deps-check install demo test check site site-test \
	document bench clean

# What each step needs, and no more (tools/install-deps.R): Debian's prebuilt
# r-cran-* packages in one apt-get call where the machine has them, CRAN for
# the rest.
deps-demo:
	$(RSCRIPT) tools/install-deps.R demo
deps-test:
	$(RSCRIPT) tools/install-deps.R test
deps-site:
	$(RSCRIPT) tools/install-deps.R site
deps-check:
	$(RSCRIPT) tools/install-deps.R check
deps: deps-test

# The package is rebuilt from scratch (--preclean: src/Makevars tracks no
# header dependencies) only when a source file changed since the last
# install, or when it is not installed: `make test` after `make demo` does
# not compile it again. Every installed file counts (inst/, not only the headers:
# the experiment scripts and their results are installed too).
STAMP := .install-stamp
SOURCES := $(shell find R src inst -type f ! -name '*.o' ! -name '*.so' 2>/dev/null) DESCRIPTION NAMESPACE
$(STAMP): $(SOURCES)
	MAKEFLAGS=-j$(JOBS) $(R) CMD INSTALL --preclean --no-multiarch --with-keep.source .
	touch $(STAMP)

install: deps-demo
	@$(RSCRIPT) -e 'quit(status = !nzchar(system.file(package = "$(PKG)")))' || rm -f $(STAMP)
	@$(MAKE) --no-print-directory $(STAMP)

# demo: Imports and LinkingTo only
demo: install
	$(RSCRIPT) -e 'demo("swissroll", package = "$(PKG)", ask = FALSE, echo = FALSE)'

# test: adds Suggests and testthat
test: deps-test install
	$(RSCRIPT) tools/run-tests.R

document:
	$(RSCRIPT) tools/install-deps.R document
	$(RSCRIPT) -e 'Rcpp::compileAttributes(); roxygen2::roxygenise()'

check: deps-check
	rm -rf check && mkdir -p check
	cd check && MAKEFLAGS=-j$(JOBS) $(R) CMD build .. && \
	  MAKEFLAGS=-j$(JOBS) _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_SYSTEM_CLOCK_=0 _R_CHECK_CRAN_INCOMING_REMOTE_=false $(R) CMD check --as-cran --no-manual $(TARBALL)
	$(RSCRIPT) tools/check-status.R check/$(PKG).Rcheck/00check.log

# the documentation site, built offline into docs/ (pkgdown)
site: deps-site install
	$(RSCRIPT) tools/build-site.R

# every page of docs/ opened in headless Chromium
site-test:
	$(RSCRIPT) tools/install-deps.R site-test
	$(RSCRIPT) tools/site-test.R docs

bench: install
	$(RSCRIPT) bench/run.R

clean:
	rm -rf check docs src/*.o src/core/*/*.o src/*.so $(PKG).Rcheck $(TARBALL) $(STAMP)
