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

Three things a long run needs (issues 15 and 20):

- SIGTERM (a scheduler's time limit) is deferred while the loop runs: the step in
  progress completes, a checkpoint is written at that step, and
  :class:`~gatedrnn.train.interrupt.TrainingInterrupted` is raised
  (:mod:`gatedrnn.train.interrupt`). The rerun resumes from that step.
- A run may start from another run's state when the two differ only in ``steps``
  (``start_from``, e.g. the 800-step run's ``final_state.pt`` for the 3,200-step
  run): the learning rate is constant, so the shorter run is the longer one's prefix.
  Such a state is matched by :func:`prefix_hash` (every key of the protocol and the
  identity but ``steps``) and :func:`prefix_state_problem` (only states the longer
  run itself passes through).
- ``on_divergence="record"`` ends a diverged run as a result instead of an error
  (:attr:`TrainResult.diverged_at_step`); the default raises :class:`TrainingDiverged`.
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from gatedrnn.core.data import sample_windows, validation_windows
from gatedrnn.core.model import CharModel, count_parameters, set_forget_bias
from gatedrnn.errors import TrainingDiverged
from gatedrnn.io.files import atomic_torch_save
from gatedrnn.io.records import read_summary
from gatedrnn.train.checkpoints import (
    canonical_strings,
    load_latest_checkpoint,
    load_prefix_state,
    prune_checkpoints,
    verify_archive,
)
from gatedrnn.train.config import TrainConfig, config_hash, hashed_protocol, prefix_hash
from gatedrnn.train.interrupt import TrainingInterrupted, deferred_sigterm

# A training loss above this many times ln(V) (the loss of guessing uniformly) is
# far worse than chance: the run has diverged even if the loss is still finite.
DIVERGENCE_FACTOR = 4.0


@dataclass
class TrainResult:
    model: CharModel
    history: list[dict] = field(default_factory=list)  # step, train_loss, val_loss
    best_val_loss: float = math.inf
    best_step: int = -1
    resumed_from: int | None = None  # step of the run's own checkpoint it resumed from
    # step of another run's state (start_from) the run started at; kept through a resume
    prefix_from: int | None = None
    # on_divergence="record": the step whose training loss tripped the check, and that
    # loss; the model holds the weights that loss was computed with (the step's update is
    # not applied), the history the evaluations before it, best_val_loss is nan.
    diverged_at_step: int | None = None
    diverged_loss: float | None = None


def format_duration(seconds: float) -> str:
    """A duration for a log line: ``42s``, ``3m12s``, ``2h05m``."""
    if not math.isfinite(seconds):
        return "?"
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


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
        model = CharModel(vocab_size, cell, hidden, cfg.embed_dim, cfg.layers, cfg.readout_norm)
    if cfg.forget_bias is not None:
        set_forget_bias(model, cfg.forget_bias)
    return model


def make_optimizer(model: nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    # Adam fused: one kernel per parameter, whose square root is ATen's vector instruction,
    # exactly rounded. The foreach and for-loop paths take torch.sqrt, which on the CPU is
    # MKL's VML: its kernel is chosen by the CPU and is not exactly rounded, so its bits
    # differ between Intel and AMD whatever MKL_CBWR says (gatedrnn.numerics, "Why").
    # SGD with momentum has no square root; foreach is its multi-tensor path.
    # weight_decay is PyTorch's own (L2 added to the gradient, not AdamW's decoupled
    # decay); at 0 both optimizers skip it and step as without the argument.
    if cfg.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True)
    return torch.optim.SGD(
        model.parameters(), lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay, foreach=True
    )


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
    start_from: Path | None = None,
    final_state: Path | None = None,
    on_divergence: str = "raise",
) -> TrainResult:
    """Train one model; resume from ``checkpoint_dir`` if it holds a matching checkpoint.

    ``identity`` (cell, width, seed, corpus checksum, ...) goes into the checkpoint
    hash with ``cfg`` so a checkpoint is only ever resumed by the run that wrote it.
    ``stop_after`` ends the loop early after that step (tests use it to simulate a kill).

    ``start_from``: another run's state (a shorter run's ``final_state.pt``) to start
    at, when it passes :func:`prefix_state_problem` and is ahead of this run's own
    newest checkpoint. ``final_state``: where to save the whole state once the last
    step is done. ``on_divergence``: ``"raise"`` (:class:`TrainingDiverged`) or
    ``"record"`` (stop, and say so in :attr:`TrainResult.diverged_at_step`).

    With a ``checkpoint_dir``, SIGTERM is deferred to the end of the step in progress,
    which is then checkpointed before :class:`TrainingInterrupted` is raised (the
    process's previous SIGTERM handler is back when this returns or raises).
    """
    if on_divergence not in ("raise", "record"):
        raise ValueError(f"on_divergence must be 'raise' or 'record', not {on_divergence!r}")
    dev = pick_device(device)
    set_determinism(dev)
    expected_hash = config_hash({"train": hashed_protocol(cfg), "identity": identity or {}})
    expected_prefix_hash = prefix_hash(cfg, identity)

    model = build_model(cell, hidden, vocab_size, seed, cfg).to(dev)
    optimizer = make_optimizer(model, cfg)
    generator = torch.Generator().manual_seed(seed)
    train_ids = train_ids.to("cpu")
    val_windows = validation_windows(val_ids, cfg.val_windows, cfg.seq_len).to(dev)

    result = TrainResult(model=model)
    start_step = 0
    loss_sum, loss_count = 0.0, 0
    state = None
    if checkpoint_dir is not None:
        checkpoint_dir = Path(checkpoint_dir)
        checkpoint_dir.mkdir(parents=True, exist_ok=True)
        state = load_latest_checkpoint(checkpoint_dir, expected_hash, log)
    if start_from is not None:
        prefix = load_prefix_state(start_from, cfg, expected_prefix_hash, log)
        if prefix is not None and (state is None or prefix["step"] > state["step"]):
            state = prefix
            result.prefix_from = prefix["step"]
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"])
        result.history = list(state["history"])
        loss_sum, loss_count = state["loss_sum"], state["loss_count"]
        start_step = state["step"]
        if result.prefix_from is not None:
            log(f"started from {start_from} at step {start_step} (a shorter run of the same protocol)")
        else:
            result.resumed_from = start_step
            result.prefix_from = state.get("prefix_from")  # where this run itself started
            log(f"resumed from checkpoint at step {start_step}")

    def snapshot(step: int) -> dict:
        """Everything the run's future depends on, as of the end of ``step``."""
        return canonical_strings(
            {
                "step": step,
                "steps": cfg.steps,
                "config_hash": expected_hash,
                "prefix_hash": expected_prefix_hash,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "generator": generator.get_state(),
                "history": result.history,
                "loss_sum": loss_sum,
                "loss_count": loss_count,
                "prefix_from": result.prefix_from,
            }
        )

    if start_step == 0:
        val = evaluate(model, val_windows)
        result.history.append({"step": 0, "train_loss": math.nan, "val_loss": val})
        log(f"step 0 val_loss {val:.4f}")

    model.train()
    divergence_threshold = DIVERGENCE_FACTOR * math.log(vocab_size)
    t0 = time.perf_counter()
    completed = False
    with deferred_sigterm(enabled=checkpoint_dir is not None) as sigterm:
        for step in range(start_step + 1, cfg.steps + 1):
            batch = sample_windows(train_ids, cfg.batch_size, cfg.seq_len, generator).to(dev)
            loss = sequence_loss(model, batch)
            loss_value = loss.item()
            if not loss_value <= divergence_threshold:  # also catches nan
                message = (
                    f"training diverged at step {step}: loss is {loss_value:.6g} nats/char, above "
                    f"{DIVERGENCE_FACTOR:g} x ln(V) = {divergence_threshold:.4g} (lr {cfg.lr}, "
                    f"optimizer {cfg.optimizer}); lower the learning rate"
                )
                if on_divergence == "raise":
                    raise TrainingDiverged(message)
                log(f"WARNING: {message}. The run stops here and is recorded as diverged.")
                result.diverged_at_step, result.diverged_loss = step, loss_value
                break
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
            optimizer.step()
            loss_sum += loss_value
            loss_count += 1

            if step % cfg.eval_every == 0 or step == cfg.steps:
                val = evaluate(model, val_windows)
                train_loss = loss_sum / loss_count
                result.history.append({"step": step, "train_loss": train_loss, "val_loss": val})
                loss_sum, loss_count = 0.0, 0
                rate = (step - start_step) / (time.perf_counter() - t0)
                eta = format_duration((cfg.steps - step) / rate) if rate > 0 else "?"
                log(
                    f"step {step} train_loss {train_loss:.4f} val_loss {val:.4f} "
                    f"({rate:.2f} steps/s, eta {eta})"
                )

            saved = None
            if checkpoint_dir is not None and step % checkpoint_every == 0 and step < cfg.steps:
                saved = checkpoint_dir / f"checkpoint_step{step}.pt"
                atomic_torch_save(snapshot(step), saved)
                prune_checkpoints(checkpoint_dir, keep=2)
            if sigterm is not None and sigterm.received:
                if saved is None:
                    saved = checkpoint_dir / f"checkpoint_step{step}.pt"
                    atomic_torch_save(snapshot(step), saved)
                    prune_checkpoints(checkpoint_dir, keep=2)
                message = (
                    f"SIGTERM received: stopped after step {step} of {cfg.steps} and saved checkpoint "
                    f"{saved}; rerun the same command to resume from step {step}"
                )
                log(message)
                raise TrainingInterrupted(message, step)
            if stop_after is not None and step >= stop_after:
                break
        else:
            completed = True

    if result.diverged_at_step is not None:
        result.best_val_loss, result.best_step = math.nan, -1
    else:
        best = min(result.history, key=lambda row: (row["val_loss"], row["step"]))
        result.best_val_loss, result.best_step = best["val_loss"], best["step"]
    if completed and final_state is not None:
        atomic_torch_save(snapshot(cfg.steps), Path(final_state))
    model.to("cpu")
    return result


