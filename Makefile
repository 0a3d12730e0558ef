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

.PHONY: deps deps-demo deps-test deps-site deps-check install demo test check check-clang site \
	site-test document bench clean

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

# check-clang: the package built as on macOS (clang, no OpenMP) with -Wall
# -pedantic into a temporary library, then the whole test suite against that
# build. Fails when the compiler warns about the package's own code (src/ and
# inst/include/manifoldOOS; third-party headers are not counted) or when a
# test fails. The objects are built in src/ (--preclean before and after), so
# the next `make install` compiles again.
CLANG_DIR := check-clang
check-clang: deps-test
	@command -v clang++ >/dev/null 2>&1 || { echo "check-clang: clang++ not found (apt-get install clang)"; exit 1; }
	rm -rf $(CLANG_DIR) && mkdir -p $(CLANG_DIR)/lib
	printf 'CXX17 = clang++\nCXX17FLAGS = -O2 -Wall -pedantic\nCXX17PICFLAGS = -fPIC\nSHLIB_OPENMP_CXXFLAGS =\n' > $(CLANG_DIR)/Makevars
	R_MAKEVARS_USER=$(CURDIR)/$(CLANG_DIR)/Makevars MAKEFLAGS=-j$(JOBS) $(R) CMD INSTALL --preclean \
	  --no-multiarch -l $(CLANG_DIR)/lib . > $(CLANG_DIR)/install.log 2>&1 || { tail -n 40 $(CLANG_DIR)/install.log; exit 1; }
	rm -f src/*.o src/*.so src/core/*/*.o
	@grep -E ':[0-9]+:[0-9]+: warning:' $(CLANG_DIR)/install.log | grep -vE '^/' > $(CLANG_DIR)/own-warnings.txt || true
	@echo "check-clang: $$(grep -cE ':[0-9]+:[0-9]+: warning:' $(CLANG_DIR)/install.log) compiler warnings, $$(wc -l < $(CLANG_DIR)/own-warnings.txt) in the package's own code"
	@if [ -s $(CLANG_DIR)/own-warnings.txt ]; then cat $(CLANG_DIR)/own-warnings.txt; exit 1; fi
	R_LIBS=$(CURDIR)/$(CLANG_DIR)/lib$${R_LIBS:+:$$R_LIBS} $(RSCRIPT) -e 'stopifnot(manifoldOOS::max_threads() == 1L)'
	R_LIBS=$(CURDIR)/$(CLANG_DIR)/lib$${R_LIBS:+:$$R_LIBS} $(RSCRIPT) tools/run-tests.R

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
	rm -rf check check-clang docs src/*.o src/core/*/*.o src/*.so $(PKG).Rcheck $(TARBALL) $(STAMP)
