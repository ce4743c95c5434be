"""``gatedrnn.gates``: a trained model's named gates and states on any text.

The arrays are those the workflow's gate tables read: recomputed from the model's own
weights by :func:`gatedrnn.analysis.gates.extract_gates` (from a zero initial state,
float32, the hidden states checked against the module's in the study's C1), so that a
statistic of them is the workflow's statistic of the same text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from gatedrnn.analysis.gates import extract_gates
from gatedrnn.api.runs import TrainedModel, load
from gatedrnn.core.data import Vocabulary
from gatedrnn.core.registry import cell_spec

# Words for the states a cell declares (LSTM c and h, otherwise h).
STATE_LABELS = {"c": "cell state", "h": "hidden state"}


@dataclass(frozen=True, eq=False)
class Gates(Mapping):
    """Named arrays of one model on one text (a mapping: ``gates["f"]``, or by label,
    ``gates["forget"]``).

    Each array is ``(characters, units)`` for one text, ``(texts, characters, units)`` for
    several; position ``t`` holds the gates that read ``chars[t]`` (and the state before
    it) and the states after it. ``names``: the gates in PyTorch's order (LSTM i, f, g, o;
    GRU r, z, n; none for the tanh RNN); ``states``: ``c`` (LSTM) and ``h``;
    ``labels``: each symbol's name in the study's tables (``f``: forget, ``z``: update,
    the fraction of the state kept).
    """

    model: str
    cell: str
    layer: int
    chars: tuple
    names: tuple[str, ...]
    states: tuple[str, ...]
    labels: dict[str, str]
    arrays: dict[str, np.ndarray]

    def __getitem__(self, key: str) -> np.ndarray:
        if key in self.arrays:
            return self.arrays[key]
        by_label = {label: symbol for symbol, label in self.labels.items()}
        if key in by_label:
            return self.arrays[by_label[key]]
        known = ", ".join(f"{s} ({self.labels[s]})" for s in self.arrays)
        raise KeyError(f"{self.model} ({self.cell}) has no gate or state {key!r}; it has {known}")

    def __iter__(self) -> Iterator[str]:
        return iter(self.arrays)

    def __len__(self) -> int:
        return len(self.arrays)


def gates(model: TrainedModel | str | os.PathLike, text: str | Sequence[str], layer: int = 0) -> Gates:
    """The named gate activations and states of ``model`` reading ``text``, as numpy arrays.

    ``model``: what :func:`gatedrnn.load` returns, or a name or path it takes. ``text``: a
    string, or several strings of one length (read side by side, each from a zero state).
    ``layer``: which layer of a stacked model (regime ``two_layers``). A character outside
    the model's vocabulary is refused (ValueError naming each one).
    """
    if not isinstance(model, TrainedModel):
        model = load(model)
    single = isinstance(text, str)
    texts = [text] if single else list(text)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("text must be a string or a list of strings")
    lengths = sorted({len(t) for t in texts})
    if lengths == [0]:
        raise ValueError("text is empty: give at least one character")
    if len(lengths) > 1:
        shown = ", ".join(map(str, lengths))
        raise ValueError(f"the texts have different lengths ({shown}); give texts of one length")
    outside = sorted(set("".join(texts)) - set(model.vocabulary))
    if outside:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in outside)
        raise ValueError(
            f"text has {len(outside)} character(s) outside the vocabulary of {model.name} "
            f"(train.vocabulary {model.config.get('vocabulary', 'corpus')!r}, {len(model.vocabulary)} "
            f"characters): {shown}; leave them out or replace them"
        )
    vocabulary = Vocabulary(model.vocabulary)
    tokens = torch.stack([vocabulary.encode(t) for t in texts])
    try:
        arrays = extract_gates(model.module, tokens, layer)
    except ValueError as err:  # a cell the extraction does not know, a layer the model lacks
        raise ValueError(f"no gates of {model.name} ({model.cell}): {err}") from None
    if single:
        arrays = {name: value[0] for name, value in arrays.items()}
    spec = cell_spec(model.cell)  # the gates and states the cell declares (docs/cells.md)
    labels = {gate: spec.label(gate) for gate in spec.gates}
    labels |= {state: STATE_LABELS.get(state, state) for state in spec.states}
    return Gates(
        model=model.name,
        cell=model.cell,
        layer=layer,
        chars=tuple(texts[0]) if single else tuple(tuple(t) for t in texts),
        names=tuple(name for name in spec.gates if name in arrays),
        states=tuple(name for name in spec.states if name in arrays),
        labels={name: labels.get(name, name) for name in arrays},
        arrays=arrays,
    )
