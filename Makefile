PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAMPLE ?= sample_images/sample_board.jpg
PORT ?= 8501

.PHONY: run test lint typecheck pytest train evaluate bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	@echo "The scoring page: http://localhost:$(PORT)  (Ctrl+C stops it)"
	@ip=$$(hostname -I 2>/dev/null | awk '{print $$1}'); \
	  [ -z "$$ip" ] || echo "From a phone on the same network: http://$$ip:$(PORT)"
	@( sleep 4; $(BIN)/python -m webbrowser -t http://localhost:$(PORT) >/dev/null 2>&1 || true ) &
	KINGDOMINO_SAMPLE=$(SAMPLE) $(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check scorer tests app.py
	$(BIN)/ruff format --check scorer tests app.py

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest scorer tests

train: $(STAMP)
	$(BIN)/python -m scorer.train

evaluate: $(STAMP)
	$(BIN)/python -m scorer.evaluate

bench: $(STAMP)
	$(BIN)/python -m scorer.bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
