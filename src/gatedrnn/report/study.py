"""Figures of the study's own experiments (B1, A1-A2, E2), one function per figure;
each takes the table(s) it draws and a path (style: :mod:`gatedrnn.report.style`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gatedrnn.report.style import plt, save_figure


def plot_grad_reach_init(table: pd.DataFrame, path) -> None:
    """B1: gradient norm at each input step (log scale), one line per model."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for model, rows in table.groupby("model", sort=False):
        rows = rows.sort_values("step")
        ax.plot(rows["step"], rows["grad_norm"], label=model)
    ax.set_yscale("log")
    ax.set_xlabel("input step (the output is read at the last step)")
    ax.set_ylabel("|d out[-1] / d x[step]|")
    ax.set_title("Gradient reach at initialisation")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)


def plot_highway(highway: pd.DataFrame, forget_bias_init: pd.DataFrame, path) -> None:
    """A1 and A2: what survives n multiplications by a constant factor, log scale.

    Markers are the tables' values; the lines are ``factor ** n`` drawn from
    the per-step factor each table gives (A1's value at distance 1, A2's
    ``sigmoid`` column).
    """
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.0, 4.2))

    distances = highway["distance"].to_numpy()
    n = np.linspace(0.0, float(distances.max()), 501)
    one_step = highway.set_index("distance")
    for column in highway.columns.drop("distance"):
        line = left.plot(n, one_step.loc[1, column] ** n, label=column)[0]
        left.plot(distances, highway[column], "o", color=line.get_color())
    left.set_title("A1: gradient surviving a distance")
    left.set_xlabel("distance (steps)")
    left.set_ylabel("fraction surviving")

    powers = [int(c.removeprefix("after_")) for c in forget_bias_init.columns if c.startswith("after_")]
    n = np.linspace(0.0, float(max(powers)), 501)
    for _, row in forget_bias_init.iterrows():
        label = f"b_f = {row['forget_bias']:g}"
        line = right.plot(n, row["sigmoid"] ** n, label=label)[0]
        values = [row[f"after_{p}"] for p in powers]
        right.plot(powers, values, "o", color=line.get_color())
    right.set_title("A2: sigmoid(b_f) ** n at initialisation")
    right.set_xlabel("steps n")
    right.set_ylabel("forget-gate product")

    for ax in (left, right):
        ax.set_yscale("log")
        ax.set_ylim(top=2.0)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def plot_val_loss_curves(curves: pd.DataFrame, path) -> None:
    """E2: validation loss (nats/char) against step; one colour per model, one line per seed."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (model, rows) in enumerate(curves.groupby("model", sort=False)):
        colour = colours[k % len(colours)]
        for j, (_, seed_rows) in enumerate(rows.groupby("seed")):
            seed_rows = seed_rows[seed_rows["step"] > 0].sort_values("step")
            label = f"{model} (width {int(seed_rows['width'].iloc[0])})" if j == 0 else None
            ax.plot(seed_rows["step"], seed_rows["val_loss"], color=colour, alpha=0.8, label=label)
    ax.set_xlabel("training step")
    ax.set_ylabel("validation loss (nats/char)")
    ax.set_title("Validation loss during training (one line per seed)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)
