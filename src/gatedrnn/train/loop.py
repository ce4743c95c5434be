"""The training loop: seeded, checkpointed atomically, resumable bit for bit.

Protocol (defaults in :class:`TrainConfig`, the study's): Adam, lr 2e-3, batch 32
windows of 128 characters drawn from the train split with a seeded generator,
gradient-norm clip 1.0, 800 steps, zero initial state per window; validation
every 50 steps on fixed, evenly spaced validation windows. A model's score is
its best validation loss (nats/char) and the step it was reached.

Seeds: the model is initialised under ``torch.manual_seed(seed)`` (inside
``torch.random.fork_rng`` so no global state leaks) and the training windows
come from a separate ``torch.Generator`` seeded with the same ``seed``. The
generator's state, the optimizer and the history travel in every checkpoint,
so a run killed at any point and resumed ends with the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import time
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from torch import nn

from gatedrnn.core.data import sample_windows, validation_windows
from gatedrnn.core.model import CharModel, count_parameters, set_forget_bias
from gatedrnn.errors import TrainingDiverged
from gatedrnn.io.files import atomic_torch_save

CHECKPOINT_NAME = re.compile(r"^checkpoint_step(\d+)\.pt$")

# A training loss above this many times ln(V) (the loss of guessing uniformly) is
# far worse than chance: the run has diverged even if the loss is still finite.
DIVERGENCE_FACTOR = 4.0


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
    eval_every: int = 50
    val_windows: int = 128
    embed_dim: int = 128
    layers: int = 1
    forget_bias: float | None = None  # LSTM only: bias_ih forget slice = b, bias_hh's = 0

    def __post_init__(self):
        if self.optimizer not in ("adam", "sgd"):
            raise ValueError(f"unknown optimizer {self.optimizer!r}; choose adam or sgd")
        for name in ("batch_size", "seq_len", "steps", "eval_every", "val_windows"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")


@dataclass
class TrainResult:
    model: CharModel
    history: list[dict] = field(default_factory=list)  # step, train_loss, val_loss
    best_val_loss: float = math.inf
    best_step: int = -1
    resumed_from: int | None = None


def config_hash(payload: dict) -> str:
    """sha256 of a canonical JSON rendering: what a checkpoint must match to be resumed."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def pick_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def set_determinism(device: torch.device) -> None:
    """Deterministic kernels where PyTorch offers a choice (cuDNN RNNs on a GPU)."""
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True)


def build_model(cell: str, hidden: int, vocab_size: int, seed: int, cfg: TrainConfig) -> CharModel:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = CharModel(vocab_size, cell, hidden, cfg.embed_dim, cfg.layers)
    if cfg.forget_bias is not None:
        set_forget_bias(model, cfg.forget_bias)
    return model


def make_optimizer(model: nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    # foreach: one multi-tensor kernel per update op instead of one per parameter (PyTorch's
    # default on CUDA, not on CPU); the same arithmetic, so the same bytes (bench/README.md).
    if cfg.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=cfg.lr, foreach=True)
    return torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum, foreach=True)


def sequence_loss(model: CharModel, windows: torch.Tensor) -> torch.Tensor:
    """Mean next-character cross-entropy (nats/char) over windows of seq_len + 1 ids."""
    logits, _ = model(windows[:, :-1])
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), windows[:, 1:].reshape(-1))


@torch.no_grad()
def evaluate(model: CharModel, windows: torch.Tensor) -> float:
    model.eval()
    loss = sequence_loss(model, windows).item()
    model.train()
    return loss


# --- checkpoints -----------------------------------------------------------------


def list_checkpoints(checkpoint_dir: Path) -> list[tuple[int, Path]]:
    """(step, path) of every checkpoint, newest first."""
    if not checkpoint_dir.is_dir():
        return []
    found = []
    for p in checkpoint_dir.iterdir():
        m = CHECKPOINT_NAME.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found, reverse=True)


def verify_archive(path: Path) -> None:
    """Raise if a file torch.save wrote fails its zip CRC-32 checks: torch.load does not
    check them, so a flipped byte in a tensor would otherwise load silently."""
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
    if bad is not None:
        raise zipfile.BadZipFile(f"CRC-32 mismatch in {bad}")


def load_latest_checkpoint(checkpoint_dir: Path, expected_hash: str, log: Callable[[str], None]):
    """The newest checkpoint that loads and matches ``expected_hash``; bad ones are
    reported and skipped (a truncated file from a kill mid-write, a foreign config)."""
    for step, path in list_checkpoints(checkpoint_dir):
        try:
            verify_archive(path)
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as err:  # truncated or corrupted: fall back to the previous one
            message = f"checkpoint {path} is unreadable ({type(err).__name__}: {err}); discarding it"
            warnings.warn(message, stacklevel=2)
            log(f"WARNING: {message}")
            path.unlink(missing_ok=True)
            continue
        if state.get("config_hash") != expected_hash or state.get("step") != step:
            message = f"checkpoint {path} belongs to another configuration; ignoring it"
            warnings.warn(message, stacklevel=2)
            log(f"WARNING: {message}")
            continue
        return state
    return None


def _prune_checkpoints(checkpoint_dir: Path, keep: int) -> None:
    for _, path in list_checkpoints(checkpoint_dir)[keep:]:
        path.unlink(missing_ok=True)


# --- the loop ----------------------------------------------------------------------


