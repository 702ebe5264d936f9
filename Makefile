# The two commands of the README's Quick start are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo trainer test train venv clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Stamp files so that a changed pyproject.toml re-installs.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed

venv: $(VENV)/.installed

# A rendered game with mistakes through the whole pipeline (`companion play --demo`): in a window where
# there is a display, else an annotated video and the prompt transcript. `make trainer`: the scripted
# terminal trainer that was the demo before the camera pipeline.
demo: $(VENV)/.installed
	$(BIN)/companion play --demo

trainer: $(VENV)/.installed
	$(BIN)/companion demo

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[train,test]'
	touch $@ $(VENV)/.installed $(VENV)/.installed-test

# Trains the recogniser's models (two index readers, the corner detector, the face reader) from the deck
# artwork into models/ (CPU; not timed here at full settings, see models/README.md).
# Needs gnome-cards-data and librsvg2-bin (apt) for the GNOME decks; KDE decks come with the train extra.
# Then measures how far the new detector's quads of still cards scatter (3 rendered games, ~3 min), for
# the watcher's starting tolerances (the manifest's "scatter").
train: $(VENV)/.installed-train
	$(BIN)/python -m companion.train --out models
	$(BIN)/python -m companion.train.scatter --models models

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
