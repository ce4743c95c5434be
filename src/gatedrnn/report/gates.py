"""Figures of the gate analyses (C4, D6, E1, E3), drawn from their CSV tables alone.

Same conventions as :mod:`gatedrnn.report.style` (Agg backend, PNGs without a
software stamp). Seed 0, the study's one model, is drawn solid; other seeds
thin and faint, where a figure shows them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gatedrnn.report.style import plt, save_figure

HEADLINE_SEED = 0


def _seed_style(seed, headline=HEADLINE_SEED) -> dict:
    return {"alpha": 1.0, "linewidth": 1.8} if seed == headline else {"alpha": 0.35, "linewidth": 0.9}


def _headline(frame: pd.DataFrame) -> pd.DataFrame:
    """The seed-0 rows, or the lowest seed's where seed 0 was not run."""
    seed = HEADLINE_SEED if (frame["seed"] == HEADLINE_SEED).any() else frame["seed"].min()
    return frame[frame["seed"] == seed]


def plot_cell_decay(table: pd.DataFrame, path) -> None:
    """C4: relative cell-state difference after one changed character, measured
    against the forget gate alone, log scale, one pair of lines per seed."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k, (seed, rows) in enumerate(table.groupby("seed")):
        style = _seed_style(seed)
        ax.plot(rows["k"], rows["measured"], color="C0", label="measured" if k == 0 else None, **style)
        ax.plot(
            rows["k"],
            rows["forget_alone"],
            color="C1",
            linestyle="--",
            label="forget gate alone" if k == 0 else None,
            **style,
        )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_yscale("log")
    ax.set_xlabel("characters after the change (k)")
    ax.set_ylabel("|dc_k| / |dc_0| (mean over lines)")
    ax.set_title(f"LSTM cell-state difference ({table['model'].iloc[0]}; seed 0 solid)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)


def plot_gru_vs_lstm_gates(histogram: pd.DataFrame, units: pd.DataFrame, path) -> None:
    """D6: left, the histogram of (1 - f, i) with the coupled line i = 1 - f;
    right, per-unit half-lives sorted, LSTM f against GRU z (seed 0)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4.4))

    hist = _headline(histogram)
    bins = int(hist["bin_kept"].max()) + 1
    mass = np.zeros((bins, bins))
    mass[hist["bin_kept"], hist["bin_input"]] = hist["mass"]
    edges = np.append(np.sort(hist["kept_lo"].unique()), hist["kept_hi"].max())
    image = left.pcolormesh(edges, edges, mass.T * 100, cmap="viridis", shading="flat")
    left.plot([0, 1], [0, 1], color="white", linestyle="--", linewidth=1.2, label="coupled: i = 1 - f")
    fig.colorbar(image, ax=left, label="% of values")
    left.set_xlabel("1 - f (fraction forgotten)")
    left.set_ylabel("i (fraction written)")
    left.set_aspect("equal")
    left.set_title(f"{hist['model'].iloc[0]}, seed {hist['seed'].iloc[0]}: (1 - f, i)")
    left.legend(loc="lower right", fontsize="small")

    for k, (model, rows) in enumerate(_headline(units).groupby("model", sort=False)):
        lives = np.sort(rows["half_life"].to_numpy())
        label = f"{model}: {rows['gate'].iloc[0]} gate ({len(lives)} units)"
        right.plot(np.arange(1, len(lives) + 1), lives, color=f"C{k}", label=label)
    right.set_yscale("log")
    right.set_xlabel("unit (sorted by half-life)")
    right.set_ylabel("half-life of the unit's mean gate (characters)")
    right.set_title("Per-unit half-lives, seed 0")
    right.grid(True, which="major", alpha=0.3)
    right.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def plot_hidden_decay(table: pd.DataFrame, path) -> None:
    """E1: relative hidden-state difference after one changed character, one
    colour per model, one line per seed, log scale."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k, (model, rows) in enumerate(table.groupby("model", sort=False)):
        for j, (seed, seed_rows) in enumerate(rows.groupby("seed")):
            ax.plot(
                seed_rows["k"],
                seed_rows["measured"],
                color=f"C{k}",
                label=model if j == 0 else None,
                **_seed_style(seed),
            )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_yscale("log")
    ax.set_xlabel("characters after the change (k)")
    ax.set_ylabel("|dh_k| / |dh_0| (mean over lines)")
    ax.set_title("Hidden-state difference after one changed character (seed 0 solid)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)


def plot_forget_bias_sweep(table: pd.DataFrame, path) -> None:
    """E3: best validation loss and reach against the initial forget bias; one
    point per seed, the line through the medians."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.0, 4.2))
    medians = table.groupby("forget_bias").median(numeric_only=True).reset_index()

    left.plot(table["forget_bias"], table["best_val_loss"], "o", color="C0", alpha=0.6)
    left.plot(medians["forget_bias"], medians["best_val_loss"], "-", color="C0", label="median over seeds")
    left.set_xlabel("initial forget-gate bias b")
    left.set_ylabel("best validation loss (nats/char)")
    left.set_title("Loss")
    left.legend()

    for column, label, colour in (
        ("state_half_life", "state half-life (E1)", "C1"),
        ("grad_half_distance", "gradient half distance", "C2"),
    ):
        right.plot(table["forget_bias"], table[column], "o", color=colour, alpha=0.6)
        right.plot(medians["forget_bias"], medians[column], "-", color=colour, label=label)
    right.set_xlabel("initial forget-gate bias b")
    right.set_ylabel("characters (NaN: beyond the window, not drawn)")
    right.set_title("Reach")
    right.legend()
    for ax in (left, right):
        ax.set_xticks(sorted(table["forget_bias"].unique()))
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)
