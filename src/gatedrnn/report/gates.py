"""Figures of the gate analyses (C4, D6, E1, E3), drawn from their CSV tables alone.

Same conventions as :mod:`gatedrnn.report.style` (Agg backend, PNGs without a
software stamp). Seed 0 is drawn solid; other seeds thin and faint, where a figure
shows them. The study's published values (:class:`gatedrnn.report.published_marks.Published`)
are black crosses or dashed lines; each function returns the ids of the claims it marked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import SymLogNorm

from gatedrnn.report.published_marks import Published, StudyValue, ids, mark_points, seeds_note, study_label
from gatedrnn.report.style import SMALL, model_label, plt, save_figure

HEADLINE_SEED = 0
HALF = 0.5  # a curve's half-life is where it first falls to this


def _seed_style(seed, headline=HEADLINE_SEED) -> dict:
    return {"alpha": 1.0, "linewidth": 1.8} if seed == headline else {"alpha": 0.35, "linewidth": 0.9}


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


def departure_from_independence(histogram: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(bin edges, the median over seeds of joint mass minus the product of the
    marginals per (1 - f, i) bin, whether no two seeds have opposite signs there, seeds): the
    quantity D2's "no coupling" claim is about (0 everywhere: i and 1 - f independent)."""
    bins = int(histogram["bin_kept"].max()) + 1
    seeds = sorted(histogram["seed"].unique())
    departure = np.zeros((len(seeds), bins, bins))
    for k, seed in enumerate(seeds):
        rows = histogram[histogram["seed"] == seed]
        departure[k, rows["bin_kept"], rows["bin_input"]] = rows["mass"] - rows["independent_mass"]
    agree = ~((departure > 0).any(axis=0) & (departure < 0).any(axis=0))  # none on the other side
    edges = np.append(np.sort(histogram["kept_lo"].unique()), histogram["kept_hi"].max())
    return edges, np.median(departure, axis=0), agree, len(seeds)


def plot_gru_vs_lstm_gates(
    histogram: pd.DataFrame, units: pd.DataFrame, path, published: Published | None = None
) -> list[str]:
    """D6: left, the departure of the joint (1 - f, i) histogram from independence
    (joint mass minus the product of its marginals, median over seeds, on a diverging
    scale centred at 0; a dot where the seeds disagree on its sign), with the coupled
    line i = 1 - f; right, per-unit half-lives sorted, LSTM f against GRU z, the median
    over seeds at each rank and the seeds' range as a band, with the study's shortest,
    median and longest unit (D5) as crosses."""
    published = published or Published()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 5.6))

    model = histogram["model"].iloc[0]
    histogram = histogram[histogram["model"] == model]
    edges, departure, agree, n = departure_from_independence(histogram)
    # symmetric log scale, centred at 0: the saturated corners would otherwise take the
    # whole colour range and leave the rest of the square white
    magnitude = np.abs(departure[departure != 0]) * 100
    reach = float(magnitude.max()) if magnitude.size else 1.0
    linear = float(np.median(magnitude)) if magnitude.size else 0.1
    norm = SymLogNorm(linthresh=linear, vmin=-reach, vmax=reach, base=10)
    image = left.pcolormesh(edges, edges, departure.T * 100, cmap="RdBu_r", norm=norm, shading="flat")
    centres = (edges[:-1] + edges[1:]) / 2
    kept, written = np.nonzero(~agree)
    if len(kept):
        left.plot(centres[kept], centres[written], ".", color="black", markersize=3,
                  label="seeds disagree on the sign")  # fmt: skip
    left.plot([0, 1], [0, 1], color="black", linestyle="--", linewidth=1.2, label="coupled: i = 1 - f")
    label = "joint minus independent (percentage\npoints of gate values; symmetric log)"
    bar = fig.colorbar(image, ax=left, label=label)
    # decades clear of the linear core (their labels would overlap 0's)
    decades = [10.0**k for k in range(-12, 13) if 3 * linear <= 10.0**k <= reach]
    bar.set_ticks([-d for d in reversed(decades)] + [0.0] + decades)
    left.set_xlabel("1 - f (fraction forgotten)")
    left.set_ylabel("i (fraction written)")
    left.set_aspect("equal")
    over = f"median of {n} seeds" if n > 1 else "one seed"
    left.set_title(f"D2: (1 - f, i) against independence,\n{model_label(model)}, {over}")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=SMALL, ncol=2, frameon=False)

    marked = []
    seeds = units["seed"].nunique()
    for k, (model, rows) in enumerate(units.groupby("model", sort=False)):
        lives = np.stack([np.sort(r["half_life"].to_numpy()) for _, r in rows.groupby("seed")])
        rank = np.arange(1, lives.shape[1] + 1)
        name = model_label(model, lives.shape[1])
        right.fill_between(rank, lives.min(axis=0), lives.max(axis=0), color=f"C{k}", alpha=0.25, linewidth=0)
        right.plot(
            rank, np.median(lives, axis=0), color=f"C{k}", label=f"{name}: {rows['gate'].iloc[0]} gate"
        )
        ranks = {"half_life_min": 1, "half_life_median": (len(rank) + 1) / 2, "half_life_max": len(rank)}
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
    band = f"line: median over {seeds} seeds, band: their range" if seeds > 1 else "one seed"
    right.set_title(f"D5: per-unit half-lives\n({band})")
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
