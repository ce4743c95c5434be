"""The ``gates`` rule: a trained model's gates on the probe set, saved and checked (C1).

The probe set is read from the corpus and the model run here (torch); what is
saved is read back by :mod:`gatedrnn.tables.gates` without torch.

Choices fixed here (the README repeats them):

- The probe set is :func:`gatedrnn.core.data.probe_windows` over the validation split
  (config ``probe.lines`` x ``probe.length``; the study's 32 x 128). The
  perturbation measures need ``probe.length >= CHANGE_POSITION + DECAY_STEPS + 1``
  (97); a shorter probe is an error, not a silently shorter curve.
- The manual step check (C1) is taken by :func:`write_probe_gates` on the same
  probe set as the saved gates, on the CPU in float32. ``max_abs_diff`` is the
  larger of the hidden-state and final cell-state differences (absolute, as the
  study printed it); a model whose hidden states, or whose cell state relative to
  its size, differ from the module's by ``CHECK_TOLERANCE`` or more is an error
  (its gates would not be its own).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import torch

from gatedrnn.analysis.gate_files import save_gates
from gatedrnn.analysis.gates import extract_gates, manual_step_check
from gatedrnn.core.data import probe_windows
from gatedrnn.io.reading import corpus_splits
from gatedrnn.train.loop import load_model

CHECK_TOLERANCE = 1e-5


def probe_set(corpus_path, provenance_path, train_fraction: float, lines: int, length: int, vocabulary: str):
    """The probe set: token ids ``(lines, length)`` in the models' vocabulary
    ``vocabulary`` (train.vocabulary) and the text of each line."""
    vocab, _, val_ids, _ = corpus_splits(corpus_path, provenance_path, train_fraction, vocabulary)
    tokens = probe_windows(val_ids, lines, length)
    return tokens, [vocab.decode(row) for row in tokens]


def write_probe_gates(
    model_dir, tokens: torch.Tensor, lines: list[str], gates_path, check_path, log=print, corpus_sha256=None
) -> dict:
    """Extract one model's gates on the probe set, save them, and check them (C1).

    Writes ``gates_path`` (:func:`gatedrnn.analysis.gate_files.save_gates`, gates only: the
    cell's declared gates; an RNN keeps just the probe tokens and text) and
    ``check_path`` (JSON: the model's identity, :func:`gatedrnn.analysis.gates.manual_step_check`,
    ``max_abs_final_cell`` (the largest |c_T|, LSTM only) and ``max_rel_diff``).

    ``max_rel_diff`` is the hidden-state difference (h is bounded by 1) and the
    final cell-state difference divided by ``max(1, max |c_T|)``, whichever is
    larger: float32 rounding grows with the size of the cell state, so an
    absolute bound on the cell would fail a healthy model with a large state.
    The rule fails when ``max_rel_diff >= CHECK_TOLERANCE``, and when the model was
    trained on another corpus than ``corpus_sha256`` (the probe's).
    """
    model, summary = load_model(model_dir, allow_diverged=True)
    if corpus_sha256 is not None and summary.get("corpus_sha256") != corpus_sha256:
        raise ValueError(
            f"{Path(model_dir) / 'summary.json'} was trained on the corpus with sha256 "
            f"{summary.get('corpus_sha256')}, but the probe is read from the corpus with sha256 "
            f"{corpus_sha256}: its gates on this text mean nothing; delete the model's directory "
            "and rerun the workflow to retrain it on this corpus"
        )
    identity = {
        key: summary.get(key) for key in ("model", "seed", "regime", "cell", "width", "corpus_sha256")
    }
    if summary.get("cell_path"):  # a cell outside the package: how to read its gates back
        identity["cell_path"] = summary["cell_path"]
    if summary.get("diverged"):
        return write_diverged_probe(summary, tokens, lines, gates_path, check_path, log, identity)
    gates = extract_gates(model, tokens)
    check = {
        "model": summary["model"],
        "seed": summary["seed"],
        "cell": summary["cell"],
        "width": summary["width"],
        "regime": summary.get("regime", Path(model_dir).parent.name),
        **manual_step_check(model, tokens),
    }
    if "c" in gates:
        scale = float(np.abs(gates["c"][:, -1]).max())
        relative_cell = check["max_abs_diff_final_cell"] / max(1.0, scale)
    else:
        scale, relative_cell = float("nan"), 0.0
    check["max_abs_final_cell"] = scale
    check["max_rel_diff"] = max(check["max_abs_diff_hidden"], relative_cell)
    log(json.dumps(check))
    if not check["max_rel_diff"] < CHECK_TOLERANCE:
        raise ValueError(
            f"{model_dir}: recomputed states differ from the module's by {check['max_abs_diff']:.3g} "
            f"(relative {check['max_rel_diff']:.3g}, tolerance {CHECK_TOLERANCE:g}); the gates would "
            "not be the model's own"
        )
    save_gates(gates_path, gates, tokens, lines, summary["cell"], keys=model.spec.gates, identity=identity)
    # strict JSON: a quantity the cell does not have (the RNN's and GRU's cell state) is null
    check = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in check.items()}
    Path(check_path).write_text(json.dumps(check, indent=2, allow_nan=False) + "\n")
    return check


def write_diverged_probe(
    summary: dict, tokens, lines, gates_path, check_path, log=print, identity=None
) -> dict:
    """A model whose training diverged has no gates worth reading: its gates file holds
    the probe alone (no gate arrays) and its check says ``diverged`` and at which step,
    so that the tables that read it can skip it and name it."""
    check = {key: summary.get(key) for key in ("model", "seed", "cell", "width", "regime")}
    check |= {"diverged": True, "diverged_at_step": summary.get("diverged_at_step")}
    log(f"WARNING: {summary['model']} (regime {check['regime']}) diverged at step "
        f"{check['diverged_at_step']}: no gates extracted")  # fmt: skip
    save_gates(gates_path, {}, tokens, lines, summary["cell"], keys=(), identity=identity)
    Path(check_path).write_text(json.dumps(check, indent=2) + "\n")
    return check
