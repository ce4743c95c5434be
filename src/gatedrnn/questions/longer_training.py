"""G4. Where the gates go, and whether validation turns, when training continues.

The same models and seeds are trained for more steps (a regime that overrides
``steps`` only); with the same seed the first ``train.steps`` steps of the long
run are the default run, so the default model is the long run's state at
``train.steps``. Gates on the study's probe set.
"""

from __future__ import annotations

import math

import pandas as pd

from gatedrnn.io.records import read_table
from gatedrnn.questions.common import Log, fmt, keep_gate_stats, read_summaries, signed, write_table
from gatedrnn.tables.gates import load_run_gates


def longer_training_curves(entries) -> pd.DataFrame:
    """Long form: the validation history of every entry of :func:`longer_training_table`
    (columns ``model, cell, seed, regime, regime_steps, step, train_loss, val_loss``)."""
    frames = []
    for summary, history, _ in entries:
        frame = history.copy()
        for position, (key, value) in enumerate(
            [
                ("model", summary["model"]),
                ("cell", summary["cell"]),
                ("seed", summary["seed"]),
                ("regime", summary["regime"]),
                ("regime_steps", int(summary["train_config"]["steps"])),
            ]
        ):
            frame.insert(position, key, value)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def longer_training_table(entries, long_half_life: float = 10.0) -> pd.DataFrame:
    """Where the gates go, and whether validation has turned, when training continues.

    ``entries``: ``(summary, history, gates)`` of every model and seed under every
    regime compared (``gates`` a :class:`gatedrnn.analysis.gates.ProbeGates` on the probe
    set). One row per entry, ordered by model, seed, steps. ``val_loss_at_base``
    is the validation loss at the fewest steps of the model's rows (the default
    protocol's end), read from each run's own history; ``rise_after_best`` =
    final - best validation loss, ``turned`` = the best step lies before the end
    and the final loss is above it.
    """
    rows = []
    for summary, history, probe in entries:
        steps = int(summary["train_config"]["steps"])
        rows.append(
            {
                "model": summary["model"],
                "cell": summary["cell"],
                "seed": summary["seed"],
                "regime": summary["regime"],
                "steps": steps,
                "best_val_loss": summary["best_val_loss"],
                "best_step": summary["best_step"],
                "final_val_loss": summary["final_val_loss"],
                "rise_after_best": summary["final_val_loss"] - summary["best_val_loss"],
                "turned": bool(
                    summary["best_step"] < steps and summary["final_val_loss"] > summary["best_val_loss"]
                ),
                "_history": history,
                **keep_gate_stats(summary["cell"], probe.gates, long_half_life),
            }
        )
    frame = pd.DataFrame(rows)
    base = frame.groupby(["model", "seed"])["steps"].transform("min")
    at_base = []
    for history, steps in zip(frame["_history"], base, strict=True):
        match = history.loc[history["step"] == steps, "val_loss"]
        at_base.append(float(match.iloc[0]) if len(match) else float("nan"))
    frame.insert(5, "base_steps", base.astype(int))
    frame.insert(6, "val_loss_at_base", at_base)
    frame = frame.drop(columns="_history")
    return frame.sort_values(["model", "seed", "steps"], kind="stable", ignore_index=True)


def write_longer_training_tables(
    summaries, histories, gates, out_table, out_curves, log: Log
) -> pd.DataFrame:
    """Rule ``longer_training``: read each run's summary, history and probe gates (the
    three lists run in step), and write :func:`longer_training_table` to ``out_table``
    and :func:`longer_training_curves` to ``out_curves``."""
    entries = [
        (summary, read_table(history, "training history"), load_run_gates(probe))
        for summary, history, probe in zip(read_summaries(summaries), histories, gates, strict=True)
    ]
    table = longer_training_table(entries)
    write_table(table, out_table, log)
    write_table(longer_training_curves(entries), out_curves)
    return table


def longer_training_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence per model: its gates, half-lives and losses, short against long."""
    out = []
    for model, group in table.groupby("model", sort=False):
        med = group.groupby("steps").median(numeric_only=True).sort_index()
        short, long = med.iloc[0], med.iloc[-1]
        turned = group[group["steps"] == med.index[-1]]["turned"]
        gate = group["keep_gate"].iloc[0]
        sentence = (
            f"{model} trained {int(med.index[-1])} steps instead of {int(med.index[0])}: mean {gate} gate "
            f"{fmt(short['keep_gate_mean'], 3)} -> {fmt(long['keep_gate_mean'], 3)}, median unit half-life "
            f"{fmt(short['half_life_median'], 2)} -> {fmt(long['half_life_median'], 2)} characters (max "
            f"{fmt(short['half_life_max'], 2)} -> {fmt(long['half_life_max'], 2)})"
        )
        if not math.isnan(long["coupling_corr"]):
            sentence += (
                f", corr(i, 1 - f) {signed(short['coupling_corr'], 3)} -> {signed(long['coupling_corr'], 3)}"
            )
        # a median loss and each seed's own best step (a loss of one seed is not paired
        # with the others' median step)
        steps = ", ".join(str(int(v)) for v in group[group["steps"] == med.index[-1]]["best_step"])
        sentence += (
            f"; median best validation loss {fmt(short['best_val_loss'])} -> {fmt(long['best_val_loss'])} "
            f"(each seed's best step: {steps}), and it has turned upward in {int(turned.sum())} of "
            f"{len(turned)} seed(s) "
            f"(final - best {signed(long['rise_after_best'])})."
        )
        out.append(sentence)
    return out
