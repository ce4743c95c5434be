"""Figures of the gate analyses (C4, D6, E1, E3), drawn from their CSV tables alone.

Same conventions as :mod:`gatedrnn.report.style` (Agg backend, PNGs without a
software stamp). Seed 0 is drawn solid; other seeds thin and faint, where a figure
shows them. The study's published values (:class:`gatedrnn.report.published_marks.Published`)
are black crosses or dashed lines; each function returns the ids of the claims it marked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gatedrnn.report.published_marks import Published, StudyValue, ids, mark_points, seeds_note, study_label
from gatedrnn.report.style import SMALL, model_label, plt, save_figure

HEADLINE_SEED = 0
HALF = 0.5  # a curve's half-life is where it first falls to this


def _seed_style(seed, headline=HEADLINE_SEED) -> dict:
    return {"alpha": 1.0, "linewidth": 1.8} if seed == headline else {"alpha": 0.35, "linewidth": 0.9}


def _headline(frame: pd.DataFrame) -> pd.DataFrame:
    """The seed-0 rows, or the lowest seed's where seed 0 was not run."""
    seed = HEADLINE_SEED if (frame["seed"] == HEADLINE_SEED).any() else frame["seed"].min()
    return frame[frame["seed"] == seed]


def _half_level(ax) -> None:
    ax.axhline(HALF, color="grey", linewidth=0.8, linestyle=":", label="half (where a half-life is read)")


def _half_lives(ax, values: list[StudyValue], what: str) -> None:
    """The study's half-lives as hollow diamonds on the half level, one per value."""
    if values:
        text = ", ".join(f"{v.number:g}" for v in values)
        label = study_label(values, f"{what} {text} chars")
        mark_points(
            ax, [v.number for v in values], [HALF] * len(values), label, marker="D", markerfacecolor="none"
        )


def plot_cell_decay(table: pd.DataFrame, path, published: Published | None = None) -> list[str]:
    """C4: relative cell-state difference after one changed character, measured
    against the forget gate alone, log scale, one pair of lines per seed; the
    study's values at its k (crosses) and its half-lives (diamonds on the half level)."""
    published = published or Published()
    model = table["model"].iloc[0]
    fig, ax = plt.subplots(figsize=(10.0, 4.8))
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
    _half_level(ax)
    marked = []
    for column, what, colour in (("measured", "measured", "C0"), ("forget_alone", "forget gate alone", "C1")):
        study = published.find("lstm_cell_decay.csv", column, model=model)
        if study:
            xs = [v.where["k"] for v in study]
            mark_points(ax, xs, [v.number for v in study], study_label(study, what), colour=colour)
        marked += ids(study)
    lives = [
        published.one("lstm_cell_decay.csv", c, model=model)
        for c in ("measured_half_life", "forget_alone_half_life")
    ]
    _half_lives(ax, [v for v in lives if v is not None], "half-lives (measured, forget alone)")
    marked += ids(lives)
    ax.set_yscale("log")
    ax.set_xlabel("characters after the change k (characters)")
    ax.set_ylabel("cell-state difference |dc_k| / |dc_0|\n(fraction, mean over lines)")
    ax.set_title(f"C4: LSTM cell-state difference, {model_label(model)}\n(seed 0 solid, other seeds faint)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=SMALL, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    save_figure(fig, path)
    return marked


def plot_gru_vs_lstm_gates(
    histogram: pd.DataFrame, units: pd.DataFrame, path, published: Published | None = None
) -> list[str]:
    """D6: left, the histogram of (1 - f, i) with the coupled line i = 1 - f;
    right, per-unit half-lives sorted, LSTM f against GRU z (seed 0), with the
    study's shortest, median and longest unit (D5) as crosses."""
    published = published or Published()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.8))

    hist = _headline(histogram)
    bins = int(hist["bin_kept"].max()) + 1
    mass = np.zeros((bins, bins))
    mass[hist["bin_kept"], hist["bin_input"]] = hist["mass"]
    edges = np.append(np.sort(hist["kept_lo"].unique()), hist["kept_hi"].max())
    image = left.pcolormesh(edges, edges, mass.T * 100, cmap="viridis", shading="flat")
    left.plot([0, 1], [0, 1], color="white", linestyle="--", linewidth=1.2, label="coupled: i = 1 - f")
    fig.colorbar(image, ax=left, label="share of gate values (%)")
    left.set_xlabel("1 - f (fraction forgotten)")
    left.set_ylabel("i (fraction written)")
    left.set_aspect("equal")
    left.set_title(f"D2: (1 - f, i), {model_label(hist['model'].iloc[0])}, seed {hist['seed'].iloc[0]}")
    left.legend(loc="lower right", fontsize=SMALL)

    marked = []
    for k, (model, rows) in enumerate(_headline(units).groupby("model", sort=False)):
        lives = np.sort(rows["half_life"].to_numpy())
        name = model_label(model, len(lives))
        right.plot(
            np.arange(1, len(lives) + 1), lives, color=f"C{k}", label=f"{name}: {rows['gate'].iloc[0]} gate"
        )
        ranks = {"half_life_min": 1, "half_life_median": (len(lives) + 1) / 2, "half_life_max": len(lives)}
        study = [
            (unit, published.one("unit_half_lives.csv", column, model=model))
            for column, unit in ranks.items()
        ]
        study = [(unit, value) for unit, value in study if value is not None]
        if study:
            label = study_label([v for _, v in study], f"{name.split(' (')[0]}, shortest / median / longest")
            mark_points(right, [u for u, _ in study], [v.number for _, v in study], label, colour=f"C{k}")
        marked += ids(v for _, v in study)
    right.set_yscale("log")
    low, high = right.get_ylim()
    right.set_ylim(low, high * 10)  # a decade of headroom: the legend above the curves
    right.set_xlabel("unit, sorted by half-life (rank)")
    right.set_ylabel("half-life of the unit's mean gate (characters)")
    right.set_title("D5: per-unit half-lives, seed 0")
    right.grid(True, which="major", alpha=0.3)
    right.legend(fontsize=SMALL, loc="upper left")
    fig.tight_layout()
    save_figure(fig, path)
    return marked


