# The two commands: `make demo` and `make test`. Each bootstraps what it needs.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bootstrap system clean bench firmware

demo: bootstrap
	$(VENV)/bin/boardwright demo

test: bootstrap firmware
	bash scripts/run-tests.sh

# The reference firmware for the ATmega2560 and its simavr test board (build/firmware).
firmware: system
	@$(MAKE) --no-print-directory -s -C firmware_bridge/firmware BUILD=$(CURDIR)/build/firmware

lint: bootstrap
	$(VENV)/bin/ruff check dealer vision firmware_bridge webpanel tests bench
	$(VENV)/bin/mypy dealer --ignore-missing-imports
	$(VENV)/bin/mypy vision --ignore-missing-imports
	$(VENV)/bin/mypy firmware_bridge webpanel rig.py --ignore-missing-imports

bootstrap: system $(STAMP)

# System packages (apt) are checked each run; the check is quick and installs nothing when all are present.
system:
	@bash scripts/system-deps.sh

$(STAMP): pyproject.toml scripts/post-install.sh
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "boardwright needs Python 3.11 or newer as $(PYTHON) (make PYTHON=python3.11 ...)" >&2; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
		echo "boardwright: cannot create $(VENV); on Debian run as root:" >&2; \
		echo "  apt-get install -y --no-install-recommends python3-venv" >&2; exit 1; }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all,test]'
	bash scripts/post-install.sh
	@touch $(STAMP)

bench: bootstrap
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) instance .pytest_cache build
