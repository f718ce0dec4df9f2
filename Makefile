# Two commands do all the set-up: `make demo` and `make test` build .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV := $(VENV)/.dev-installed
CHECKED := src tests benchmarks

# Test workers (pytest-xdist): whole files to a worker, the Ray files to one (tests/conftest.py).
TEST_WORKERS ?= 2

.PHONY: demo test test-slow lint bench clean

# torch is installed first and by exact version, so pip takes this machine's CPU build of
# 2.13.0 and nothing later asks for another torch (which would pull CUDA packages).
$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEV): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

demo: $(RUNTIME)
	$(BIN)/poolshark demo

lint: $(DEV)
	$(BIN)/ruff check $(CHECKED)
	$(BIN)/ruff format --check $(CHECKED) README.md docs
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

test-slow: $(DEV)
	$(BIN)/pytest -m slow

# Every benchmark's quick run (each under a minute or so), in name order.
bench: $(DEV)
	@for script in $(filter-out benchmarks/common.py,$(sort $(wildcard benchmarks/*.py))); do \
		echo "== $$script --quick"; $(BIN)/python $$script --quick || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
