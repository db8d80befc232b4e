# citegraph: the two quick-start commands and a few helpers.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test lint check install install-dev neo4j-start neo4j-stop clean

$(BIN)/python:
	@PYTHON=$(PYTHON) bash scripts/prerequisites demo
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

## install: the package, with the embedded views' graph library and GraphiQL vendored from npm (scripts/vendor-js)
install: $(BIN)/python
	bash scripts/vendor-js
	$(BIN)/pip install --quiet -e .

install-dev: $(BIN)/python
	bash scripts/vendor-js
	$(BIN)/pip install --quiet -e '.[dev]'

## demo: ingest the bundled seeds into the embedded store and serve the start page, REST, GraphiQL and the docs on :8000
demo: install
	$(BIN)/citegraph ingest corpus/seeds
	$(BIN)/citegraph rests-on RT-RTE-mcp-write --set tolaria
	$(BIN)/citegraph serve --port 8000

## test: check the prerequisites (scripts/prerequisites), install everything, start a real Neo4j (no Docker
## needed) and run the whole suite
test:
	@PYTHON=$(PYTHON) bash scripts/prerequisites test
	$(MAKE) install-dev
	bash scripts/test

## lint: ruff, mypy and import-linter, each configured in pyproject.toml; any finding fails
lint:
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports pyproject.toml

## check: the edit-test loop: lint, then the tests and doctests that need neither Neo4j nor a browser
## (neo4j-marked tests, *_browser.py files and the slow wheel builds left out; `make test` runs them all)
## Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: the suite imports ~470 modules in each
## worker and in every `citegraph` process it starts, and compiling them again costs ~5 s of CPU per worker.
check: lint
	env -u CITEGRAPH_NEO4J_URI -u PYTHONDONTWRITEBYTECODE -u CITEGRAPH_REQUIRE_NEO4J -u CITEGRAPH_REQUIRE_BROWSER \
	  $(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist worksteal -m "not slow and not neo4j" --ignore-glob='*_browser.py' \
	  --doctest-modules citegraph domain graph ingest queries render app tests

neo4j-start:
	docker/neo4j-local/start

neo4j-stop:
	docker/neo4j-local/stop

clean:
	rm -rf $(VENV) .citegraph .pytest_cache node_modules app/embed/static/vendor
