# Two commands do all the set-up on a fresh machine: `make site` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
CLI    := $(VENV)/bin/authorsite
# BASE_URL=https://user.github.io/repo/ builds for a project path (the Pages workflow sets it).
BASE_URL ?=
BUILD_FLAGS := $(if $(BASE_URL),--base-url "$(BASE_URL)",)

.PHONY: install site test system-tools serve fetch check clean bench bench-scale golden docs dist messages

# pip byte-compiles the libraries it installs, not an editable package's own modules: compiled
# here, so a run under PYTHONDONTWRITEBYTECODE (set on some machines) does not compile them each time.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	$(PY) -m compileall -q generator
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

install: $(VENV)/.installed

site: $(VENV)/.installed
	$(CLI) build $(BUILD_FLAGS)

# chromium, a Java runtime and npm, installed with apt when missing (as root, or through sudo
# without a password); otherwise it stops here with the command to run.
system-tools:
	@bash tests/setup-system.sh

# vnu-jar (W3C Nu HTML checker) and axe-core for the page-quality tests. --ignore-scripts:
# vnu-jar's postinstall would download a JDK; the jar is in the package and java comes from apt.
node_modules/.package-lock.json: package.json package-lock.json | system-tools
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

# The wheels of authorsite's dependencies (and setuptools, to build it from git): the local
# package index from which tests/commands/test_release.py and tests/commands/test_install.py install authorsite
# into a fresh venv with no network.
$(VENV)/wheelhouse/.made: pyproject.toml | $(VENV)/.installed
	$(PY) -m pip download --quiet --disable-pip-version-check --only-binary=:all: -d $(VENV)/wheelhouse \
	  . "setuptools>=70.1"
	touch $@

# One pytest process per core (pytest-xdist), each taking whole test files (--dist loadfile), so
# a module's fixtures (a build, a server) are made once, as in a single process.
test: system-tools $(VENV)/.installed-test node_modules/.package-lock.json $(VENV)/wheelhouse/.made
	$(PY) -m pytest -q -n auto --dist loadfile --durations=15

# The sdist and the wheel a release publishes (.github/workflows/release.yml), checked by twine.
dist: $(VENV)/.installed-test
	rm -rf dist
	$(PY) -m build --no-isolation --outdir dist .
	$(PY) -m twine check --strict dist/*

serve: $(VENV)/.installed
	$(CLI) serve

fetch: $(VENV)/.installed
	$(CLI) fetch

check: $(VENV)/.installed
	$(CLI) check

clean:
	rm -rf output

# Side by side with Hugo on a synthetic corpus; BENCH_ARGS="--authors 100 --records 50" for a quick run.
BENCH_ARGS ?=
$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	touch $@

bench: $(VENV)/.installed-bench
	$(PY) -m compileall -q generator
	$(PY) bench/run.py $(BENCH_ARGS)

# Issue 42: our build at 5,000 and 20,000 authors (bench/README.md, "At scale"): no Hugo, no Pagefind, the
# rows below, one repeat each; then their table. Each size's output and build state are removed after
# its run (1.1 MB an author; the inputs stay for the next run to reuse). A quick check of the target itself:
#   make bench-scale SCALE_SIZES="50 100" SCALE_RECORDS=20
SCALE_SIZES   ?= 5000 20000
SCALE_RECORDS ?= 100
SCALE_ARGS    ?=
SCALE_ROWS    := ours_cold,ours_noop,ours_author,ours_record,ours_ci,shards
bench-scale: $(VENV)/.installed
	$(PY) -m compileall -q generator
	set -e; for a in $(SCALE_SIZES); do \
	  $(PY) bench/run.py --authors $$a --records $(SCALE_RECORDS) --no-peer --rows $(SCALE_ROWS) --repeat 1 \
	    --budget-minutes 600 --timeout 7200 --out benchmark-results/scale-a$$a-r$(SCALE_RECORDS).json $(SCALE_ARGS); \
	  rm -rf benchmark-results/corpus-a$$a-r$(SCALE_RECORDS)-s*/site/output benchmark-results/corpus-a$$a-r$(SCALE_RECORDS)-s*/site/.authorsite; \
	done
	$(PY) bench/scale_table.py $(foreach a,$(SCALE_SIZES),benchmark-results/scale-a$(a)-r$(SCALE_RECORDS).json)

golden: $(VENV)/.installed-test
	AUTHORSITE_UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/render/test_render_golden.py

# docs/configuration.md and docs/schema/*.json, made from the config schema (generator/config/schema.py).
docs: $(VENV)/.installed
	$(PY) -m generator.config.docs

# The theme's message catalogues (docs/languages.md): every {{ _("...") }}, ngettext and N_("...")
# of the templates and the code (babel.cfg) into generator/locale/messages.pot, then merged into
# each language's messages.po: a new string comes in untranslated (English on the pages until it is
# translated there), a string gone is dropped. No dates in the files, so a run that
# finds nothing new changes nothing. Builds compile the .po files themselves (no .mo to make).
PYBABEL := $(VENV)/bin/pybabel
messages: $(VENV)/.installed
	$(PYBABEL) extract -F babel.cfg -k _link:2 --no-location --sort-output --omit-header \
	  -o generator/locale/messages.pot .
	$(PYBABEL) update -i generator/locale/messages.pot -d generator/locale --no-fuzzy-matching \
	  --ignore-obsolete
	sed -i -e '/^"POT-Creation-Date: /d' -e '/^"PO-Revision-Date: /d' -e '/^"Generated-By: /d' generator/locale/*/LC_MESSAGES/messages.po