def environment_versions() -> dict:
    return {"python": platform.python_version(), "torch": torch.__version__}


def summarise(result: TrainResult, *, cell: str, width: int, seed: int, extra: dict) -> dict:
    """The run's ``summary.json``. A diverged run (``result.diverged_at_step``) says so:
    ``"diverged": true``, ``diverged_at_step``, ``diverged_loss`` (the training loss
    that tripped the check; nan and inf are written as JSON's NaN and Infinity),
    ``best_val_loss`` and ``final_val_loss`` NaN and ``best_step`` null (a diverged run
    has no score: a consumer that forgets to check ``diverged`` gets NaN, not a
    number), and ``last_val_loss`` / ``last_val_step``, the last validation before
    divergence. The other runs' summaries have none of these keys."""
    if result.diverged_at_step is None:
        scores = {
            "best_val_loss": result.best_val_loss,
            "best_step": result.best_step,
            "final_val_loss": result.history[-1]["val_loss"],
        }
    else:
        scores = {
            "best_val_loss": math.nan,
            "best_step": None,
            "final_val_loss": math.nan,
            "diverged": True,
            "diverged_at_step": result.diverged_at_step,
            "diverged_loss": result.diverged_loss,
            "last_val_loss": result.history[-1]["val_loss"],
            "last_val_step": result.history[-1]["step"],
        }
    return {
        "cell": cell,
        "width": width,
        "seed": seed,
        "params": count_parameters(result.model),
        **scores,
        **extra,
        "versions": environment_versions(),
    }


