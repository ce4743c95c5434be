"""A training job's peak resident memory, estimated from its shape (stdlib only).

Planning code (the rules, a resource check) and tests import this without torch.
The estimate, in MiB (what Snakemake's ``mem_mb`` and SLURM's ``--mem`` count), is
the larger of the job while it encodes the corpus and the job while it trains:

    encoding = baseline + corpus_chars x ENCODE_BYTES / MiB
    training = floor + [ corpus ids                    corpus_chars x 8 (int64)
                         + model state                 params x 4 x (2 + optimizer slots + 1)
                         + one training batch          batch x seq_len x 4 x (2 E + 4 V + a_cell H L)
                         + one validation pass         val_windows x seq_len x 4 x (E + 2 V + b (G + 1) H L)
                       ] / MiB

with H the width, L the layers, G the cell's gate blocks, E the embedding size, V the
vocabulary. The model state is fp32 weights, gradients, the optimizer's slots (Adam 2,
SGD's momentum 1) and one parameter-sized temporary of the foreach update. A training
batch holds, per window position, the embedding output and its gradient (2 E), the
logits, their log-softmax and both gradients (4 V), and what the recurrent layer saves
for the backward and the backward's gradients: ``a_cell`` floats per unit and layer,
fitted per cell because the implementations differ (oneDNN's LSTM keeps a workspace;
PyTorch's GRU and RNN on CPU record every time step's operations; the package's own
GRU scan keeps its gates). A validation pass runs every validation window at once
without autograd: the embedding, logits and log-softmax (E + 2 V), and ``b`` floats per
gate-or-output unit and layer (the input projection of every position, the outputs).

``floor`` (the interpreter with torch, pandas and the package imported, plus the code
pages and allocator arenas the first training step brings in), ``a_cell`` and ``b``
are fitted to measured peaks: :data:`CALIBRATION`, whose comment says how.
"""

from __future__ import annotations

from gatedrnn.core.sizes import GATE_BLOCKS, model_parameters

MIB = 1 << 20
FLOAT = 4  # fp32
INT64 = 8

# Optimizer state per parameter (fp32 tensors): Adam's two moments, SGD's momentum.
OPTIMIZER_SLOTS = {"adam": 2, "sgd": 1}
# Parameter-sized temporaries of the foreach update and the gradient clip.
UPDATE_TEMPORARIES = 1
# Bytes per corpus character while it is encoded (gatedrnn.core.data.Vocabulary.encode):
# the text (1, ASCII), its UTF-32 code points (4), their clipped copy (4) and the int64
# ids (8); measured: 81 MiB over the import baseline for 5,000,000 characters (17.0).
ENCODE_BYTES = 17

# Fitted to peak RSS (ru_maxrss, os.wait4) of 17 real training processes on one thread:
# `python -m gatedrnn.train.memory_calibration --fit` (torch 2.13.0 CPU build, Linux
# x86-64, glibc), each the train rule's code (gatedrnn.train.pipeline.train_one, imports
# as a rule script's) for 4 steps with 2 validations on a generated 5,000,000-character
# corpus of 84 symbols (the real corpus's shape); batch 32 x 128, 128 validation windows,
# embed 128, Adam, unless the case varies one: lstm at widths 64, 325, 686, 1024, and at
# 325 with sgd, 2 layers, batch 64, 512 validation windows, a 60,000-character corpus; gru
# 128, 377, 686; rnn 128, 686; cho_gru 128, 377; gru_noreset 470. Least squares on floor,
# b and a per cell. Measured 255 MiB for the imports alone (baseline: torch, pandas, the
# package, snakemake.script) and 336 MiB with the corpus encoded; 501 MiB for the study's
# LSTM (width 325), as the real jobs' benchmarks (500-580 MB). The fit's error: within
# 5 % on the fitted cases but the 2-layer LSTM (+10.6 %, an overestimate); on five held-out
# cases (lstm 512, gru 593, a 2-layer gru, rnn 325 with 256 validation windows, a smoke
# job) -6.6 % to +10.0 % (glibc's arenas make a peak jump by tens of MiB between close
# shapes: gru 593 peaked as high as gru 686). Ask for the estimate plus 20 %.
# `python -m gatedrnn.train.memory_calibration --recorded --fit` prints every case's error.
CALIBRATION = {
    "baseline_mib": 254.9,
    "floor_mib": 339.3,
    "val_units": 0.362,  # b
    # a_cell: floats per unit and layer per training position (the LSTM's close to its count
    # of 2 x 4 gates + 3 states; PyTorch's CPU GRU and RNN, and the package's scans, more)
    "train_units": {"lstm": 10.54, "gru": 21.08, "rnn": 11.94, "cho_gru": 29.97, "gru_noreset": 23.17},
}

