"""The claims ledger (spec F): every published number, judged against the tables.

``config/published.yaml`` holds the study's numbers as data. Each entry names
where its reproduction is read from (a table, a row selector, a column) and the
rule that judges it; this module reads the tables, applies the rules and writes
the ledger. Nothing here knows a published value.

An entry (``claims:`` list of ``published.yaml``)::

    - id: C2.lstm_gates.forget.mean         # unique
      experiment: C2
      description: mean forget gate over the probe set
      published: 0.5                        # a number, or a statement (direction)
      source: spec                          # spec | formula (see below)
      table: results/tables/lstm_gates.csv
      where: {model: "{reference_lstm}", seed: 0, gate: forget}
      column: mean
      rule: within                          # exact | within | direction
      tolerance: {abs: 0.1}

``source: formula`` marks a closed-form value the spec gives only as a formula:
the entry carries the formula's value at the printed precision, computed
independently of this project's code.

Selectors (``table``, ``where``, ``column`` and the optional keys below) pick
cells of a CSV table:

- ``where``: ``{column: value}``; a value may be a list (any of them); string
  values may name the grid's models as ``{reference_lstm}``,
  ``{width_matched_gru}``, ``{budget_matched_gru}``, ``{budget_matched_rnn}``
  (filled in from the workflow's config, so one file serves every config).
- ``column``: a column name or an ``fnmatch`` pattern (``seed_*``).
- ``at_max``: keep only the rows where that column is largest (``step``: the last
  evaluated step).
- ``agg``: ``min | max | mean | median | unique`` over every selected cell;
  without it the selector must pick exactly one cell.
- ``nan_as``: the value a NaN stands for (``.inf`` for "never halves").

Rules and their tolerances:

- ``exact`` (closed-form and protocol-identical rows): ``{sig_digits: n}`` (the
  reproduction rounded to n significant digits equals the published value),
  ``{rel: x}`` and/or ``{abs: x}``; a string value must be equal. Pass ->
  verdict ``exact``.
- ``within`` (trained rows): ``{abs: x}``, ``{rel: x}``, ``{factor: x}``
  (published / x .. published * x) or ``{range: [lo, hi]}``. Pass -> ``within``.
  A ``within`` entry may also carry a ``compare`` (below): when the value is
  outside its band but the comparison holds, the verdict is ``direction``.
- ``direction`` (findings): ``compare: {left: SEL, op: OP, right: SEL | number
  | [lo, hi], scale: s}`` holds -> ``direction``. ``op`` is one of ``< <= > >=``
  (``left op scale * right``) or ``between`` (``scale * lo <= left <= scale *
  hi``). ``left`` / ``right`` are selectors; their ``table`` defaults to the
  entry's, and their ``where`` starts from the entry's (their own keys win).

Across training regimes: ``across_regimes: {table, where, column | compare, ...}``
says where the same quantity is read in the regime-sensitivity table
(``results/tables/regime_sensitivity.csv``, one row per cell and regime of the
regime sweep); the claim is judged there once per regime, with the same rule,
tolerance and published value, and the ledger's ``regimes`` column says
``holds under a, b; differs under c``. A group's ``across_regimes`` is merged
into its claims' like ``where``.

New findings (``config/new_findings.yaml``, the answers to the questions the
study left open, spec G) use the same entries with ``rule: new``: no published
value, a selector for the number, and optionally a ``compare`` stating the
finding (the reproduced column then says whether it holds). Their verdict is
always ``new``: there is nothing to reproduce. Each names the ``question`` of
``config.yaml``'s ``open_questions`` that makes its table
(:func:`select_questions` keeps those of the enabled questions).

A row that misses its rule is ``differs``; so is a selector that matches no row
(the reproduced column says so). A selector naming a column the table lacks, or
matching several cells without ``agg``, is an error in ``published.yaml``.
"""

from __future__ import annotations

import fnmatch
import html
import math
import operator
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

VERDICTS = ("exact", "within", "direction", "differs", "new")
RULES = ("exact", "within", "direction", "new")
COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
AGGREGATES = ("min", "max", "mean", "median", "unique")
TOLERANCE_KEYS = {
    "exact": {"sig_digits", "rel", "abs"},
    "within": {"abs", "rel", "factor", "range"},
}
SELECTOR_KEYS = {"table", "where", "column", "agg", "at_max", "nan_as"}
ENTRY_KEYS = {"id", "experiment", "description", "published", "source", "rule", "tolerance", "compare"}
ENTRY_KEYS |= SELECTOR_KEYS | {"across_regimes", "question"}
# What an `across_regimes` view may set: where the claim's quantity is read in the
# regime-sensitivity table, and (rarely) a rule of its own.
VIEW_KEYS = SELECTOR_KEYS | {"compare", "rule", "tolerance"}
# The column of the regime-sensitivity table that names each row's regime.
REGIME_COLUMN = "regime"
SOURCES = ("spec", "formula")
LEDGER_COLUMNS = [
    "id",
    "experiment",
    "description",
    "published",
    "reproduced",
    "table",
    "column",
    "selector",
    "rule",
    "tolerance",
    "verdict",
    "regimes",
]