def train_model(
    *,
    cell: str,
    hidden: int,
    seed: int,
    vocab_size: int,
    train_ids: torch.Tensor,
    val_ids: torch.Tensor,
    cfg: TrainConfig,
    checkpoint_dir: Path | None = None,
    checkpoint_every: int = 100,
    identity: dict | None = None,
    device: str = "auto",
    log: Callable[[str], None] = print,
    stop_after: int | None = None,
) -> TrainResult:
    """Train one model; resume from ``checkpoint_dir`` if it holds a matching checkpoint.

    ``identity`` (cell, width, seed, corpus checksum, ...) goes into the checkpoint
    hash with ``cfg`` so a checkpoint is only ever resumed by the run that wrote it.
    ``stop_after`` ends the loop early after that step (tests use it to simulate a kill).
    """
    dev = pick_device(device)
    set_determinism(dev)
    expected_hash = config_hash({"train": asdict(cfg), "identity": identity or {}})

    model = build_model(cell, hidden, vocab_size, seed, cfg).to(dev)
    optimizer = make_optimizer(model, cfg)
    generator = torch.Generator().manual_seed(seed)
    train_ids = train_ids.to("cpu")
    val_windows = validation_windows(val_ids, cfg.val_windows, cfg.seq_len).to(dev)

    result = TrainResult(model=model)
    start_step = 0
    loss_sum, loss_count = 0.0, 0
    if checkpoint_dir is not None:
        checkpoint_dir = Path(checkpoint_dir)
        checkpoint_dir.mkdir(parents=True, exist_ok=True)
        state = load_latest_checkpoint(checkpoint_dir, expected_hash, log)
        if state is not None:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            generator.set_state(state["generator"])
            result.history = list(state["history"])
            loss_sum, loss_count = state["loss_sum"], state["loss_count"]
            start_step = state["step"]
            result.resumed_from = start_step
            log(f"resumed from checkpoint at step {start_step}")

    if start_step == 0:
        val = evaluate(model, val_windows)
        result.history.append({"step": 0, "train_loss": math.nan, "val_loss": val})
        log(f"step 0 val_loss {val:.4f}")

    model.train()
    divergence_threshold = DIVERGENCE_FACTOR * math.log(vocab_size)
    t0 = time.perf_counter()
    for step in range(start_step + 1, cfg.steps + 1):
        batch = sample_windows(train_ids, cfg.batch_size, cfg.seq_len, generator).to(dev)
        loss = sequence_loss(model, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
        optimizer.step()
        loss_value = loss.item()
        if not loss_value <= divergence_threshold:  # also catches nan
            raise TrainingDiverged(
                f"training diverged at step {step}: loss is {loss_value:.6g} nats/char, above "
                f"{DIVERGENCE_FACTOR:g} x ln(V) = {divergence_threshold:.4g} (lr {cfg.lr}, "
                f"optimizer {cfg.optimizer}); lower the learning rate"
            )
        loss_sum += loss_value
        loss_count += 1

        if step % cfg.eval_every == 0 or step == cfg.steps:
            val = evaluate(model, val_windows)
            train_loss = loss_sum / loss_count
            result.history.append({"step": step, "train_loss": train_loss, "val_loss": val})
            loss_sum, loss_count = 0.0, 0
            rate = (step - start_step) / (time.perf_counter() - t0)
            log(f"step {step} train_loss {train_loss:.4f} val_loss {val:.4f} ({rate:.2f} steps/s)")

        if checkpoint_dir is not None and step % checkpoint_every == 0 and step < cfg.steps:
            atomic_torch_save(
                {
                    "step": step,
                    "config_hash": expected_hash,
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "generator": generator.get_state(),
                    "history": result.history,
                    "loss_sum": loss_sum,
                    "loss_count": loss_count,
                },
                checkpoint_dir / f"checkpoint_step{step}.pt",
            )
            _prune_checkpoints(checkpoint_dir, keep=2)
        if stop_after is not None and step >= stop_after:
            break

    best = min(result.history, key=lambda row: (row["val_loss"], row["step"]))
    result.best_val_loss, result.best_step = best["val_loss"], best["step"]
    model.to("cpu")
    return result


def environment_versions() -> dict:
    return {"python": platform.python_version(), "torch": torch.__version__}


def summarise(result: TrainResult, *, cell: str, width: int, seed: int, extra: dict) -> dict:
    return {
        "cell": cell,
        "width": width,
        "seed": seed,
        "params": count_parameters(result.model),
        "best_val_loss": result.best_val_loss,
        "best_step": result.best_step,
        "final_val_loss": result.history[-1]["val_loss"],
        **extra,
        "versions": environment_versions(),
    }


def load_model(model_dir: str | os.PathLike) -> tuple[CharModel, dict]:
    """A trained model and its summary from a ``results/models/...`` directory."""
    model_dir = Path(model_dir)
    summary = json.loads((model_dir / "summary.json").read_text())
    weights = model_dir / "model.pt"
    try:
        verify_archive(weights)
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception as err:
        raise RuntimeError(
            f"{weights} cannot be read ({type(err).__name__}: {err}); it is truncated or "
            "corrupted: delete it and rerun the workflow to retrain that model"
        ) from None
    cfg = summary["train_config"]
    model = CharModel(
        summary["vocab_size"], summary["cell"], summary["width"], cfg["embed_dim"], cfg["layers"]
    )
    model.load_state_dict(state)
    model.eval()
    return model, summary
