"""The training job's memory estimate (gatedrnn.core.memory): stdlib only, monotonic in
every dimension of a job's shape, and the formula it documents, checked by hand."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gatedrnn.core import memory
from gatedrnn.core.memory import MIB, estimate_train_peak_mb, memory_terms, model_parameters

STUDY = {"width": 325, "vocab_size": 100, "corpus_chars": 5_000_000}  # the study's LSTM on the real corpus
SHAPE_KEYS = (
    "width",
    "vocab_size",
    "corpus_chars",
    "embed_dim",
    "layers",
    "batch_size",
    "seq_len",
    "val_windows",
)
DEFAULTS = {"embed_dim": 128, "layers": 1, "batch_size": 32, "seq_len": 128, "val_windows": 128}


def test_imports_without_torch():
    probe = "import sys, gatedrnn.core.memory; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe]).returncode == 0


@pytest.mark.parametrize("cell", sorted(memory.GATE_BLOCKS))
def test_parameter_count_is_the_models(cell):
    from gatedrnn.core.model import CharModel, count_parameters

    for width, vocab, embed, layers in [(1, 2, 1, 1), (24, 52, 16, 1), (40, 84, 32, 2)]:
        built = CharModel(vocab, cell, width, embed, layers)
        assert model_parameters(cell, width, vocab, embed, layers) == count_parameters(built)


def test_a_tiny_case_by_hand():
    """rnn, width 2, vocab 3, embed 2, one layer, 10 characters, batch 1 x 1, 1 window, Adam."""
    shape = dict(cell="rnn", width=2, vocab_size=3, corpus_chars=10, embed_dim=2, layers=1, batch_size=1,
                 seq_len=1, val_windows=1, optimizer="adam", readout_norm="none")  # fmt: skip
    params = 3 * 2 + (2 * 2 + 2 * 2 + 2 * 2) + (2 * 3 + 3)  # embedding, W_ih W_hh 2 biases, head
    assert params == model_parameters("rnn", 2, 3, 2, 1, "none") == 27
    counted = (
        10 * 8  # the int64 ids
        + 27 * 4 * (2 + 2 + 1)  # weights, grads, Adam's two moments, one update temporary
        + 1 * 4 * (2 * 2 + 4 * 3)  # a batch position: embedding + grad, logits, log-softmax + grads
        + 1 * 4 * (2 + 2 * 3)  # a validation position: embedding, logits, log-softmax
    )
    assert counted == 716
    terms = memory_terms(**{k: v for k, v in shape.items()})
    assert terms == {"counted": 716, "train_units": 1 * 4 * 2 * 1, "val_units": 1 * 4 * (1 + 1) * 2 * 1,
                     "encoding": 10 * 17}  # fmt: skip
    calibration = {"baseline_mib": 0.0, "floor_mib": 1.0, "val_units": 2.0, "train_units": {"rnn": 3.0}}
    assert estimate_train_peak_mb(**shape, calibration=calibration) == 1.0 + (716 + 3 * 8 + 2 * 16) / MIB
    # the corpus's encoding dominates a job whose model is nothing beside its text
    big_text = shape | {"corpus_chars": 100_000_000}
    calibration["floor_mib"] = 0.0
    assert estimate_train_peak_mb(**big_text, calibration=calibration) == 100_000_000 * 17 / MIB
    # the study's LayerNorm: a gain and a shift per unit, its output (and in training its
    # gradient) per position
    normed = memory_terms(**(shape | {"readout_norm": "layernorm"}))
    assert model_parameters("rnn", 2, 3, 2, 1, "layernorm") == 27 + 2 * 2
    assert (
        normed["counted"]
        == 10 * 8 + 31 * 4 * 5 + 1 * 4 * (2 * 2 + 4 * 3 + 2 * 2) + 1 * 4 * (2 + 2 * 3 + 2)
        == 820
    )


@pytest.mark.parametrize("cell", sorted(memory.GATE_BLOCKS))
@pytest.mark.parametrize("key", SHAPE_KEYS)
def test_more_of_anything_needs_more_memory(cell, key):
    base = STUDY | DEFAULTS
    smaller = estimate_train_peak_mb(cell=cell, **base)
    larger = estimate_train_peak_mb(cell=cell, **(base | {key: base[key] * 2}))
    assert larger > smaller


def test_adam_needs_more_than_sgd():
    assert estimate_train_peak_mb(cell="lstm", **STUDY) > estimate_train_peak_mb(
        cell="lstm", optimizer="sgd", **STUDY
    )


def test_the_study_lstm_is_near_its_measured_peak():
    """Measured 501 MiB (python -m gatedrnn.train.memory_calibration) on the calibration's
    model (84 characters, no LayerNorm); real jobs 500-580 MB."""
    estimate = estimate_train_peak_mb(cell="lstm", **(STUDY | {"vocab_size": 84, "readout_norm": "none"}))
    assert abs(estimate - 501) / 501 < 0.05
    assert estimate < 4000 / 5  # config.yaml's train.mem_mb asks for over five times as much


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"width": 0}, "width must be at least 1"),
        ({"batch_size": -1}, "batch_size must be at least 1"),
        ({"corpus_chars": -5}, "corpus_chars must be non-negative"),
        ({"optimizer": "rmsprop"}, "unknown optimizer"),
        ({"cell": "transformer"}, "unknown cell"),
    ],
)
def test_bad_shapes_are_refused(change, message):
    with pytest.raises(ValueError, match=message):
        estimate_train_peak_mb(**({"cell": "lstm"} | STUDY | change))


def test_the_constants_are_the_fit_of_the_recorded_peaks():
    """CALIBRATION is what `python -m gatedrnn.train.memory_calibration --recorded --fit` gives,
    and every recorded peak, fitted or held out, is within 11 % of its estimate."""
    from gatedrnn.train.memory_calibration import BASE, CASES, RECORDED, estimate, fit

    rows = [(BASE | case, float(measured)) for case, measured in zip(CASES, RECORDED, strict=True)]
    assert fit(rows) == memory.CALIBRATION
    errors = {str(case): (estimate(case) - measured) / measured for case, measured in rows}
    assert all(abs(error) < 0.11 for error in errors.values()), errors
    assert sum(bool(case.get("held_out")) for case, _ in rows) == 5