class ClaimError(ValueError):
    """``published.yaml`` is malformed, or names something the tables do not have."""


class NoMatch(LookupError):
    """A selector matched no row (the claim then ``differs``)."""


# --------------------------------------------------------------------------- selectors


def _fill(value, names: Mapping[str, str], where: str):
    """Fill ``{name}`` placeholders of a string (lists element-wise); others unchanged."""
    if isinstance(value, list):
        return [_fill(v, names, where) for v in value]
    if not isinstance(value, str):
        return value
    try:
        return value.format_map(names)
    except KeyError as err:
        raise ClaimError(f"{where}: unknown placeholder {err} in {value!r}; known: {sorted(names)}") from None


def _matches(series: pd.Series, value) -> pd.Series:
    """Rows of ``series`` equal to ``value`` (numerically for numbers, else as text)."""
    if isinstance(value, list):
        mask = pd.Series(False, index=series.index)
        for v in value:
            mask |= _matches(series, v)
        return mask
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if pd.api.types.is_numeric_dtype(series):
            return series == value
    return series.astype(str) == str(value)


def _number_or_text(value):
    """A cell as a float where it is numeric, else as a string."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def format_value(value, digits: int = 4) -> str:
    """A value for the ledger: numbers to ``digits`` significant digits."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.{digits}g}"


@dataclass(frozen=True)
class Selector:
    """Cells of one table: rows by ``where`` (and ``at_max``), ``column``, ``agg``."""

    table: str
    column: str
    where: Mapping = field(default_factory=dict)
    agg: str | None = None
    at_max: str | None = None
    nan_as: float | None = None

    @classmethod
    def from_dict(cls, data: Mapping, default_table: str | None = None, where_from: str = "") -> Selector:
        unknown = set(data) - SELECTOR_KEYS
        if unknown:
            raise ClaimError(f"{where_from}: unknown selector keys {sorted(unknown)}")
        table = data.get("table", default_table)
        if not table or "column" not in data:
            raise ClaimError(f"{where_from}: a selector needs `table` and `column`")
        agg = data.get("agg")
        if agg is not None and agg not in AGGREGATES:
            raise ClaimError(f"{where_from}: agg must be one of {AGGREGATES}, not {agg!r}")
        where = data.get("where") or {}
        if not isinstance(where, Mapping):
            raise ClaimError(f"{where_from}: `where` must be a mapping of column to value")
        nan_as = data.get("nan_as")
        return cls(
            table=str(table),
            column=str(data["column"]),
            where=dict(where),
            agg=agg,
            at_max=data.get("at_max"),
            nan_as=None if nan_as is None else float(nan_as),
        )

    def fill(self, names: Mapping[str, str], where_from: str = "") -> Selector:
        """The selector with ``{placeholders}`` of its ``where`` values filled in."""
        where = {key: _fill(value, names, where_from) for key, value in self.where.items()}
        return Selector(self.table, self.column, where, self.agg, self.at_max, self.nan_as)

    def restricted(self, extra: Mapping) -> Selector:
        """The selector on the rows that also match ``extra`` (its keys win)."""
        return Selector(self.table, self.column, {**self.where, **extra}, self.agg, self.at_max, self.nan_as)

    def describe(self) -> str:
        """``model=lstm_w325, seed=0`` (plus ``last step``, ``median`` ...)."""
        parts = [
            f"{key}={'|'.join(map(str, v)) if isinstance(v, list) else v}" for key, v in self.where.items()
        ]
        if self.at_max:
            parts.append(f"max {self.at_max}")
        if self.agg:
            parts.append(f"{self.agg} of {self.column}")
        return ", ".join(parts)

    def read(self, frame: pd.DataFrame):
        """The selected value (float, or str for a text cell); raises NoMatch if no row."""
        columns = [c for c in frame.columns if fnmatch.fnmatchcase(str(c), self.column)]
        if not columns:  # e.g. seed_2 under a config with two seeds
            raise NoMatch(f"{self.table} has no column {self.column!r}")
        mask = pd.Series(True, index=frame.index)
        for key, value in self.where.items():
            if key not in frame.columns:
                raise ClaimError(
                    f"{self.table} has no column {key!r} to select on; it has {list(frame.columns)}"
                )
            mask &= _matches(frame[key], value)
        rows = frame[mask]
        if self.at_max is not None and len(rows):
            if self.at_max not in frame.columns:
                raise ClaimError(f"{self.table} has no column {self.at_max!r} (at_max)")
            rows = rows[rows[self.at_max] == rows[self.at_max].max()]
        values = [_number_or_text(v) for v in rows[columns].to_numpy().ravel()]
        if not values:
            raise NoMatch(f"no row of {self.table} where {self.describe() or 'any'}")
        if self.nan_as is not None:
            values = [self.nan_as if isinstance(v, float) and math.isnan(v) else v for v in values]
        if self.agg is None:
            if len(values) != 1:
                raise ClaimError(
                    f"{self.table} [{self.describe()}] column {self.column!r} selects {len(values)} "
                    "cells; narrow `where` or give `agg`"
                )
            return values[0]
        if self.agg == "unique":
            distinct = set(values)
            if len(distinct) != 1 and not all(isinstance(v, float) and math.isnan(v) for v in values):
                raise ClaimError(
                    f"{self.table} [{self.describe()}] is not unique: {sorted(map(str, distinct))}"
                )
            return values[0]
        numbers = np.asarray(values, dtype=np.float64)
        return float(
            getattr(np, {"mean": "mean", "median": "median", "min": "min", "max": "max"}[self.agg])(numbers)
        )


