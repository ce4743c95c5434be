"""The training protocol as plain data, and the hashes that tie a saved state to it.

A checkpoint is resumed only by the run that wrote it (:func:`config_hash`: every
key of the protocol and the run's identity). A shorter run's final state may start a
longer run of the same protocol (:func:`prefix_hash`: every key but ``steps``;
:func:`prefix_state_problem`: only states the longer run itself passes through).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from gatedrnn.core.sizes import readout_norm_problem
from gatedrnn.core.vocabularies import VOCABULARIES, unknown_vocabulary


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides a trained model's bytes (but the data and the seed)."""

    optimizer: str = "adam"  # adam | sgd (SGD with momentum)
    lr: float = 2e-3
    momentum: float = 0.9  # SGD only
    batch_size: int = 32
    seq_len: int = 128
    steps: int = 800
    clip_norm: float = 1.0
    weight_decay: float = 0.0  # L2 on every parameter, in the optimizer's gradient (adam and sgd)
    eval_every: int = 50
    val_windows: int = 128
    embed_dim: int = 128
    layers: int = 1
    forget_bias: float | None = None  # LSTM only: bias_ih forget slice = b, bias_hh's = 0
    readout_norm: str = "layernorm"  # layernorm | none: between the recurrent layer and the read-out
    vocabulary: str = "printable"  # printable (string.printable, V = 100) | corpus (its own characters)

    def __post_init__(self):
        if self.optimizer not in ("adam", "sgd"):
            raise ValueError(f"unknown optimizer {self.optimizer!r}; choose adam or sgd")
        for name in ("batch_size", "seq_len", "steps", "eval_every", "val_windows"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if not self.weight_decay >= 0:
            raise ValueError(f"weight_decay must be 0 or more, got {self.weight_decay}")
        if problem := readout_norm_problem(self.readout_norm):
            raise ValueError(problem)
        if self.vocabulary not in VOCABULARIES:
            raise ValueError(unknown_vocabulary(self.vocabulary))


def hashed_protocol(cfg: TrainConfig) -> dict:
    """The protocol's keys as hashed: a key added later is left out at its default value
    (``weight_decay`` 0), so that a protocol without it hashes as before the key existed
    and the checkpoints and final states written then still resume and prefix runs."""
    train = asdict(cfg)
    if train["weight_decay"] == 0:
        del train["weight_decay"]
    return train


def config_hash(payload: dict) -> str:
    """sha256 of a canonical JSON rendering: what a checkpoint must match to be resumed."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def prefix_hash(cfg: TrainConfig, identity: dict | None) -> str:
    """The checkpoint hash without ``steps``: shared by runs that differ only in length.

    Safe because nothing in the loop reads ``steps`` but where to stop and the extra
    validation at the last step (the learning rate is constant); which states
    of another length may be used is :func:`prefix_state_problem`'s to say.
    """
    train = hashed_protocol(cfg)
    del train["steps"]
    return config_hash({"train": train, "identity": identity or {}})


def prefix_state_problem(state: dict, cfg: TrainConfig, expected_prefix_hash: str) -> str | None:
    """Why ``state`` (a checkpoint or final state of a run of maybe another length) is not
    this run's state at its step; None when it is.

    Two runs that differ only in ``steps`` are identical step for step up to the
    shorter's end, except that each validates at its own last step (and resets its
    training-loss window there). So a state at step k serves a run of ``cfg.steps``
    when k <= cfg.steps, and, unless k is on the validation grid (k % eval_every == 0),
    k is the last step of both runs or of neither.
    """
    if state.get("prefix_hash") != expected_prefix_hash:
        return "it belongs to another configuration (protocol, data, model or seed)"
    step, source_steps = state.get("step"), state.get("steps")
    if not isinstance(step, int) or not isinstance(source_steps, int):
        return "it does not say at which step of how many it was taken"
    if step > cfg.steps:
        return f"it is at step {step}, past this run's {cfg.steps} steps"
    if step % cfg.eval_every and (step == source_steps) != (step == cfg.steps):
        return (
            f"its step {step} is off the validation grid (eval_every {cfg.eval_every}) and the last "
            "step of one run only"
        )
    return None


def trained_vocabulary(summary: dict) -> str:
    """The vocabulary (train.vocabulary) a trained model reads: its summary's; a summary
    written before the key existed is of a model of the corpus's own characters."""
    return summary["train_config"].get("vocabulary", "corpus")


def shared_vocabulary(summaries, what: str) -> str:
    """The one vocabulary every model of ``summaries`` reads (a table that feeds them one
    token array needs it); refused, naming the models, when they differ."""
    found = {}
    for summary in summaries:
        found.setdefault(trained_vocabulary(summary), []).append(
            f"{summary.get('regime')}/{summary['model']}"
        )
    if len(found) > 1:
        listed = "; ".join(f"{name}: {', '.join(models)}" for name, models in found.items())
        raise ValueError(
            f"{what} reads one probe set, but its models read different vocabularies ({listed}); "
            "give the regimes it compares the same train.vocabulary"
        )
    if not found:
        raise ValueError(f"{what} has no models")
    return next(iter(found))
