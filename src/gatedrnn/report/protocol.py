"""The scoreboard's figure: how many of the study's trained claims each regime
reproduces (left) and how far its values sit from the published ones in units of
their bands (right), best regime at the top; the confirmation over more seeds of the
best regimes as open markers beside their first seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from gatedrnn.claims.ledger import protocol_windows, windows_of, windows_text
from gatedrnn.report.style import SMALL, plt, save_figure

# (column, legend label, colour): agreements in greens, disagreements in reds.
TALLY_BARS = [
    ("values_reproduced", "values reproduced", "#1b7837"),
    ("findings_hold", "findings hold", "#7fbf7b"),
    ("values_differ", "values differ", "#d6604d"),
    ("findings_fail", "findings fail", "#f4a582"),
    ("not_judged", "not judged (diverged, missing)", "#bababa"),
]


def regime_label(row, windows: tuple[int, int] | None = None) -> str:
    """``adam 0.002 x 800`` (`` at 16x256``: its windows, where the row has them and
    they are not ``windows``; ``, small corpus`` on another dataset)."""
    label = f"{row['optimizer']} {float(row['lr']):g} x {int(row['steps'])}"
    # row.keys(): a dict's keys and a Series' index alike (set(series) would be its values)
    if {"batch_size", "seq_len"} <= set(row.keys()) and windows_of(row) != windows:
        label += f" at {windows_text(row)}"
    if row.get("dataset", "default") != "default":
        label += f", {str(row['dataset']).replace('_', ' ')}"
    return label


def plot_scoreboard(table: pd.DataFrame, confirmation: pd.DataFrame, path) -> None:
    table = table.sort_values("rank")
    windows = protocol_windows(table)
    labels = [regime_label(row, windows) for row in table.to_dict("records")]
    y = np.arange(len(table))[::-1]  # rank 1 at the top
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(11, 0.34 * len(table) + 2.4), sharey=True, gridspec_kw={"width_ratios": [3, 2]}
    )
    start = np.zeros(len(table))
    for column, label, colour in TALLY_BARS:
        values = table[column].to_numpy(dtype=float)
        left.barh(y, values, left=start, color=colour, label=label, height=0.7)
        start += values
    left.set_yticks(y, labels, fontsize=SMALL)
    left.set_ylim(-0.6, len(table) - 0.4)
    left.set_xlabel("trained claims judged under the regime (count)")
    left.set_title("Verdicts per regime (best regime at the top)")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=3, frameon=False)
    right.scatter(table["band_distance"], y, color="black", s=14, label="first seeds")
    confirmed = confirmation.set_index("regime")
    labelled = False
    for row_y, regime in zip(y, table["regime"], strict=True):
        if regime in confirmed.index:
            right.scatter(
                confirmed.loc[regime, "band_distance"], row_y, facecolors="none", edgecolors="tab:blue", s=40,
                label=None if labelled else f"{int(confirmed.loc[regime, 'seeds'])} seeds (confirmation)",
            )  # fmt: skip
            labelled = True
    right.axvline(1.0, color="grey", linestyle=":", linewidth=1, label="1: on the band's edge")
    right.set_xscale("log")
    right.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    right.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    right.xaxis.set_minor_formatter(NullFormatter())
    right.set_xlabel("band distance (RMS, in band half-widths)")
    right.set_title("Distance from the study's values")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=1, frameon=False)
    fig.suptitle("H: which protocol reproduces the study? Every regime against the published claims")
    fig.tight_layout()
    save_figure(fig, path)