# --------------------------------------------------------------------------- judging


def same_to_digits(reproduced: float, published: float, digits: int) -> bool:
    """``reproduced`` rounded to ``digits`` significant digits equals ``published``."""
    if published == 0:
        return reproduced == 0
    return float(f"{reproduced:.{digits - 1}e}") == float(f"{published:.{digits - 1}e}")


def passes(rule: str, reproduced, published, tolerance: Mapping) -> bool:
    """Whether a value passes an ``exact`` or ``within`` rule with its tolerance."""
    if isinstance(published, str) or isinstance(reproduced, str):
        return str(reproduced) == str(published)
    reproduced, published = float(reproduced), float(published)
    if math.isnan(reproduced):
        return False
    if rule == "exact":
        if "sig_digits" in tolerance:
            return same_to_digits(reproduced, published, int(tolerance["sig_digits"]))
        allowed = float(tolerance.get("abs", 0.0)) + float(tolerance.get("rel", 0.0)) * abs(published)
        return abs(reproduced - published) <= allowed
    if rule == "within":
        if "range" in tolerance:
            low, high = (float(v) for v in tolerance["range"])
            return low <= reproduced <= high
        if "factor" in tolerance:
            factor = float(tolerance["factor"])
            low, high = sorted((published / factor, published * factor))
            return low <= reproduced <= high
        allowed = float(tolerance.get("abs", 0.0)) + float(tolerance.get("rel", 0.0)) * abs(published)
        return abs(reproduced - published) <= allowed
    raise ClaimError(f"rule {rule!r} has no tolerance")


def describe_tolerance(rule: str, tolerance: Mapping) -> str:
    """The tolerance in words for the ledger (``2 significant digits``, ``+/- 0.1`` ...)."""
    parts = []
    if "sig_digits" in tolerance:
        parts.append(f"{tolerance['sig_digits']} significant digits")
    if "abs" in tolerance:
        parts.append(f"+/- {format_value(float(tolerance['abs']))}")
    if "rel" in tolerance:
        parts.append(f"+/- {format_value(100 * float(tolerance['rel']))} %")
    if "factor" in tolerance:
        parts.append(f"x/÷ {format_value(float(tolerance['factor']))}")
    if "range" in tolerance:
        low, high = tolerance["range"]
        parts.append(f"in [{format_value(float(low))}, {format_value(float(high))}]")
    if rule == "exact" and not parts:
        parts.append("equal")
    return "; ".join(parts)


def _with_where(side: Mapping, default_where: Mapping | None) -> Mapping:
    """A compare side's ``where`` starts from its claim's (the side's keys win)."""
    if not default_where:
        return side
    return {**side, "where": {**default_where, **(side.get("where") or {})}}


