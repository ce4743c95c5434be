"""Figures of the study's own experiments (B1, A1-A2, E2), one function per figure;
each takes the table(s) it draws, the study's published values where it marks them
(:class:`gatedrnn.report.published_marks.Published`) and a path (style:
:mod:`gatedrnn.report.style`), and returns the ids of the claims it marked."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.ticker import FixedLocator, LogFormatterMathtext, NullLocator

from gatedrnn.core import exact_math
from gatedrnn.report.published_marks import (
    Published,
    ids,
    mark_level,
    mark_points,
    seeds_note,
    study_label,
)
from gatedrnn.report.style import SMALL, model_label, plt, save_figure

B1_MODELS = {
    "rnn": "RNN (PyTorch default init)",
    "gru": "GRU (PyTorch default init)",
    "lstm": "LSTM (PyTorch default init)",
    "lstm_forget3": "LSTM, forget bias 3",
}


def plot_grad_reach_init(table: pd.DataFrame, path) -> list[str]:
    """B1: gradient norm at each input step (log scale), one line per model. The study
    printed a finding here, not values: nothing is marked."""
    fig, ax = plt.subplots(figsize=(6.5, 4.4))
    for model, rows in table.groupby("model", sort=False):
        rows = rows.sort_values("step")
        ax.plot(rows["step"], rows["grad_norm"], label=B1_MODELS.get(model, model))
    ax.set_yscale("log")
    decade_ticks(ax, table["grad_norm"])
    ax.set_xlabel(f"input step (steps; the output is read at step {int(table['step'].max())})")
    ax.set_ylabel("gradient norm |d out[-1] / d x[step]|\n(unitless, log scale)")
    ax.set_title("B1: gradient reach at initialisation")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)
    return []


def decade_ticks(ax, values, most: int = 8) -> None:
    """Major ticks on whole decades, every 1, 2, 5, 10, 25 or 50 of them, so that at
    most ``most`` label the axis (matplotlib's own choice lands on 10^-19, 10^-38)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    low, high = math.floor(exact_math.log10(values.min())), math.ceil(exact_math.log10(values.max()))
    step = next(s for s in (1, 2, 5, 10, 25, 50, 100) if (high - low) / s <= most - 1)
    top = step * int(np.ceil(high / step))
    ax.yaxis.set_major_locator(FixedLocator([10.0**e for e in range(top, low - step, -step)]))
    ax.yaxis.set_major_formatter(LogFormatterMathtext())
    if step > 1:
        ax.yaxis.set_minor_locator(NullLocator())


def _factor_label(column: str) -> str:
    """``factor_0.5`` -> ``plain RNN, factor 0.5``; ``forget_0.9`` -> ``forget gate f = 0.9``."""
    kind, _, value = column.partition("_")
    return {"factor": f"plain RNN, factor {value}", "forget": f"forget gate f = {value}"}.get(kind, column)


def plot_highway(
    highway: pd.DataFrame, forget_bias_init: pd.DataFrame, path, published: Published | None = None
) -> list[str]:
    """A1 and A2: what survives n multiplications by a constant factor, log scale.

    Circles are the tables' values; the lines are ``factor ** n`` drawn from the
    per-step factor each table gives (A1's value at distance 1, A2's ``sigmoid``
    column); black crosses are the study's values (the spec's formula at two
    significant digits, from ``published.yaml``)."""
    published = published or Published()
    marked = []
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.6))

    distances = highway["distance"].to_numpy()
    n = np.linspace(0.0, float(distances.max()), 501)
    one_step = highway.set_index("distance")
    study = []
    for column in highway.columns.drop("distance"):
        line = left.plot(n, one_step.loc[1, column] ** n, label=_factor_label(column))[0]
        left.plot(distances, highway[column], "o", color=line.get_color())
        study += published.find("highway.csv", column)
    if study:
        mark_points(left, [v.where["distance"] for v in study], [v.number for v in study], study_label(study))
    marked += ids(study)
    left.set_title("A1: a gradient through n steps of one factor")
    left.set_xlabel("distance n (steps)")
    left.set_ylabel("fraction of the gradient surviving\n(factor ** n, log scale)")

    powers = [int(c.removeprefix("after_")) for c in forget_bias_init.columns if c.startswith("after_")]
    n = np.linspace(0.0, float(max(powers)), 501)
    study = []
    for _, row in forget_bias_init.iterrows():
        bias = row["forget_bias"]
        line = right.plot(n, row["sigmoid"] ** n, label=f"b_f = {bias:g} (f = {row['sigmoid']:.2g})")[0]
        right.plot(powers, [row[f"after_{p}"] for p in powers], "o", color=line.get_color())
        for column, power in [("sigmoid", 1), *((f"after_{p}", p) for p in powers)]:
            study += [(power, v) for v in published.find("forget_bias_init.csv", column, forget_bias=bias)]
    if study:
        values = [v for _, v in study]
        mark_points(right, [p for p, _ in study], [v.number for v in values], study_label(values))
    marked += ids(v for _, v in study)
    right.set_title("A2: forget gate at initialisation, f = sigmoid(b_f)")
    right.set_xlabel("steps n")
    right.set_ylabel("forget-gate product f ** n\n(fraction, log scale)")

    for ax, table in ((left, highway.drop(columns="distance")), (right, forget_bias_init)):
        ax.set_yscale("log")
        decade_ticks(ax, table.drop(columns="forget_bias", errors="ignore").to_numpy())
        ax.set_ylim(top=3.0)
        ax.grid(True, which="major", alpha=0.3)
        ax.plot([], [], "o", color="grey", label="this run's table")
        ax.legend(loc="lower left")
    fig.tight_layout()
    save_figure(fig, path)
    return marked


