"""The one figure style: Agg backend, fixed DPI, PNGs without a software stamp.

Every figure is drawn from the CSV tables alone (never from recomputation) and
saved by :func:`save_figure`, so that the PNG bytes depend only on the data.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

PNG_METADATA = {"Software": None}
DPI = 150


def save_figure(fig, path) -> None:
    """Save ``fig`` to ``path`` as a PNG with stable bytes, then close it."""
    fig.savefig(path, dpi=DPI, metadata=PNG_METADATA)
    plt.close(fig)