@dataclass(frozen=True)
class Comparison:
    """``left op scale * right`` (or ``left between scale * [lo, hi]``)."""

    left: Selector
    op: str
    right: tuple  # one or two (Selector | float)
    scale: float = 1.0

    @classmethod
    def from_dict(
        cls, data: Mapping, default_table: str | None, where_from: str, default_where: Mapping | None = None
    ) -> Comparison:
        unknown = set(data) - {"left", "op", "right", "scale"}
        if unknown:
            raise ClaimError(f"{where_from}: unknown compare keys {sorted(unknown)}")
        op = data.get("op")
        if op not in COMPARISONS and op != "between":
            raise ClaimError(
                f"{where_from}: compare op must be one of {[*COMPARISONS, 'between']}, not {op!r}"
            )
        if "left" not in data or "right" not in data:
            raise ClaimError(f"{where_from}: compare needs `left` and `right`")
        right = data["right"]
        if op == "between":
            if not isinstance(right, list) or len(right) != 2:
                raise ClaimError(f"{where_from}: `between` needs right: [lo, hi]")
            sides = tuple(right)
        else:
            sides = (right,)

        def side(value):
            if isinstance(value, Mapping):
                return Selector.from_dict(_with_where(value, default_where), default_table, where_from)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            raise ClaimError(f"{where_from}: a compare side is a selector or a number, not {value!r}")

        return cls(
            left=Selector.from_dict(_with_where(data["left"], default_where), default_table, where_from),
            op=op,
            right=tuple(side(v) for v in sides),
            scale=float(data.get("scale", 1.0)),
        )

    def fill(self, names: Mapping[str, str], where_from: str) -> Comparison:
        right = tuple(v.fill(names, where_from) if isinstance(v, Selector) else v for v in self.right)
        return Comparison(self.left.fill(names, where_from), self.op, right, self.scale)

    def selectors(self) -> list[Selector]:
        return [self.left, *(v for v in self.right if isinstance(v, Selector))]

    def restricted(self, extra: Mapping) -> Comparison:
        right = tuple(v.restricted(extra) if isinstance(v, Selector) else v for v in self.right)
        return Comparison(self.left.restricted(extra), self.op, right, self.scale)

    def _scaled(self, text: str) -> str:
        return text if self.scale == 1.0 else f"{format_value(self.scale)} x {text}"

    def describe(self) -> str:
        def side(value):
            if isinstance(value, Selector):
                return f"{value.column} [{value.describe()}]"
            return format_value(value)

        if self.op == "between":
            return f"{side(self.left)} between {self._scaled(side(self.right[0]))} and " + self._scaled(
                side(self.right[1])
            )
        return f"{side(self.left)} {self.op} {self._scaled(side(self.right[0]))}"

    def evaluate(self, tables: Mapping[str, pd.DataFrame]) -> tuple[bool, str]:
        """(holds, the comparison with its numbers, e.g. ``1.62 < 1.68``)."""
        left = float(self.left.read(tables[self.left.table]))
        right = [float(v.read(tables[v.table])) if isinstance(v, Selector) else v for v in self.right]
        bounds = [self.scale * v for v in right]
        if self.op == "between":
            holds = bounds[0] <= left <= bounds[1]
            text = f"{format_value(left)} in [{format_value(bounds[0])}, {format_value(bounds[1])}]"
        else:
            holds = bool(COMPARISONS[self.op](left, bounds[0]))
            text = f"{format_value(left)} {self.op} {format_value(bounds[0])}"
        if math.isnan(left) or any(math.isnan(b) for b in bounds):
            holds = False
        return holds, text