# A cell the calibration has not measured (a plug-in, cifg, mingru) is estimated with the
# largest fitted a_cell (the package's own scans) and this many gate blocks: an overestimate
# for a small cell, never a job that runs out of memory for want of a fit.
UNFITTED_BLOCKS = 4


def memory_terms(
    *,
    cell: str,
    width: int,
    vocab_size: int,
    corpus_chars: int,
    embed_dim: int = 128,
    layers: int = 1,
    batch_size: int = 32,
    seq_len: int = 128,
    val_windows: int = 128,
    optimizer: str = "adam",
    readout_norm: str = "layernorm",
) -> dict[str, float]:
    """The estimate's terms in bytes: ``counted`` (ids, state, the embedding, vocabulary
    and read-out normalisation parts of a batch and a validation pass), ``train_units``
    (bytes per unit of ``a_cell``) and ``val_units`` (per unit of ``b``), and ``encoding``."""
    sizes = {"width": width, "vocab_size": vocab_size, "embed_dim": embed_dim, "layers": layers,
             "batch_size": batch_size, "seq_len": seq_len, "val_windows": val_windows}  # fmt: skip
    for name, value in sizes.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if corpus_chars < 0:
        raise ValueError(f"corpus_chars must be non-negative, got {corpus_chars}")
    if optimizer not in OPTIMIZER_SLOTS:
        raise ValueError(f"unknown optimizer {optimizer!r}; choose one of {', '.join(OPTIMIZER_SLOTS)}")
    params = model_parameters(cell, width, vocab_size, embed_dim, layers, readout_norm)
    train_positions = batch_size * seq_len
    val_positions = val_windows * seq_len
    # LayerNorm's output, and in training its gradient, one H-vector per position (counted,
    # not calibrated: the calibration's models had none)
    norm_train, norm_val = (2, 1) if readout_norm == "layernorm" else (0, 0)
    counted = (
        corpus_chars * INT64
        + params * FLOAT * (2 + OPTIMIZER_SLOTS[optimizer] + UPDATE_TEMPORARIES)
        + train_positions * FLOAT * (2 * embed_dim + 4 * vocab_size + norm_train * width)
        + val_positions * FLOAT * (embed_dim + 2 * vocab_size + norm_val * width)
    )
    return {
        "counted": counted,
        "train_units": train_positions * FLOAT * width * layers,
        "val_units": val_positions * FLOAT * (GATE_BLOCKS.get(cell, UNFITTED_BLOCKS) + 1) * width * layers,
        "encoding": corpus_chars * ENCODE_BYTES,
    }


def estimate_train_peak_mb(*, cell: str, calibration: dict | None = None, **shape) -> float:
    """Estimated peak resident memory (MiB) of one training job of this shape.

    ``shape``: ``width``, ``vocab_size``, ``corpus_chars`` and optionally ``embed_dim``,
    ``layers``, ``batch_size``, ``seq_len``, ``val_windows``, ``optimizer``, ``readout_norm`` (the train
    config's keys, defaults the study's). ``calibration`` overrides :data:`CALIBRATION`.
    """
    c = CALIBRATION | (calibration or {})
    terms = memory_terms(cell=cell, **shape)
    encoding = c["baseline_mib"] + terms["encoding"] / MIB
    training = (
        c["floor_mib"]
        + (
            terms["counted"]
            + c["train_units"].get(cell, max(c["train_units"].values())) * terms["train_units"]
            + c["val_units"] * terms["val_units"]
        )
        / MIB
    )
    return max(encoding, training)
