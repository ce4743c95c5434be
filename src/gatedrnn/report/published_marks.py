"""The study's published values a figure marks, read from ``workflow/resources/published.yaml``
(never typed into code), and the one way every figure draws them.

A figure asks for the value of the very cell it draws, by the table, column and
``where`` keys the claim is judged on (:meth:`Published.find`, :meth:`Published.one`),
or by claim id (:meth:`Published.get`); a figure whose quantity has no published
value finds nothing and marks nothing. Every plotting function returns the ids of
the claims it marked, which its rule script logs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gatedrnn.claims import Claim, load_claims

# The legend's word for a published value (and the ``gid`` of every artist that draws
# one), and how it is drawn: black, apart from the
# run's colours (or edged in black and filled with the colour of the series they belong
# to); points as an 'x', levels as a dashed line.
STUDY = "study"
STUDY_COLOUR = "black"
STUDY_POINT = {
    "color": STUDY_COLOUR,
    "marker": "x",
    "markersize": 8,
    "markeredgewidth": 1.8,
    "linestyle": "none",
}
STUDY_LINE = {"linestyle": "--", "linewidth": 1.3}
ANY = object()  # find(..., agg=ANY): whatever the claim's aggregate


@dataclass(frozen=True)
class StudyValue:
    """One published number (or one published set of seeds) and the cell it is judged on."""

    claim_id: str
    experiment: str
    value: float | tuple[float, ...]
    description: str
    table: str
    column: str
    where: Mapping = field(default_factory=dict)
    agg: str | None = None
    source: str = "spec"

    @property
    def number(self) -> float:
        """The value; for a set of seeds, their median (what the study's table prints)."""
        if isinstance(self.value, tuple):
            return float(np.median(self.value))
        return float(self.value)

    @property
    def seeds(self) -> tuple[float, ...]:
        return self.value if isinstance(self.value, tuple) else (float(self.value),)


def _same(a, b) -> bool:
    """A ``where`` value against a figure's: numbers as numbers (10 == 10.0), else text."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


class Published:
    """The numeric published values of a claims file, with the grid's model names filled in."""

    def __init__(self, claims: Iterable[Claim] = ()):
        self.values: dict[str, StudyValue] = {}
        for claim in claims:
            number = isinstance(claim.published, (int, float)) and not isinstance(claim.published, bool)
            seeds = isinstance(claim.published, tuple)
            if claim.selector is None or claim.rule not in ("exact", "within") or not (number or seeds):
                continue
            self.values[claim.id] = StudyValue(
                claim_id=claim.id,
                experiment=claim.experiment,
                value=claim.published if seeds else float(claim.published),
                description=claim.description,
                table=claim.selector.table,
                column=claim.selector.column,
                where=dict(claim.selector.where),
                agg=claim.selector.agg,
                source=claim.source,
            )

    @classmethod
    def load(cls, path: str | Path, models: Mapping[str, str] | None = None) -> Published:
        """The values of ``published.yaml``, its ``{placeholders}`` filled from ``models``
        (the plan's ``claim_models``: ``{reference_lstm}`` -> ``lstm_w325``, ...)."""
        claims = load_claims(path)
        return cls([claim.fill(models) for claim in claims] if models is not None else claims)

    def __len__(self) -> int:
        return len(self.values)

    def get(self, claim_id: str) -> StudyValue | None:
        return self.values.get(claim_id)

    def find(self, table: str | None, column: str, agg=ANY, **where) -> list[StudyValue]:
        """Every value judged on ``column`` of ``table`` (its file name will do; None: any
        table) whose ``where`` has each of the given keys at the given value, in the
        file's order; ``agg``: only claims with this aggregate (None: none)."""
        found = []
        for value in self.values.values():
            if table is not None and value.table != table and Path(value.table).name != table:
                continue
            if value.column != column or (agg is not ANY and value.agg != agg):
                continue
            if all(key in value.where and _same(value.where[key], want) for key, want in where.items()):
                found.append(value)
        return found

    def one(self, table: str | None, column: str, agg=ANY, **where) -> StudyValue | None:
        """The one value :meth:`find` finds, or None; several is an error (the figure
        would have to choose)."""
        found = self.find(table, column, agg, **where)
        if len(found) > 1:
            raise ValueError(
                f"{len(found)} published values for {table} {column} {where}: {[v.claim_id for v in found]}"
            )
        return found[0] if found else None


def study_label(values: StudyValue | Iterable[StudyValue], what: str = "", note: str = "") -> str:
    """``study (D3, median of 3 seeds): what`` -- the experiment(s), ``note`` (how the
    study's number was made where it is not one model's), and ``spec's formula`` where
    the spec printed a formula and the value is its."""
    values = [values] if isinstance(values, StudyValue) else list(values)
    notes = [", ".join(sorted(set(v.experiment for v in values)))] if values else []
    if note:
        notes.append(note)
    if values and all(v.source == "formula" for v in values):
        notes.append("spec's formula")
    label = f"{STUDY} ({'; '.join(notes)})" if notes else STUDY
    return f"{label}: {what}" if what else label


def seeds_note(published: Published, table: str, **where) -> str:
    """``median of 3 seeds``: how many seeds the study's median is over, where the
    file publishes them (a ``seed_*`` claim of the same cell with a list of seeds),
    else ``median over seeds``."""
    runs = [v for v in published.find(table, "seed_*", **where) if len(v.seeds) > 1]
    return f"median of {len(runs[0].seeds)} seeds" if runs else "median over seeds"


def mark_points(ax, xs, ys, label: str | None, colour: str | None = None, **style) -> None:
    """The study's values at (xs, ys) above the run's lines: black crosses, or, where
    they belong to one of several series, crosses filled with the series' ``colour``
    and edged in black."""
    if colour is not None:
        style = {"marker": "X", "markersize": 10, "markeredgewidth": 1.0, "markeredgecolor": STUDY_COLOUR,
                 "markerfacecolor": colour, **style}  # fmt: skip
    ax.plot(xs, ys, label=label, zorder=5, gid=STUDY, **{**STUDY_POINT, **style})


def mark_level(ax, y: float, label: str | None, colour: str = STUDY_COLOUR, **style) -> None:
    """The study's value as a dashed horizontal line across the panel."""
    ax.axhline(y, color=colour, label=label, zorder=4, gid=STUDY, **{**STUDY_LINE, **style})


def ids(values: Iterable[StudyValue | None]) -> list[str]:
    """The claim ids of the values a figure marked (None: nothing found), in order."""
    return [v.claim_id for v in values if v is not None]