# --------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claim:
    """One published number (or finding) and how to judge its reproduction."""

    id: str
    experiment: str
    description: str
    published: object
    rule: str
    source: str = "spec"
    tolerance: Mapping = field(default_factory=dict)
    selector: Selector | None = None
    compare: Comparison | None = None
    # The same claim read from the regime-sensitivity table (one row per cell and
    # regime); judged once per regime of the sweep (`across_regimes`).
    regime_view: Claim | None = None
    # rule `new`: the open question (config `open_questions.<question>`) that answers it
    question: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping) -> Claim:
        cid = data.get("id", "<no id>")
        unknown = set(data) - ENTRY_KEYS
        if unknown:
            raise ClaimError(f"claim {cid}: unknown keys {sorted(unknown)}")
        for key in ("id", "experiment", "description", "rule"):
            if key not in data:
                raise ClaimError(f"claim {cid}: missing `{key}`")
        rule = data["rule"]
        if rule not in RULES:
            raise ClaimError(f"claim {cid}: rule must be one of {RULES}, not {rule!r}")
        if rule == "new":
            if "published" in data or "tolerance" in data or "across_regimes" in data:
                raise ClaimError(
                    f"claim {cid}: a new finding has no `published` value, `tolerance` or `across_regimes`"
                )
            if "column" not in data or "question" not in data:
                raise ClaimError(f"claim {cid}: a new finding needs `table`, `column` and `question`")
        elif "published" not in data:
            raise ClaimError(f"claim {cid}: missing `published`")
        elif "question" in data:
            raise ClaimError(f"claim {cid}: only a new finding (rule: new) names a `question`")
        source = data.get("source", "spec")
        if source not in SOURCES:
            raise ClaimError(f"claim {cid}: source must be one of {SOURCES}, not {source!r}")
        tolerance = dict(data.get("tolerance") or {})
        selector = None
        if "column" in data:
            selector = Selector.from_dict(
                {k: v for k, v in data.items() if k in SELECTOR_KEYS}, where_from=f"claim {cid}"
            )
        compare = None
        if "compare" in data:
            compare = Comparison.from_dict(
                data["compare"], data.get("table"), f"claim {cid}", data.get("where")
            )
        if rule in ("exact", "within"):
            if selector is None:
                raise ClaimError(f"claim {cid}: an {rule} claim needs `table` and `column`")
            unknown = set(tolerance) - TOLERANCE_KEYS[rule]
            if unknown or (rule == "within" and not tolerance):
                raise ClaimError(
                    f"claim {cid}: {rule} tolerance keys are {sorted(TOLERANCE_KEYS[rule])}, "
                    f"got {sorted(tolerance)}"
                )
            if rule == "exact" and compare is not None:
                raise ClaimError(f"claim {cid}: an exact claim takes no `compare`")
        elif rule == "direction" and compare is None:
            raise ClaimError(f"claim {cid}: a direction claim needs `compare`")
        published = data.get("published")
        if isinstance(published, str):
            try:  # PyYAML reads 4e-07 (no dot) as text
                published = float(published)
            except ValueError:
                pass
        if rule == "within" and isinstance(published, str):
            raise ClaimError(f"claim {cid}: a within claim needs a numeric published value")
        regime_view = None
        if "across_regimes" in data:
            view = data["across_regimes"]
            if not isinstance(view, Mapping) or set(view) - VIEW_KEYS:
                raise ClaimError(
                    f"claim {cid}: across_regimes is a mapping of {sorted(VIEW_KEYS)}, not {view!r}"
                )
            base = {
                k: data[k]
                for k in ("id", "experiment", "description", "published", "source", "rule")
                if k in data
            }
            if "tolerance" in data and view.get("rule", rule) == rule:
                base["tolerance"] = data["tolerance"]
            regime_view = Claim.from_dict({**base, **view})
        return cls(
            id=str(data["id"]),
            experiment=str(data["experiment"]),
            description=str(data["description"]).strip(),
            published=published,
            rule=rule,
            source=source,
            tolerance=tolerance,
            selector=selector,
            compare=compare,
            regime_view=regime_view,
            question=None if data.get("question") is None else str(data["question"]),
        )

    def fill(self, names: Mapping[str, str]) -> Claim:
        """The claim with the grid's model names filled into its selectors."""
        where = f"claim {self.id}"
        return Claim(
            self.id,
            self.experiment,
            self.description,
            self.published,
            self.rule,
            self.source,
            self.tolerance,
            None if self.selector is None else self.selector.fill(names, where),
            None if self.compare is None else self.compare.fill(names, where),
            None if self.regime_view is None else self.regime_view.fill(names),
            self.question,
        )

    def restricted(self, extra: Mapping) -> Claim:
        """The claim with every selector restricted to the rows matching ``extra``."""
        return replace(
            self,
            selector=None if self.selector is None else self.selector.restricted(extra),
            compare=None if self.compare is None else self.compare.restricted(extra),
        )

    def judge_across_regimes(self, table: pd.DataFrame, regimes: list[str]) -> dict[str, str]:
        """The verdict of the claim's regime view under each regime (``missing`` where
        the regime lacks the row, e.g. a cell that did not run)."""
        if self.regime_view is None:
            return {}
        for selector in self.regime_view.selectors():
            wanted = [selector.column, *selector.where, *([selector.at_max] if selector.at_max else [])]
            absent = [c for c in wanted if not any(fnmatch.fnmatchcase(str(t), c) for t in table.columns)]
            if absent:  # a typo, not a regime that did not run
                raise ClaimError(
                    f"claim {self.id}: across_regimes names {absent}, which the regime table lacks; "
                    f"it has {list(table.columns)}"
                )
        tables = {s.table: table for s in self.regime_view.selectors()}
        verdicts = {}
        for regime in regimes:
            try:
                verdicts[regime], _ = self.regime_view.restricted({REGIME_COLUMN: regime})._verdict(tables)
            except NoMatch:
                verdicts[regime] = "missing"
        return verdicts

    def selectors(self) -> list[Selector]:
        found = [] if self.selector is None else [self.selector]
        return found + ([] if self.compare is None else self.compare.selectors())

    def tables(self) -> list[str]:
        """Every table this claim reads, in first-use order."""
        return list(dict.fromkeys(s.table for s in self.selectors()))

    def judge(self, tables: Mapping[str, pd.DataFrame]) -> dict:
        """The claim's ledger row: what was read, and the verdict."""
        tol_text = describe_tolerance(self.rule, self.tolerance)
        if self.compare is not None:
            fallback = ("else " if self.rule == "within" else "") + self.compare.describe()
            tol_text = f"{tol_text}; {fallback}" if tol_text else fallback
        main = self.selector if self.selector is not None else self.compare.left
        row = {
            "id": self.id,
            "experiment": self.experiment,
            "description": self.description,
            "published": format_value(self.published, digits=6),
            "table": "; ".join(self.tables()),
            "column": main.column,
            "selector": main.describe(),
            "rule": self.rule,
            "tolerance": tol_text,
        }
        try:
            verdict, reproduced = self._verdict(tables)
        except NoMatch as missing:  # a new finding whose run is not in this config stays new
            verdict, reproduced = ("new" if self.rule == "new" else "differs"), f"missing: {missing}"
        row["reproduced"] = reproduced
        row["verdict"] = verdict
        return row

    def _verdict(self, tables) -> tuple[str, str]:
        if self.rule == "new":  # nothing to reproduce: the value, and whether the stated finding holds
            text = format_value(self.selector.read(tables[self.selector.table]), digits=6)
            if self.compare is not None:
                holds, comparison = self.compare.evaluate(tables)
                text += f" ({comparison}: {'holds' if holds else 'does not hold'})"
            return "new", text
        if self.rule == "direction":
            holds, text = self.compare.evaluate(tables)
            return ("direction" if holds else "differs"), text
        value = self.selector.read(tables[self.selector.table])
        if passes(self.rule, value, self.published, self.tolerance):
            return self.rule, format_value(value, digits=6)
        if self.compare is not None:
            holds, text = self.compare.evaluate(tables)
            if holds:
                return "direction", f"{format_value(value, digits=6)} ({text})"
        return "differs", format_value(value, digits=6)


