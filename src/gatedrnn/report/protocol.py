"""The protocol's figure: the Pareto front of regimes, each regime's loss distance
from the study against its gate distance (:mod:`gatedrnn.claims.front`), both with
their bootstrap intervals; the front's regimes named with both distances. Regimes
whose gate block the regime tables cannot score sit in a strip below the axes,
placed by their loss distance alone. A regime whose distances rest on fewer seeds than
the confirmation's (``confirmed`` False, issue #48) is an open marker, the legend
saying on how many seeds (from the table); a table without ``confirmed`` is drawn with
every marker filled."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from gatedrnn.claims.ledger import protocol_windows, windows_of, windows_text
from gatedrnn.report.style import SMALL, plt, save_figure

# A round-two point's `train` axis, as a label says it (lr and corpus size show already).
AXIS_WORDS = {"clip_norm": "clip", "momentum": "momentum", "weight_decay": "weight decay"}


def regime_label(row, windows: tuple[int, int] | None = None) -> str:
    """``adam 0.002 x 800`` (`` at 16x256``: its windows, where the row has them and
    they are not ``windows``; ``, small corpus`` on another dataset, ``, small corpus
    of 550,000 characters`` on a round-two size of it; ``, clip 5``: a round-two
    point's `train` axis, where the row names it)."""
    label = f"{row['optimizer']} {float(row['lr']):g} x {int(row['steps'])}"
    # row.keys(): a dict's keys and a Series' index alike (set(series) would be its values)
    if {"batch_size", "seq_len"} <= set(row.keys()) and windows_of(row) != windows:
        label += f" at {windows_text(row)}"
    dataset = str(row.get("dataset", "default"))
    sized = re.fullmatch(r"(.+)_(\d+)", dataset)
    if sized:
        label += f", {sized[1].replace('_', ' ')} of {int(sized[2]):,} characters"
    elif dataset != "default":
        label += f", {dataset.replace('_', ' ')}"
    axis = row.get("axis")
    if isinstance(axis, str) and axis in AXIS_WORDS:
        label += f", {AXIS_WORDS[axis]} {float(row['value']):g}"
    return label


def distance_text(row, block: str) -> str:
    """``0.599 [0.109, 4.75]``: a block's distance and its interval."""
    if math.isnan(row[block]):
        return "not scored"
    return f"{row[block]:.3g} [{row[f'{block}_low']:.3g}, {row[f'{block}_high']:.3g}]"


def _log_axis(axis) -> None:
    axis.set_major_locator(LogLocator(subs=(1.0, 3.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


# (which rows, colour, legend label), drawn in this order (the front on top)
KINDS = [
    (lambda t: t[~t["on_front"].astype(bool) & ~t["near_front"].astype(bool)], "#999999", "regime"),
    (lambda t: t[t["near_front"].astype(bool) & ~t["on_front"].astype(bool)], "tab:orange",
     "within its interval of the front"),
    (lambda t: t[t["on_front"].astype(bool)], "tab:blue", "on the front (numbered below)"),
]  # fmt: skip


def _bars(rows: pd.DataFrame, block: str) -> list:
    return [rows[block] - rows[f"{block}_low"].clip(upper=rows[block]), rows[f"{block}_high"] - rows[block]]


def _confirmed(rows: pd.DataFrame) -> pd.Series:
    """Whether each row is confirmed (True throughout a table made before the column)."""
    if "confirmed" not in rows.columns:
        return pd.Series(True, index=rows.index)
    return rows["confirmed"].astype(bool)


def _round_two(rows: pd.DataFrame) -> pd.Series:
    """Whether each row is a round-two point (False throughout round one's table)."""
    if "round" not in rows.columns:
        return pd.Series(False, index=rows.index)
    return rows["round"] == 2


def unconfirmed_label(front: pd.DataFrame) -> str | None:
    """``open: 1 seed, not yet confirmed`` (the unconfirmed rows' seeds, from the table);
    None where every row is confirmed or the table predates the column."""
    rows = front[~_confirmed(front) & front[["loss", "gates"]].notna().any(axis=1)]  # drawn rows only
    if rows.empty:
        return None
    counts = sorted({int(s) for s in rows["seeds"]})
    seeds = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    return f"open: {seeds} seed{'s' * (counts[-1] != 1)}, not yet confirmed"


def plot_front(front: pd.DataFrame, path) -> None:
    """:func:`front_figure` of ``front``, saved to ``path``."""
    save_figure(front_figure(front), path)


def front_figure(front: pd.DataFrame):
    """Loss distance (x) against gate distance (y), log axes, 95 % intervals as bars;
    regimes without a gate block on a strip of their own (their loss distance alone);
    unconfirmed regimes as open markers, round two's points (both rounds' table) as
    squares; a regime scored on neither block (it diverged) is not drawn."""
    windows = protocol_windows(front)
    scored = front[front["loss"].notna() & front["gates"].notna()]
    loss_only = front[front["loss"].notna() & front["gates"].isna()]
    named = front[front["on_front"].astype(bool)].sort_values("loss", kind="stable").reset_index(drop=True)
    panels = [p for p, rows in (("both", scored), ("loss", loss_only)) if len(rows)] or ["loss"]
    heights = {"both": 5.0, "loss": 1.6}
    fig, axes = plt.subplots(
        len(panels), 1, sharex=True, squeeze=False,
        figsize=(9, sum(heights[p] for p in panels) + 1.6 + 0.2 * len(named)),
        gridspec_kw={"height_ratios": [heights[p] for p in panels]},
    )  # fmt: skip
    axes = dict(zip(panels, axes[:, 0], strict=True))
    last = list(axes)[-1]  # the legend is the last panel's: its kinds, each as a filled circle
    kinds = []
    for select, colour, label in KINDS:
        for panel, rows in (("both", select(scored)), ("loss", select(loss_only))):
            if panel == last and len(rows):
                kinds.append(Line2D([], [], marker="o", linestyle="none", ms=5, color=colour, label=label))
            for (confirmed, face), (second, marker) in itertools.product(
                ((True, {}), (False, {"mfc": "white", "mew": 1.2})), ((False, "o"), (True, "s"))
            ):
                style = {"fmt": marker, "color": colour, "ms": 5, "capsize": 2, "elinewidth": 0.8}
                part = rows[(_confirmed(rows) == confirmed) & (_round_two(rows) == second)]
                if panel not in axes or part.empty:
                    continue
                y = part["gates"] if panel == "both" else np.zeros(len(part))
                yerr = _bars(part, "gates") if panel == "both" else None
                axes[panel].errorbar(part["loss"], y, xerr=_bars(part, "loss"), yerr=yerr, label="_" + label,
                                     **style, **face)  # fmt: skip
    for ax in axes.values():
        ax.axvline(1.0, color="grey", linestyle=":", linewidth=1, label="1: seed noise alone")
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
    if "both" in axes:
        axes["both"].axhline(1.0, color="grey", linestyle=":", linewidth=1)
        axes["both"].set_yscale("log")
        _log_axis(axes["both"].yaxis)
        axes["both"].set_ylabel("gate distance (mean z\u00b2 over gate\nquantiles and half-lives; log axis)")
    if "loss" in axes:
        axes["loss"].set_yticks([])
        axes["loss"].set_ylim(-1, 1.6)
        reason = str(loss_only["gates_unscored"].iloc[0]) if len(loss_only) else ""
        axes["loss"].set_title(f"gate block not scored: {reason}", fontsize=SMALL)
    handles, labels = axes[last].get_legend_handles_labels()
    handles, labels = handles + kinds, labels + [k.get_label() for k in kinds]
    if unconfirmed_label(front) is not None:  # what an open marker means, the seeds from the table
        handles.append(Line2D([], [], marker="o", linestyle="none", ms=5, color="black", mfc="white"))
        labels.append(unconfirmed_label(front))
    if _round_two(front).any():  # both rounds: round two's points as squares
        handles.append(Line2D([], [], marker="s", linestyle="none", ms=5, color="black"))
        labels.append("square: round two's point")
    columns = 4 if len(handles) <= 4 else 3  # five entries in two rows that fit the width
    fig.legend(handles, labels, loc="lower center", ncol=columns, frameon=False, fontsize=SMALL,
               bbox_to_anchor=(0.5, (0.3 + 0.2 * len(named)) / fig.get_figheight()))  # fmt: skip
    list(axes.values())[-1].set_xlabel(
        "loss distance (mean z\u00b2 over the LSTM and budget GRU losses and their gap)"
    )
    which = "Both rounds' regimes" if _round_two(front).any() else "Each regime"
    fig.suptitle(f"H: which protocol reproduces the study? {which}: distance from it (95 % intervals)")
    lines = [
        f"{n}. {regime_label(row, windows)}: loss {distance_text(row, 'loss')}, "
        f"gates {distance_text(row, 'gates')} ({int(row['seeds'])} seed{'s' * (int(row['seeds']) != 1)}"
        f"{'' if row.get('confirmed', True) else ', not yet confirmed'})"
        for n, row in enumerate(named.to_dict("records"), start=1)
    ]
    bottom = (0.7 + 0.2 * len(lines)) / fig.get_figheight()
    fig.text(0.02, 0.01, "\n".join(lines), fontsize=SMALL, va="bottom", ha="left")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    _number_front(fig, axes, named)  # after the layout: the numbers go where they end up drawn
    return fig


# Where a front regime's number may sit, in points from its marker: above left first,
# then around it, so that two regimes drawn close together keep both numbers legible.
NUMBER_OFFSETS = ((-4, 7), (5, -13), (6, 3), (-14, -13), (-16, 3), (-4, 17), (8, 12), (-18, 14))


def _number_front(fig, axes: dict, named: pd.DataFrame) -> None:
    """Each front regime's number beside its marker, at the first of
    :data:`NUMBER_OFFSETS` where its drawn box overlaps no number placed before it."""
    fig.draw_without_rendering()  # final limits and positions, for the display coordinates
    renderer = fig.canvas.get_renderer()
    placed = []  # the numbers' boxes as drawn
    for number, row in enumerate(named.to_dict("records"), start=1):
        ax, y = (axes["loss"], 0.0) if math.isnan(row["gates"]) else (axes["both"], row["gates"])
        label = ax.annotate(str(number), (row["loss"], y), xytext=NUMBER_OFFSETS[0],
                            textcoords="offset points", fontsize=SMALL, fontweight="bold",
                            color="tab:blue")  # fmt: skip
        for offset in (*NUMBER_OFFSETS, NUMBER_OFFSETS[0]):  # crowded all round: the usual place
            label.xyann = offset
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed):
                break
        placed.append(box)
