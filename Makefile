# Two commands set everything up: `make run` (the service on embedded defaults) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed

.PHONY: run test install services system-packages bench

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

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

test: $(STAMP) system-packages services
	$(BIN)/ruff check .
	$(PY) manage.py makemigrations --check --dry-run --settings config.settings.test
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m benchmarks
	$(PY) -m benchmarks.pricefeeds --size-mb 50
