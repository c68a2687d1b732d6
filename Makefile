# Two entry points on a fresh machine (Python >= 3.11): `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?= -n 2

.PHONY: run demo test figures docs notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The compiled hot loop (setup.py, docs/decisions.md D420-D424) is built by the install: a changed source reinstalls.
COMPILED := setup.py $(wildcard cer_theory/engines/core/*.pyx cer_theory/engines/core/*.pxd)

$(VENV)/.installed: pyproject.toml $(COMPILED) | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[spark]'
	touch $@

$(VENV)/.installed-test: pyproject.toml $(COMPILED) | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

# The main job: a CEQL query over the bundled stock trades on local Spark (any cluster: MASTER=spark://host:7077),
# complex events written to output/, checked against the single-process engine.
MASTER ?= local[*]
run: $(VENV)/.installed
	PYTHONWARNINGS=ignore $(BIN)/cer-theory spark --sample --master '$(MASTER)' --output output --overwrite --check

# The CEL paper's running example: semantics and automaton side by side; writes figures/phi3_cea.svg (with the `dot`
# program if present, else Graphviz in WebAssembly from PyPI: no system package needed).
demo: $(VENV)/.installed
	$(BIN)/cer-theory demo

# CORE's pycer (the conformance tests' and benchmarks' peer) ships CPython 3.13 wheels only: a 3.13 venv with
# pycer from PyPI, made once from a 3.13 already on the machine (pyenv, PATH). Without one this says so in one
# line, and fails when CI is set, so the pycer tests never skip in CI.
PYCER_PYTHON := $(HOME)/.cache/cer_theory/pycer-py313/bin/python
$(PYCER_PYTHON): | $(VENV)/.installed-test
	@$(BIN)/python -m cer_theory.conformance.pycer_env

# The test suite, with the deterministic hypothesis profile "ci" (HYPOTHESIS_PROFILE=deep for long runs); the
# engine runs its compiled hot loop where the install built it (CER_THEORY_PURE=1 runs the readable loop).
test: $(VENV)/.installed-test $(PYCER_PYTHON)
	$(BIN)/python -m pytest proofs_tests $(PYTEST_ARGS)

# The documentation site (Sphinx, from the docstrings, the guides and the notebooks), warnings as errors:
# docs/_build/html/index.html.
$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html

# The notebooks executed top to bottom, their outputs stored in place (the documentation site shows them).
notebooks: $(VENV)/.installed-test
	$(BIN)/python notebooks/execute.py

figures: $(VENV)/.installed
	$(BIN)/cer-theory figures

clean:
	rm -rf $(VENV) build *.egg-info cer_theory/engines/core/*.so cer_theory/engines/core/*.c docs/_build docs/notebooks .pytest_cache .hypothesis output output.rejected
