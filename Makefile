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

.PHONY: deps install demo test check document bench clean

deps:
	$(RSCRIPT) tools/install-deps.R

install: deps
	MAKEFLAGS=-j$(JOBS) $(R) CMD INSTALL --preclean --no-multiarch --with-keep.source .

demo: install
	$(RSCRIPT) -e 'demo("swissroll", package = "$(PKG)", ask = FALSE, echo = FALSE)'

test: install
	$(RSCRIPT) tools/run-tests.R

document: deps
	$(RSCRIPT) -e 'Rcpp::compileAttributes(); roxygen2::roxygenise()'

check: deps
	rm -rf check && mkdir -p check
	cd check && MAKEFLAGS=-j$(JOBS) $(R) CMD build .. && \
	  MAKEFLAGS=-j$(JOBS) _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_SYSTEM_CLOCK_=0 $(R) CMD check --as-cran --no-manual $(TARBALL)
	$(RSCRIPT) tools/check-status.R check/$(PKG).Rcheck/00check.log

bench: install
	$(RSCRIPT) bench/run.R

clean:
	rm -rf check src/*.o src/*.so $(PKG).Rcheck $(TARBALL)