def flatten_groups(entries: list) -> list[dict]:
    """Claims with their ``group``'s keys filled in (``where`` merged, the claim's keys
    winning; a claim that changes the group's ``rule`` keeps none of its ``tolerance``)."""
    flat = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise ClaimError(f"a claim must be a mapping, not {entry!r}")
        if "group" not in entry:
            flat.append(dict(entry))
            continue
        shared = {k: v for k, v in entry.items() if k not in ("group", "claims")}
        unknown = set(shared) - ENTRY_KEYS
        if unknown:
            raise ClaimError(f"group {entry['group']!r}: unknown keys {sorted(unknown)}")
        if not isinstance(entry.get("claims"), list):
            raise ClaimError(f"group {entry['group']!r} needs a `claims:` list")
        for claim in entry["claims"]:
            merged = dict(shared)
            if "rule" in claim and claim["rule"] != shared.get("rule"):
                merged.pop("tolerance", None)
            merged.update(claim)
            if "where" in shared and "where" in claim:
                merged["where"] = {**shared["where"], **claim["where"]}
            if "across_regimes" in shared and "across_regimes" in claim:
                view = {**shared["across_regimes"], **claim["across_regimes"]}
                if "where" in shared["across_regimes"] and "where" in claim["across_regimes"]:
                    view["where"] = {**shared["across_regimes"]["where"], **claim["across_regimes"]["where"]}
                merged["across_regimes"] = view
            flat.append(merged)
    return flat


def parse_claims(data: Mapping) -> list[Claim]:
    """Claims from the parsed ``published.yaml`` (groups flattened); ids must be unique."""
    if not isinstance(data, Mapping) or not isinstance(data.get("claims"), list):
        raise ClaimError("published.yaml must hold a `claims:` list")
    claims = [Claim.from_dict(entry) for entry in flatten_groups(data["claims"])]
    counts = Counter(c.id for c in claims)
    repeated = sorted(cid for cid, n in counts.items() if n > 1)
    if repeated:
        raise ClaimError(f"claim ids must be unique; repeated: {repeated}")
    return claims


def select_questions(claims: list[Claim], enabled) -> list[Claim]:
    """The claims without a question and the new findings of the ``enabled`` questions."""
    enabled = set(enabled)
    return [c for c in claims if c.question is None or c.question in enabled]


