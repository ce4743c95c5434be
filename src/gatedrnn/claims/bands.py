"""The numbers of the claims language: how a ``within`` band is measured (its scale,
its width, the run's seed spread) and how the ledger writes values and bands.

Pure arithmetic on floats, the lowest module of :mod:`gatedrnn.claims`; the
tolerances are specified for users in ``docs/claims-language.md``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gatedrnn.core import exact_math

# The scales a band is measured on: ±x on the scale means the same at both ends of
# the quantity's range (logit for a gate value in (0, 1); log for a positive quantity
# spanning magnitudes; half_life for the fraction of a difference left after k steps).
SCALES = ("linear", "logit", "log", "half_life")
WIDTH_KEYS = {"linear": {"abs", "rel"}, "logit": {"abs"}, "log": {"factor"}, "half_life": {"factor"}}
WITHIN_KEYS = {"abs", "rel", "factor", "range", "scale", "spread", "after", "overlap"}


def format_value(value, digits: int = 4) -> str:
    """A value for the ledger: numbers to ``digits`` significant digits."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, tuple):  # a published set of seed values
        return (
            f"{format_value(min(value), digits)} .. {format_value(max(value), digits)} "
            f"({len(value)} seeds, median {format_value(statistics.median(value), digits)})"
        )
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.{digits}g}"


def scale_of(tolerance: Mapping) -> str:
    """The band's scale: ``scale`` if given, ``log`` for a bare ``factor``, else linear."""
    return tolerance.get("scale", "log" if "factor" in tolerance else "linear")


def to_scale(value: float, scale: str, after: float = 1.0) -> float:
    """``value`` on ``scale`` (monotone increasing; +-inf at the ends of its domain)."""
    if math.isnan(value):
        return math.nan
    if scale == "linear":
        return value
    if scale == "logit":
        if value <= 0 or value >= 1:
            return math.copysign(math.inf, value - 0.5)
        return float(exact_math.log(value / (1 - value)))
    if scale == "log":
        return float(exact_math.log(value)) if value > 0 else -math.inf
    if scale == "half_life":  # ln of the half-life implied by `value` left after `after` steps
        if value >= 1:  # no decay: the difference never halves
            return math.inf
        if value <= 0:
            return -math.inf
        return float(exact_math.log(after * exact_math.log(0.5) / exact_math.log(value)))
    raise ValueError(f"unknown scale {scale!r}")


def from_scale(value: float, scale: str, after: float = 1.0) -> float:
    """The inverse of :func:`to_scale`."""
    if scale == "linear":
        return value
    if scale == "logit":
        return float(1 / (1 + exact_math.exp(-value))) if value > -700 else 0.0
    if scale == "log":
        return float(exact_math.exp(value))
    if scale == "half_life":
        return float(exact_math.power(0.5, after / exact_math.exp(value)))
    raise ValueError(f"unknown scale {scale!r}")


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{what} must be a number, not {value!r}")
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{what} must be a number, not {value!r}") from None


def check_within(tolerance: Mapping, published) -> None:
    """Refuse a ``within`` band that does not say what it measures (ValueError)."""
    keys = set(tolerance)
    if keys - WITHIN_KEYS or not keys:
        raise ValueError(f"within tolerance keys are {sorted(WITHIN_KEYS)}, got {sorted(keys)}")
    if tolerance.get("overlap"):
        if keys != {"overlap"} or not isinstance(published, tuple) or len(published) < 2:
            raise ValueError("`overlap: true` stands alone, with `published` a list of seed values")
        return
    if isinstance(published, tuple):  # the study's seeds: judged around their median, spreads combined
        if len(published) < 2 or "range" in tolerance:
            raise ValueError("a list of published values holds two seeds or more, with a width (not a range)")
        published = statistics.median(published)
    if "range" in tolerance:
        bounds = tolerance["range"]
        if keys != {"range"} or not isinstance(bounds, list) or len(bounds) != 2:
            raise ValueError("`range: [lo, hi]` stands alone")
        if _number(bounds[0], "range") > _number(bounds[1], "range"):
            raise ValueError("range [lo, hi] needs lo <= hi")
        return
    scale = scale_of(tolerance)
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, not {scale!r}")
    width = WIDTH_KEYS[scale]
    if not keys & width or keys & ({"abs", "rel", "factor"} - width):
        raise ValueError(f"on the {scale} scale the band's width is {sorted(width)}, got {sorted(keys)}")
    for key in sorted(keys & {"abs", "rel", "factor"}):
        value = _number(tolerance[key], key)
        if value < 0 or (key == "factor" and value < 1):
            raise ValueError(f"{key} must be {'>= 1' if key == 'factor' else '>= 0'}")
    if (scale == "half_life") != ("after" in tolerance):
        raise ValueError("`after: k` (characters) goes with, and only with, scale: half_life")
    if "after" in tolerance and _number(tolerance["after"], "after") <= 0:
        raise ValueError("after must be > 0")
    if "spread" in tolerance and not isinstance(tolerance["spread"], bool):
        raise ValueError("spread is true or false")
    if scale == "logit" and not 0 < published < 1:
        raise ValueError("the logit scale needs a published value in (0, 1)")
    if scale in ("log", "half_life") and published <= 0:
        raise ValueError(f"the {scale} scale needs a positive published value")


