"""Conventions every layer shares, written once: gate order, the keep gate, model names.

- Gate order is PyTorch's chunk order in a layer's weights: ``nn.LSTM`` i, f, g, o;
  ``nn.GRU`` r, z, n. A GRU's z is the fraction of the state KEPT
  (``h' = z h + (1 - z) n``).
- The keep gate (LSTM f, GRU z) is the gate whose per-unit mean sets a unit's
  half-life. Each cell declares its gates, states, keep gate and coupling candidates
  (:mod:`gatedrnn.core.registry`, :mod:`gatedrnn.core.interface`).
- A model is named ``<cell>_<width token>_s<seed>``: the width token is ``w<H>``
  (literal width H) or ``budget<R>`` (the largest width with no more parameters
  than the LSTM of width R). Cells may hold "_" (``gru_noreset``).
"""

from __future__ import annotations

import re

from gatedrnn.core.registry import cell_name

WIDTH_TOKEN = re.compile(r"^(?:w(?P<literal>[1-9][0-9]*)|budget(?P<budget>[1-9][0-9]*))$")
# A model directory or gates file: <model id>_s<seed>[.npz].
MODEL_FILE = re.compile(r"^(?P<model>[a-z][a-z_]*_(?:w|budget)\d+)_s(?P<seed>\d+)(\.npz)?$")


def width_token(width: int | str, reference_width: int) -> str:
    """Config width to file-name token: 325 -> ``w325``; ``"budget"`` -> ``budget<reference>``."""
    if width == "budget":
        return f"budget{reference_width}"
    return f"w{width}"


def model_id(cell: str, width: int | str, reference_width: int) -> str:
    """``<cell>_<width token>``, e.g. ``gru_budget325``; a cell named by import path
    goes by its class name in lower case (``tests.cells:JANET`` -> ``janet_budget325``)."""
    return f"{cell_name(cell)}_{width_token(width, reference_width)}"


def run_name(model: str, seed: int) -> str:
    """One trained model of one seed: ``<model id>_s<seed>`` (a directory or file stem)."""
    return f"{model}_s{seed}"
