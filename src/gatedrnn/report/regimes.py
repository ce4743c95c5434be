"""The regime sweep's figure: every trained-gate statistic against the learning rate,
and, where the sweep has window axes, against the windows per batch (one line per
window length), with the study's published value of each (read from the claims) as a
dashed black line."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from gatedrnn.claims.ledger import protocol_windows
from gatedrnn.report.published_marks import Published, StudyValue, mark_level, study_label
from gatedrnn.report.style import plt, save_figure

# Each row of the figure: (column, axis label) per panel; the GRU has no i and f,
# so its last panel is the GRU-minus-LSTM loss gap.
FIGURE_PANELS = {
    "lstm": [
        ("best_val_loss", "best val. loss\n(nats/char)"),
        ("gate_mean", "forget gate f, mean\n(fraction kept)"),
        ("half_life_max", "largest unit half-life\n(characters)"),
        ("units_below_half", "units with mean f < 0.5\n(count)"),
        ("corr_i_one_minus_f", "corr(i, 1 - f)\n(Pearson r)"),
    ],
    "gru": [
        ("best_val_loss", "best val. loss\n(nats/char)"),
        ("gate_mean", "update gate z, mean\n(fraction kept)"),
        ("half_life_max", "largest unit half-life\n(characters)"),
        ("units_below_half", "units with mean z < 0.5\n(count)"),
        ("gru_minus_lstm", "loss minus the LSTM's\n(nats/char)"),
    ],
}
STUDY_LABEL = "study (its published value)"
GAP_COLUMN = "gru_minus_lstm"


def study_gap(published: Published, table: pd.DataFrame) -> tuple[float, list[StudyValue]] | None:
    """The study's GRU - LSTM loss gap, for the regime table's ``gru_minus_lstm``
    panels: its median best validation loss (D3) of the table's GRU minus its LSTM's,
    read from the published values; None where either is not published."""
    models = {cell: rows["model"].iloc[0] for cell, rows in table.groupby("cell") if "model" in rows}
    values = [
        published.one("gru_vs_lstm.csv", "seed_*", agg="median", model=models[cell])
        if cell in models
        else None
        for cell in ("gru", "lstm")
    ]
    if any(v is None for v in values):
        return None
    return values[0].number - values[1].number, values


def published_marks(claims, table_path: str) -> dict[tuple[str, str], float]:
    """``(cell, column) -> published value`` of every numeric claim whose
    ``across_regimes`` view reads one cell's column of the regime table."""
    marks = {}
    for claim in claims:
        view = claim.regime_view
        if view is None or view.selector is None or view.selector.table != table_path:
            continue
        cell = view.selector.where.get("cell")
        if isinstance(cell, str) and not isinstance(claim.published, str):
            marks.setdefault((cell, view.selector.column), float(np.median(claim.published)))  # seeds: median
    return marks


def split_window_axes(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the optimizer points, the window axes' points): the rows at the windows most
    regimes train at, and the rows at the protocol point's optimizer, learning rate and
    steps (the windows' own, and that point's); no window rows for a table without
    windows or with one pair of them."""
    if not {"batch_size", "seq_len"} <= set(table.columns):
        return table, table.iloc[0:0]
    windows = protocol_windows(table)
    at_protocol = (table["batch_size"] == windows[0]) & (table["seq_len"] == windows[1])
    others = table[~at_protocol]
    if others.empty:
        return table, others
    point = others.iloc[0][["optimizer", "lr", "steps"]]
    same_point = (
        (table["optimizer"] == point["optimizer"])
        & (table["lr"] == point["lr"])
        & (table["steps"] == point["steps"])
    )
    return table[at_protocol], table[same_point]


def plot_regime_sensitivity(
    table: pd.DataFrame, marks: Mapping, path, gap: tuple[float, list[StudyValue]] | None = None
) -> None:
    """Each statistic against the learning rate (log axis): one row of panels per
    cell, one line per (optimizer, steps), the study's published value as a dashed
    black line (``gap``, :func:`study_gap`: on the GRU - LSTM loss gap's panels); then,
    where the sweep has window axes, one row per cell against the windows per batch,
    one line per window length. No text below 9 pt (``style``)."""
    optimizer_rows, window_rows = split_window_axes(table)
    figure_rows = [(cell, panels, "lr") for cell, panels in FIGURE_PANELS.items()]
    if not window_rows.empty:
        figure_rows += [(cell, panels, "batch_size") for cell, panels in FIGURE_PANELS.items()]
    fig, axes = plt.subplots(len(figure_rows), 5, figsize=(12, 3.0 * len(figure_rows) + 1.0), squeeze=False)
    for row, (cell, panels, x) in enumerate(figure_rows):
        rows = optimizer_rows if x == "lr" else window_rows
        rows = rows[rows["cell"] == cell]
        for col, (column, label) in enumerate(panels):
            ax = axes[row][col]
            for line, line_label, colour, style in lines_of(rows, x):
                ax.plot(line[x], line[column], color=colour, linestyle=style, marker="o", markersize=4,
                        label=line_label)  # fmt: skip
            if (cell, column) in marks:
                mark_level(ax, marks[(cell, column)], STUDY_LABEL)
            if column == GAP_COLUMN:
                ax.axhline(0.0, color="grey", linewidth=0.8)
                if gap is not None:
                    mark_level(ax, gap[0], study_label(gap[1], "GRU - LSTM, medians"))
            ax.set_xscale("log", base=10 if x == "lr" else 2)
            if column == "half_life_max":  # from a few characters to hundreds
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
                ax.yaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("learning rate" if x == "lr" else "windows per batch")
            ax.set_title(f"{cell.upper()}: {label}", fontsize=10)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes.ravel():
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            if text not in labels:
                handles.append(handle)
                labels.append(text)
    ncol = min(len(labels), 3)
    fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False)
    fig.suptitle("H: trained-gate statistics across training regimes (regime_sensitivity.csv)")
    legend_rows = -(-len(labels) // ncol)
    fig.tight_layout(rect=(0, (0.15 + 0.2 * legend_rows) / fig.get_figheight(), 1, 1))
    save_figure(fig, path)


def lines_of(rows: pd.DataFrame, x: str):
    """(rows of one line sorted by ``x``, label, colour, style): per (optimizer, steps)
    against the learning rate, per window length against the windows per batch."""
    styles = ["-", "--", ":", "-."]
    if x == "lr":
        lengths = sorted(set(rows["steps"]))
        for o, optimizer in enumerate(dict.fromkeys(rows["optimizer"])):
            for s, steps in enumerate(lengths):
                line = rows[(rows["optimizer"] == optimizer) & (rows["steps"] == steps)].sort_values(x)
                if not line.empty:
                    yield line, f"{optimizer}, {steps} steps", f"C{o}", styles[s % len(styles)]
        return
    for n, seq_len in enumerate(sorted(set(rows["seq_len"]))):
        line = rows[rows["seq_len"] == seq_len].sort_values(x)
        yield line, f"windows of {int(seq_len)} chars", f"C{n + 4}", "-"