@dataclass(frozen=True)
class Band:
    """The values a ``within`` claim accepts: ``low <= value <= high`` (for a set:
    the reproduced range meets ``[low, high]``, the published range)."""

    low: float
    high: float
    scale: str = "linear"
    half_width: float | None = None  # on the scale; None for a range or a set
    after: float = 1.0
    overlap: bool = False  # a set: [low, high] is the published range

    def holds(self, value: float) -> bool:
        return not math.isnan(value) and self.low <= value <= self.high

    def text(self) -> str:
        """``±0.015`` (a symmetric linear band) or ``[0.471, 0.523]`` (a set: none)."""
        if self.overlap:
            return ""
        if self.scale == "linear" and self.half_width is not None:
            width = self.half_width
            return f"±{format_value(width, 2)}" if width < 1000 else f"±{round(width):,}"
        return f"[{format_value(self.low)}, {format_value(self.high)}]"


def seed_spread(values: Sequence[float], scale: str, after: float = 1.0) -> float:
    """The range (max - min) of the run's seed values on ``scale`` (0 for one seed)."""
    points = [to_scale(float(v), scale, after) for v in values]
    points = [p for p in points if not math.isnan(p)]
    return max(points) - min(points) if len(points) > 1 else 0.0


def floor_width(tolerance: Mapping, published: float) -> float:
    """The band's stated half-width on its scale (the least it may be with ``spread``)."""
    scale = scale_of(tolerance)
    if scale == "linear":
        return float(tolerance.get("abs", 0.0)) + float(tolerance.get("rel", 0.0)) * abs(published)
    if scale == "logit":
        return float(tolerance["abs"])
    return float(exact_math.log(float(tolerance["factor"])))


def make_band(
    tolerance: Mapping, published, cells: Sequence[float] = (), half_width: float | None = None
) -> Band:
    """The band of a ``within`` tolerance. ``cells``: the values the claim read (its
    seeds), for ``spread``; ``half_width`` (on the scale) replaces the computed width
    (a regime view judged with its claim's band)."""
    if tolerance.get("overlap"):
        return Band(min(published), max(published), overlap=True)
    if "range" in tolerance:
        low, high = (float(v) for v in tolerance["range"])
        return Band(low, high)
    if isinstance(published, tuple):  # the study's seeds: their median is the centre
        published = statistics.median(published)
    scale, after = scale_of(tolerance), float(tolerance.get("after", 1.0))
    if half_width is None:
        half_width = floor_width(tolerance, published)
        if tolerance.get("spread"):
            half_width = max(half_width, seed_spread(cells, scale, after))
    centre = to_scale(float(published), scale, after)
    low = from_scale(centre - half_width, scale, after)
    high = from_scale(centre + half_width, scale, after)
    return Band(low, high, scale, half_width, after)


def describe_tolerance(rule: str, tolerance: Mapping) -> str:
    """The tolerance in words for the ledger (``2 significant digits``, ``±0.1``, ...)."""
    if rule == "within" and tolerance.get("overlap"):
        return "the published and reproduced seed ranges overlap"
    if rule == "within" and "range" in tolerance:
        low, high = tolerance["range"]
        return f"in [{format_value(float(low))}, {format_value(float(high))}]"
    parts = []
    if "sig_digits" in tolerance:
        parts.append(f"{tolerance['sig_digits']} significant digits")
    if "abs" in tolerance:
        parts.append(f"±{format_value(float(tolerance['abs']))}")
    if "rel" in tolerance:
        parts.append(f"±{format_value(100 * float(tolerance['rel']))} %")
    if "factor" in tolerance:
        parts.append(f"x/÷ {format_value(float(tolerance['factor']))}")
    if rule == "exact":
        return "; ".join(parts) or "equal"
    scale = scale_of(tolerance)
    text = " ".join(parts)
    if scale == "logit":
        text = f"logit {text}"
    elif scale == "half_life":
        after = float(tolerance["after"])
        text = f"{text} on the half-life it implies after {format_value(after)} character{'s' * (after != 1)}"
    if tolerance.get("spread"):  # the ledger judges by the margin; a regime view's band may widen
        return f"margin {text} (a regime view: at least the run's seed range)"
    return f"margin {text}"