def plot_hidden_decay(table: pd.DataFrame, path, published: Published | None = None) -> list[str]:
    """E1: relative hidden-state difference after one changed character, one
    colour per model, one line per seed, log scale; the study's half-life of each
    model (E1: about four characters) as a diamond on the half level."""
    published = published or Published()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    study = []
    for k, (model, rows) in enumerate(table.groupby("model", sort=False)):
        for j, (seed, seed_rows) in enumerate(rows.groupby("seed")):
            ax.plot(
                seed_rows["k"],
                seed_rows["measured"],
                color=f"C{k}",
                label=model_label(model) if j == 0 else None,
                **_seed_style(seed),
            )
        study.append((model, published.one("hidden_perturbation_decay.csv", "half_life", model=model)))
    _half_level(ax)
    for number in dict.fromkeys(v.number for _, v in study if v is not None):
        same = [(m, v) for m, v in study if v is not None and v.number == number]
        names = ", ".join(model_label(m).split(" ")[0] for m, _ in same)
        label = study_label([v for _, v in same], f"half-life of {names}, {number:g} chars")
        mark_points(ax, [number], [HALF], label, marker="D", markerfacecolor="none")
    ax.set_yscale("log")
    ax.set_xlabel("characters after the change k (characters)")
    ax.set_ylabel("hidden-state difference |dh_k| / |dh_0|\n(fraction, mean over lines)")
    ax.set_title("E1: hidden-state difference after one changed character\n(seed 0 solid, other seeds faint)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=SMALL, loc="lower left")
    fig.tight_layout()
    save_figure(fig, path)
    return ids(v for _, v in study)


def plot_forget_bias_sweep(table: pd.DataFrame, path, published: Published | None = None) -> list[str]:
    """E3: best validation loss and reach against the initial forget bias; one
    point per seed, the line through the medians. The study trained its LSTM under
    PyTorch's default initialisation only (b = 0 here, ``init`` pytorch_default):
    its best validation loss (D3) and state half-life (E1) are marked there; the
    study published no value at b = 1 or 3 (E3 is a finding)."""
    published = published or Published()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.6))
    medians = table.groupby("forget_bias").median(numeric_only=True).reset_index()
    default = table[table["init"] == "pytorch_default"] if "init" in table.columns else table.iloc[0:0]
    model = table["model"].iloc[0] if "model" in table.columns else None

    left.plot(table["forget_bias"], table["best_val_loss"], "o", color="C0", alpha=0.6, label="one seed")
    left.plot(medians["forget_bias"], medians["best_val_loss"], "-", color="C0", label="median over seeds")
    left.set_xlabel("initial forget-gate bias b (logit)")
    left.set_ylabel("best validation loss (nats/char)")
    left.set_title("E3: loss")

    for column, label, colour in (
        ("state_half_life", "state half-life (E1's measure)", "C1"),
        ("grad_half_distance", "gradient half distance", "C2"),
    ):
        right.plot(table["forget_bias"], table[column], "o", color=colour, alpha=0.6)
        right.plot(medians["forget_bias"], medians[column], "-", color=colour, label=f"{label}, median")
    right.set_xlabel("initial forget-gate bias b (logit)")
    right.set_ylabel("reach (characters)")
    right.set_title("E3: reach (a seed beyond the window: not drawn)")

    study = []
    if not default.empty and model is not None:
        bias = float(default["forget_bias"].iloc[0])
        loss = published.one("gru_vs_lstm.csv", "seed_*", agg="median", model=model)
        life = published.one("hidden_perturbation_decay.csv", "half_life", model=model)
        for ax, value, what, colour in (
            (left, loss, "best val. loss", "C0"),
            (right, life, "state half-life", "C1"),
        ):
            if value is not None:
                note = seeds_note(published, "gru_vs_lstm.csv", model=model) if value is loss else ""
                label = study_label(value, f"{what}, default init", note)
                mark_points(ax, [bias], [value.number], label, colour=colour)
                study.append(value)
    for ax in (left, right):
        ax.set_xticks(sorted(table["forget_bias"].unique()))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=SMALL)
    fig.tight_layout()
    save_figure(fig, path)
    return ids(study)