def study_best_losses(published: Published, models) -> dict[str, object]:
    """``model -> StudyValue``: the study's median best validation loss of each model
    that has one (D3: LSTM w325, GRU w325, GRU w381)."""
    found = {model: published.one("gru_vs_lstm.csv", "seed_*", agg="median", model=model) for model in models}
    return {model: value for model, value in found.items() if value is not None}


def plot_val_loss_curves(curves: pd.DataFrame, path, published: Published | None = None) -> list[str]:
    """E2: validation loss (nats/char) against step; one colour per model, one line per
    seed. Right, the end of training enlarged, with the study's best validation loss
    of each model it trained (D3, the median of its seeds) dashed in the model's colour."""
    published = published or Published()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.6), gridspec_kw={"width_ratios": [1, 1.15]})
    models = list(dict.fromkeys(curves["model"]))
    colours = {model: f"C{k}" for k, model in enumerate(models)}
    widths = curves.groupby("model")["width"].first()
    late = curves["step"] >= curves["step"].max() / 2
    for ax, rows_of in ((left, curves[curves["step"] > 0]), (right, curves[late & (curves["step"] > 0)])):
        for model in models:
            for j, (_, seed_rows) in enumerate(rows_of[rows_of["model"] == model].groupby("seed")):
                label = model_label(model, widths[model]) if j == 0 and ax is left else None
                seed_rows = seed_rows.sort_values("step")
                ax.plot(
                    seed_rows["step"], seed_rows["val_loss"], color=colours[model], alpha=0.8, label=label
                )
        ax.set_xlabel("training step (steps)")
        ax.set_ylabel("validation loss (nats/char)")
        ax.grid(True, alpha=0.3)
    study = study_best_losses(published, models)
    for model, value in study.items():
        mark_level(
            right,
            value.number,
            f"{model_label(model, widths[model])}: {value.number:.4g}",
            colour=colours[model],
        )
    left.set_title("E2: validation loss, one line per seed")
    right.set_title("Second half; dashed: the study's best")
    left.legend(title="this run")
    if study:
        # the study's medians sit above this run's curves or among them: keep them in view
        low, high = right.get_ylim()
        levels = [v.number for v in study.values()]
        right.set_ylim(min(low, min(levels) - 0.01), max(high, max(levels) + 0.01))
        note = seeds_note(published, "gru_vs_lstm.csv", model=next(iter(study)))
        right.legend(title=study_label(list(study.values()), "best val. loss", note), fontsize=SMALL)
    fig.tight_layout()
    save_figure(fig, path)
    return ids(study.values())
