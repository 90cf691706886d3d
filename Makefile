# Two commands set everything up: `make run` (the service on embedded defaults) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed

.PHONY: run test install services system-packages bench focus-validator

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The FinOps Foundation's FOCUS validator, which the FOCUS export tests run. Its only release
# (1.0.0) needs numpy<2 and pandas<3, which conflict with the project's pins, so it lives in a
# virtualenv of its own; multimethod 1.10 is the last its pandera 0.17 imports, pyarrow 20 the
# last that reads Parquet with numpy 1.
FOCUS_VENV := .venv-focus
FOCUS_STAMP := $(FOCUS_VENV)/.installed
$(FOCUS_STAMP):
	test -x $(FOCUS_VENV)/bin/python || $(PYTHON) -m venv $(FOCUS_VENV)
	$(FOCUS_VENV)/bin/python -m pip install --quiet focus-validator==1.0.0 multimethod==1.10 pyarrow==20.0.0
	touch $(FOCUS_STAMP)

focus-validator: $(FOCUS_STAMP)

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_catalog
	$(PY) manage.py load_exchange_rates --since 2024-01-01
	$(PY) manage.py load_demo
	$(PY) manage.py ensure_demo_admin
	PATH="$(CURDIR)/$(BIN):$$PATH" DJANGO_SETTINGS_MODULE=config.settings.local \
		$(BIN)/honcho start -f Procfile

services:
	./scripts/ensure-services.sh

system-packages:
	./scripts/ensure-system-packages.sh

test: $(STAMP) $(FOCUS_STAMP) system-packages services
	$(BIN)/ruff check .
	$(PY) -m mypy  # strict on costmodel/; configuration and the modules still to type in pyproject.toml
	$(PY) manage.py makemigrations --check --dry-run --settings config.settings.test
	$(PY) -m pytest -n 2 --dist worksteal  # two pytest-xdist workers, one a core; an idle one takes tests queued for the other (config/settings/test.py keeps them apart)

bench: $(STAMP)
	$(PY) -m benchmarks
	$(PY) -m benchmarks.pricefeeds --size-mb 50
