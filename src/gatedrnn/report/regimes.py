"""The regime sweep's figure: every trained-gate statistic against the learning rate,
with the published value of each (read from the claims) as a dotted line."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from gatedrnn.report.style import plt, save_figure

# Each row of the figure: (column, axis label) per panel; the GRU has no i and f,
# so its last panel is the GRU-minus-LSTM loss gap.
FIGURE_PANELS = {
    "lstm": [
        ("best_val_loss", "best val loss (nats/char)"),
        ("gate_mean", "forget gate f, mean"),
        ("half_life_max", "largest unit half-life (chars)"),
        ("units_below_half", "units with mean f < 0.5"),
        ("corr_i_one_minus_f", "corr(i, 1 - f)"),
    ],
    "gru": [
        ("best_val_loss", "best val loss (nats/char)"),
        ("gate_mean", "update gate z (kept), mean"),
        ("half_life_max", "largest unit half-life (chars)"),
        ("units_below_half", "units with mean z < 0.5"),
        ("gru_minus_lstm", "GRU - LSTM best val loss"),
    ],
}


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
            marks.setdefault((cell, view.selector.column), float(claim.published))
    return marks


def plot_regime_sensitivity(table: pd.DataFrame, marks: Mapping, path) -> None:
    """Each statistic against the learning rate (log axis): one row of panels per
    cell, one line per (optimizer, steps), the published value as a dotted line."""
    optimizers = list(dict.fromkeys(table["optimizer"]))
    lengths = sorted(set(table["steps"]))
    styles = ["-", "--", ":", "-."]
    fig, axes = plt.subplots(2, 5, figsize=(17, 6.4), squeeze=False)
    for row, (cell, panels) in enumerate(FIGURE_PANELS.items()):
        rows = table[table["cell"] == cell]
        for col, (column, label) in enumerate(panels):
            ax = axes[row][col]
            for o, optimizer in enumerate(optimizers):
                for s, steps in enumerate(lengths):
                    line = rows[(rows["optimizer"] == optimizer) & (rows["steps"] == steps)].sort_values("lr")
                    if line.empty:
                        continue
                    ax.plot(
                        line["lr"],
                        line[column],
                        color=f"C{o}",
                        linestyle=styles[s % len(styles)],
                        marker="o",
                        markersize=4,
                        label=f"{optimizer}, {steps} steps",
                    )
            if (cell, column) in marks:
                published = marks[(cell, column)]
                ax.axhline(published, color="black", linestyle=":", linewidth=1.2, label="published")
            if column == "gru_minus_lstm":
                ax.axhline(0.0, color="grey", linewidth=0.8)
            ax.set_xscale("log")
            if column == "half_life_max":  # from a few characters to hundreds
                ax.set_yscale("log")
            ax.set_xlabel("learning rate")
            ax.set_title(f"{cell.upper()}: {label}", fontsize=9)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes.ravel():
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            if text not in labels:
                handles.append(handle)
                labels.append(text)
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle("Trained-gate statistics across training regimes (regime_sensitivity.csv)", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    save_figure(fig, path)