def load_model(model_dir: str | os.PathLike, allow_diverged: bool = False) -> tuple[CharModel, dict]:
    """A trained model and its summary from a ``results/models/...`` directory.

    A run whose training diverged (``summary["diverged"]``) is refused with a
    ValueError naming it, unless ``allow_diverged``: its weights are no result.
    """
    model_dir = Path(model_dir)
    summary = read_summary(model_dir / "summary.json")  # this run's, not a copy of another's
    if summary.get("diverged") and not allow_diverged:
        raise ValueError(
            f"{model_dir} is a diverged run (training diverged at step {summary.get('diverged_at_step')}, "
            'summary.json "diverged": true): it has no result to load; leave it out and name it'
        )
    weights = model_dir / "model.pt"
    try:
        verify_archive(weights)
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception as err:  # a ValueError: the rule scripts print it as one line (gatedrnn.scripting)
        raise ValueError(
            f"{weights} cannot be read ({type(err).__name__}: {err}); it is truncated or "
            "corrupted: delete it and rerun the workflow to retrain that model"
        ) from None
    cfg = summary["train_config"]
    model = CharModel(
        summary["vocab_size"],
        summary.get("cell_path") or summary["cell"],  # a plug-in by its import path
        summary["width"],
        cfg["embed_dim"],
        cfg["layers"],
        # a summary written before train.readout_norm existed is of a model without one
        cfg.get("readout_norm", "none"),
    )
    try:
        model.load_state_dict(state)
    except RuntimeError as err:  # weights of another shape: another model's file
        first = str(err).strip().splitlines()[-1].strip()
        raise ValueError(
            f"{weights} does not fit the {summary['cell']} of width {summary['width']} that "
            f"{model_dir / 'summary.json'} describes ({first}): it was copied from another model; "
            "delete the directory and rerun the workflow to retrain that model"
        ) from None
    model.eval()
    return model, summary
