"""The one figure style: Agg backend, fixed DPI, PNGs without a software stamp, text
sizes that read on a laptop screen at the figures' widths (6.5 to 11 inches).

Every figure is drawn from the CSV tables alone (never from recomputation) and
saved by :func:`save_figure`, so that the PNG bytes depend only on the data.
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

PNG_METADATA = {"Software": None}
DPI = 150
# No text below 9 points: at 150 dpi a 9-point letter is about 19 pixels tall.
plt.rcParams.update(
    {
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "xtick.labelsize": 9,
        "ytick.labelsize": 9,
        "legend.fontsize": 9,
        "figure.titlesize": 12,
    }
)
SMALL = 9  # the smallest text a figure sets itself (annotations, crowded legends)

_MODEL = re.compile(r"^(?P<cell>[a-z][a-z_]*)_(?:w(?P<width>\d+)|budget(?P<budget>\d+))$")


def model_label(model: str, width: int | None = None) -> str:
    """A model id as the study names it: ``lstm_w325`` -> ``LSTM w325``;
    ``gru_budget325`` -> ``GRU w381 (budget-matched)`` given its width 381, else
    ``GRU (budget of LSTM w325)``; any other name unchanged."""
    match = _MODEL.match(str(model))
    if match is None:
        return str(model)
    cell = match["cell"].upper().replace("_", " ")
    if match["width"]:
        return f"{cell} w{match['width']}"
    if width is not None:
        return f"{cell} w{int(width)} (budget-matched)"
    return f"{cell} (budget of LSTM w{match['budget']})"


def save_figure(fig, path) -> None:
    """Save ``fig`` to ``path`` as a PNG with stable bytes, then close it."""
    fig.savefig(path, dpi=DPI, metadata=PNG_METADATA)
    plt.close(fig)