def check_questions(claims: list[Claim], known) -> None:
    """Refuse a new finding whose question the config does not have (a typo)."""
    unknown = sorted({c.question for c in claims if c.question is not None} - set(known))
    if unknown:
        raise ClaimError(f"new findings name unknown questions {unknown}; the config has {sorted(known)}")


def load_claims(path: str | Path) -> list[Claim]:
    """The claims of a ``published.yaml`` file."""
    with open(path) as handle:
        # libyaml's safe loader where available (same result, about 7x faster)
        return parse_claims(yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


def claim_tables(claims: list[Claim]) -> list[str]:
    """Every table the claims read, sorted (the ledger rule's inputs)."""
    return sorted({table for claim in claims for table in claim.tables()})


def read_tables(paths, base: str | Path = ".") -> dict[str, pd.DataFrame]:
    """The CSV tables, keyed by the path the claims name them by."""
    return {path: pd.read_csv(Path(base) / path) for path in paths}


def regime_tables(claims: list[Claim]) -> list[str]:
    """Every table the claims' ``across_regimes`` views read (the regime-sensitivity table)."""
    return sorted({t for c in claims if c.regime_view is not None for t in c.regime_view.tables()})


def regime_labels(regimes: pd.DataFrame) -> dict[str, str]:
    """``regime -> "adam 0.002 x 800"`` (optimizer, learning rate, steps) where the
    table says so, else the regime's name; the config's default regime is marked."""
    labels = {}
    for row in regimes.drop_duplicates(REGIME_COLUMN).to_dict("records"):
        name = row[REGIME_COLUMN]
        if {"optimizer", "lr", "steps"} <= set(row):
            label = f"{row['optimizer']} {float(row['lr']):g} x {int(row['steps'])}"
            labels[name] = f"{label} (default)" if name == "default" else label
        else:
            labels[name] = str(name)
    return labels


def describe_regimes(verdicts: Mapping[str, str]) -> str:
    """``holds under a, b; differs under c`` (and ``not run under d``)."""
    groups = {"holds under": [], "differs under": [], "not run under": []}
    for regime, verdict in verdicts.items():
        key = {"differs": "differs under", "missing": "not run under"}.get(verdict, "holds under")
        groups[key].append(regime)
    return "; ".join(f"{key} {', '.join(names)}" for key, names in groups.items() if names)


def build_ledger(
    claims: list[Claim],
    tables: Mapping[str, pd.DataFrame],
    names: Mapping[str, str],
    regimes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per claim (``LEDGER_COLUMNS``), in ``published.yaml``'s order.

    ``regimes``: the regime-sensitivity table (one row per cell and regime). Given,
    every claim with an ``across_regimes`` view is judged under each regime in it,
    and its ``regimes`` cell says where the verdict holds and where it differs.
    """
    missing = sorted(set(claim_tables(claims)) - set(tables))
    if missing:
        raise ClaimError(f"tables not given to the ledger: {missing}")
    repeated = sorted(cid for cid, n in Counter(c.id for c in claims).items() if n > 1)
    if repeated:  # e.g. a new finding reusing a published claim's id
        raise ClaimError(f"claim ids must be unique across the ledger; repeated: {repeated}")
    order = [] if regimes is None else list(dict.fromkeys(regimes[REGIME_COLUMN]))
    labels = {} if regimes is None else regime_labels(regimes)
    rows = []
    for claim in claims:
        filled = claim.fill(names)
        row = filled.judge(tables)
        verdicts = filled.judge_across_regimes(regimes, order) if regimes is not None else {}
        row["regimes"] = describe_regimes({labels[r]: v for r, v in verdicts.items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=LEDGER_COLUMNS)


def verdict_counts(ledger: pd.DataFrame) -> dict[str, int]:
    counts = Counter(ledger["verdict"])
    return {verdict: counts.get(verdict, 0) for verdict in VERDICTS}


def summary_line(ledger: pd.DataFrame) -> str:
    """``120 claims: 40 exact, 30 within, 20 direction, 30 differs``."""
    counts = verdict_counts(ledger)
    return f"{len(ledger)} claims: " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())


# --------------------------------------------------------------------------- rendering


FAMILIES = {
    "A": "Closed-form tables",
    "B": "Gradient reach at initialisation",
    "C": "The trained LSTM's gates",
    "D": "GRU against LSTM",
    "E": "Reach and training dynamics",
    "G": "Beyond the study (new findings)",
}


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(ledger: pd.DataFrame, title: str = "The claims ledger") -> str:
    """The ledger for a reader: summary line first, then one table per experiment family."""
    lines = [
        title,
        "=" * len(title),
        "",
        f"**{summary_line(ledger)}**",
        "",
        "Each row is one number (or finding) of the published study, the value this run "
        "reproduced, where it was read from and the verdict: `exact` (closed-form or "
        "protocol-identical, equal within the stated tolerance), `within` (a trained "
        "value inside its stated band), `direction` (the finding holds) or `differs`; "
        "`new` marks an answer to a question the study left open (no published value; "
        "`config/new_findings.yaml`). "
        "Published values and rules live in `config/published.yaml`; this file is made "
        "by the workflow's `claims` rule from the tables. *Across regimes*: where the "
        "regime sweep ran, the same claim judged under every training regime of "
        "`results/tables/regime_sensitivity.csv` (optimizer, learning rate, steps).",
        "",
    ]
    header = "| id | claim | published | reproduced | rule | verdict | across regimes | read from |"
    for family, group in ledger.groupby(ledger["experiment"].str[0], sort=True):
        counts = verdict_counts(group)
        name = f"{family}. {FAMILIES[family]}" if family in FAMILIES else family
        lines += [
            f"## {name}: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n),
            "",
            header,
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in group.itertuples(index=False):
            rule = row.rule + (f" ({row.tolerance})" if row.tolerance else "")
            where = f"`{row.table}` {row.column}" + (f" [{row.selector}]" if row.selector else "")
            cells = [
                row.id,
                row.description,
                row.published,
                row.reproduced,
                rule,
                f"**{row.verdict}**",
                row.regimes,
                where,
            ]
            lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


HTML_STYLE = """
.claims-ledger { font-family: system-ui, sans-serif; font-size: 12px; }
.claims-ledger table { border-collapse: collapse; width: 100%; }
.claims-ledger th, .claims-ledger td { border-bottom: 1px solid #ddd; padding: 2px 4px;
  text-align: left; vertical-align: top; }
.claims-ledger td.verdict { font-weight: bold; }
.claims-ledger tr.exact td.verdict { color: #146c2e; }
.claims-ledger tr.within td.verdict { color: #1a5fb4; }
.claims-ledger tr.direction td.verdict { color: #9c6500; }
.claims-ledger tr.differs td.verdict { color: #b3261e; }
.claims-ledger tr.new td.verdict { color: #6a1b9a; }
.claims-ledger .what { color: #555; font-size: 11px; }
.claims-ledger code::before, .claims-ledger code::after { content: none; }
.claims-ledger table.families { width: auto; margin-bottom: 1em; }
.claims-ledger table.families td { text-align: right; }
"""


def render_html(ledger: pd.DataFrame, title: str = "The claims ledger") -> str:
    """A self-contained HTML fragment: summary and a compact table (id and claim,
    published, reproduced, verdict; the rule and source in each row's tooltip)."""
    esc = html.escape
    counts = verdict_counts(ledger)
    rows = []
    for row in ledger.itertuples(index=False):
        tip = f"{row.rule} {row.tolerance}; read from {row.table} {row.column} [{row.selector}]"
        rows.append(
            f'<tr class="claim {esc(row.verdict)}" data-claim-id="{esc(row.id)}" title="{esc(tip)}">'
            f'<td><code>{esc(row.id)}</code><div class="what">{esc(row.description)}</div></td>'
            f"<td>{esc(str(row.published))}</td><td>{esc(str(row.reproduced))}</td>"
            f'<td class="verdict">{esc(row.verdict)}</td>'
            f'<td class="regimes">{esc(str(row.regimes))}</td></tr>'
        )
    summary = ", ".join(f'<span class="count {v}">{n} {v}</span>' for v, n in counts.items())
    families = ["<tr><th>family</th>" + "".join(f"<th>{v}</th>" for v in VERDICTS) + "</tr>"]
    for family, group in ledger.groupby(ledger["experiment"].str[0], sort=True):
        name = f"{family}. {FAMILIES[family]}" if family in FAMILIES else family
        cells = "".join(f"<td>{n}</td>" for n in verdict_counts(group).values())
        families.append(f'<tr class="family"><th>{esc(name)}</th>{cells}</tr>')
    return "\n".join(
        [
            f"<style>{HTML_STYLE}</style>",
            '<div class="claims-ledger">',
            f"<h2>{esc(title)}</h2>",
            f'<p class="summary"><b>{len(ledger)} claims:</b> {summary}</p>',
            '<table class="families">',
            *families,
            "</table>",
            "<table><thead><tr><th>claim</th><th>published</th><th>reproduced</th><th>verdict</th>"
            "<th>across regimes</th></tr>"
            "</thead><tbody>",
            *rows,
            "</tbody></table>",
            "</div>",
            "",
        ]
    )
