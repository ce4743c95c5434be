"""What the benchmarks measure: the vocabulary, the grid's widths, the threads (computed, never typed in).

- **Vocabulary size V**: the number of distinct characters of ``data/corpus.txt``
  when the workflow has made it (84 for the default corpus); otherwise that of
  the workflow's own synthetic corpus, :func:`gatedrnn.io.synthetic.synthetic_prose`
  with ``corpus.synthetic_chars`` and ``corpus.synthetic_seed`` of
  ``config/config.yaml`` (what the ``corpus`` rule writes with ``source:
  synthetic``; 52 at the defaults). ``--vocab N`` overrides both.
- **Widths**: the ``grid`` of ``config/config.yaml`` (cells, integer widths and
  ``budget``), resolved on that V with :func:`gatedrnn.core.widths.resolve_width`
  and the config's ``grid.reference_width``, as the workflow resolves them.
- **Threads**: ``train.threads`` of ``config/config.yaml`` (the protocol's), else 1.

The token ids a benchmark trains on are uniform random ids below V: a step's
cost depends on V and the widths, not on the text.
"""

from __future__ import annotations

import contextlib
import dataclasses
from functools import cache
from pathlib import Path

import torch
import yaml

from gatedrnn.core.data import Vocabulary
from gatedrnn.core.widths import REFERENCE_CELL, matched_width, resolve_width
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.config import TrainConfig

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "config" / "config.yaml"
CORPUS = REPO / "data" / "corpus.txt"
SEED = 0


@dataclasses.dataclass(frozen=True)
class BenchVocab:
    size: int
    source: str  # where the size comes from, for the tables' headers


@cache
def load_config(path: Path = CONFIG) -> dict:
    return yaml.safe_load(Path(path).read_text())


def bench_vocab(corpus: Path = CORPUS, config: dict | None = None) -> BenchVocab:
    """V of ``corpus`` when it exists, else of the config's synthetic corpus (see the module's docstring)."""
    corpus = Path(corpus)
    if corpus.exists():
        size = len(Vocabulary.from_text(corpus.read_text(encoding="utf-8")))
        return BenchVocab(size, str(corpus.relative_to(REPO) if corpus.is_relative_to(REPO) else corpus))
    spec = (config or load_config())["corpus"]
    chars, seed = int(spec["synthetic_chars"]), int(spec["synthetic_seed"])
    size = len(Vocabulary.from_text(synthetic_prose(chars, seed)))
    return BenchVocab(size, f"no data/corpus.txt: the synthetic corpus, {chars} chars, seed {seed}")


def given_or_found(vocab: int | None) -> BenchVocab:
    """``--vocab`` when the command line gave it, else :func:`bench_vocab`."""
    return BenchVocab(vocab, "--vocab") if vocab is not None else bench_vocab()


def reference_width(config: dict | None = None) -> int:
    return int((config or load_config())["grid"]["reference_width"])


def _shape() -> tuple[int, int]:
    cfg = TrainConfig()  # the models the benchmarks build
    return cfg.embed_dim, cfg.layers


def grid_models(vocab: int, config: dict | None = None) -> list[tuple[str, int]]:
    """(cell, width) of every model of the config's grid, its widths resolved on V = ``vocab``."""
    config = config or load_config()
    ref = reference_width(config)
    embed, layers = _shape()
    models = []
    for entry in config["grid"]["models"]:
        width = entry["width"]
        token = f"budget{ref}" if width == "budget" else f"w{int(width)}"
        models.append((entry["cell"], resolve_width(token, entry["cell"], vocab, embed, layers)))
    return models


def budget_width(cell: str, vocab: int, config: dict | None = None) -> int:
    """The width of ``cell`` matched to the reference LSTM's parameters on V = ``vocab``."""
    embed, layers = _shape()
    return matched_width(cell, reference_width(config), vocab, embed, layers)


def reference_models(config: dict | None = None) -> list[tuple[str, int]]:
    """The reference LSTM alone."""
    return [(REFERENCE_CELL, reference_width(config))]


def reference_and_gru(vocab: int, config: dict | None = None) -> list[tuple[str, int]]:
    """The reference LSTM and the budget-matched GRU."""
    return reference_models(config) + [("gru", budget_width("gru", vocab, config))]


def default_threads() -> int:
    """config/config.yaml's train.threads (the protocol's), else 1."""
    with contextlib.suppress(Exception):
        return int(load_config()["train"]["threads"])
    return 1


def synthetic_split(vocab: int, n_train: int = 1_000_000, n_val: int = 100_000, seed: int = SEED):
    ids = torch.randint(0, vocab, (n_train + n_val,), generator=torch.Generator().manual_seed(seed))
    return ids[:n_train], ids[n_train:]
