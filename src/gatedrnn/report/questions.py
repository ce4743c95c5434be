"""Figures of the open questions (section G), drawn from their CSV tables alone
(Agg backend, stable PNG bytes: :func:`gatedrnn.report.style.save_figure`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gatedrnn.report.style import plt, save_figure


def plot_split_by_width(table: pd.DataFrame, path) -> None:
    """The LSTM - budget-GRU gap at each reference width, stacked: structure + width,
    each bar labelled with its share of the gap."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    widths = sorted(table["reference_width"].unique())
    x = np.arange(len(widths))
    parts = table.pivot(index="reference_width", columns="component", values="loss_difference").loc[widths]
    shares = table.pivot(index="reference_width", columns="component", values="share_of_total").loc[widths]
    structure, width = parts["structure"].to_numpy(), parts["width"].to_numpy()
    ax.bar(x, structure, label="structure (LSTM wR - GRU wR)")
    ax.bar(
        x, width, bottom=np.where(width * structure > 0, structure, 0.0), label="width (GRU wR - GRU budgetR)"
    )
    for k, reference in enumerate(widths):
        share_structure, share_width = shares.loc[reference, "structure"], shares.loc[reference, "width"]
        ax.annotate(
            f"{100 * share_structure:.0f} % / {100 * share_width:.0f} %",
            (x[k], max(parts.loc[reference, "total"], structure[k], 0.0)),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            fontsize=8,
        )
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(x, [str(w) for w in widths])
    ax.set_xlabel("reference LSTM width R")
    ax.set_ylabel("loss difference (nats/char, medians)")
    ax.set_title("The GRU's advantage: structure / width, by reference width")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def plot_longer_training(curves: pd.DataFrame, table: pd.DataFrame, path) -> None:
    """Left: validation loss of the longer runs (one line per seed; the dotted line
    is the default protocol's end). Right: the mean keep gate (LSTM f, GRU z) and
    the median unit half-life, default end against longer end, per model."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    longest = curves["regime_steps"].max()
    for k, (model, rows) in enumerate(curves[curves["regime_steps"] == longest].groupby("model", sort=False)):
        for j, (_, seed_rows) in enumerate(rows.groupby("seed")):
            seed_rows = seed_rows[seed_rows["step"] > 0]
            left.plot(
                seed_rows["step"],
                seed_rows["val_loss"],
                color=colours[k % len(colours)],
                alpha=0.8,
                label=model if j == 0 else None,
            )
    for base in table["base_steps"].unique():
        left.axvline(base, color="grey", linestyle=":", linewidth=1)
    left.set_xlabel("training step")
    left.set_ylabel("validation loss (nats/char)")
    left.set_title("Validation loss, longer runs")
    left.grid(True, alpha=0.3)
    left.legend(fontsize=8)

    medians = table.groupby(["model", "steps"], sort=False).median(numeric_only=True).reset_index()
    for k, (model, rows) in enumerate(medians.groupby("model", sort=False)):
        gate = table.loc[table["model"] == model, "keep_gate"].iloc[0]
        right.plot(
            rows["steps"],
            rows["keep_gate_mean"],
            marker="o",
            color=colours[k % len(colours)],
            label=f"{model}: mean {gate} gate",
        )
        right.plot(
            rows["steps"],
            rows["half_life_median"],
            marker="s",
            linestyle="--",
            color=colours[k % len(colours)],
            label=f"{model}: median unit half-life (chars)",
        )
    right.set_xlabel("training steps")
    right.set_title("Where the gates go (medians over seeds)")
    right.grid(True, alpha=0.3)
    right.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)
