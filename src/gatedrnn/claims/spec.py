"""The claims language: an entry of ``workflow/resources/published.yaml`` (or ``new_findings.yaml``)
as a :class:`Claim`, with its :class:`Selector` and :class:`Comparison`.

The language is specified for users in ``docs/claims-language.md``. This module
parses and checks entries; :mod:`.select` reads the cells they name and
:mod:`.judge` applies their rules. Nothing here knows a published value.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from gatedrnn.claims.bands import WITHIN_KEYS, check_within, format_value

VERDICTS = ("exact", "within", "reproduced", "holds", "differs", "fails", "inconclusive", "new")
RULES = ("exact", "within", "direction", "new")
# What a ledger row is, for the counts: a closed-form or protocol value (not a
# trained result), a trained or measured value, a finding, an answer to an open question.
KINDS = ("arithmetic", "value", "finding", "new")
COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
AGGREGATES = ("min", "max", "mean", "median", "unique")
TOLERANCE_KEYS = {"exact": {"sig_digits", "rel", "abs"}, "within": WITHIN_KEYS}
SELECTOR_KEYS = {"table", "where", "column", "agg", "at_max", "at_min", "nan_as", "minus", "per_row"}
ENTRY_KEYS = {"id", "experiment", "description", "published", "source", "rule", "tolerance", "compare"}
ENTRY_KEYS |= SELECTOR_KEYS | {"across_regimes", "question", "kind", "why", "finding"}
# What an `across_regimes` view may set: where the claim's quantity is read in the
# regime-sensitivity table, and (rarely) a rule of its own.
VIEW_KEYS = SELECTOR_KEYS | {"compare", "rule", "tolerance"}
# The column of the regime-sensitivity table that names each row's regime.
REGIME_COLUMN = "regime"
SOURCES = ("spec", "formula")


class ClaimError(ValueError):
    """``published.yaml`` is malformed, or names something the tables do not have."""


class NoMatch(LookupError):
    """A selector matched no row (the claim then ``differs``)."""


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


# --------------------------------------------------------------------------- selectors


@dataclass(frozen=True)
class Selector:
    """Cells of one table: rows by ``where`` (and ``at_max`` / ``at_min``), ``column``,
    ``agg`` (read by :func:`gatedrnn.claims.select.read`)."""

    table: str
    column: str
    where: Mapping = field(default_factory=dict)
    agg: str | None = None
    at_max: str | None = None
    nan_as: float | None = None
    at_min: str | None = None
    # Another selector of the same table taken from this one seed by seed (a paired
    # difference, e.g. one model's loss minus another's); its keys default to this one's.
    minus: Selector | None = None
    # Each row its own quantity (a width's, say): its median over seeds, `agg` over the rows.
    per_row: bool = False

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
        per_row = data.get("per_row", False)
        if per_row not in (True, False) or (per_row and (agg in (None, "unique") or "minus" in data)):
            raise ClaimError(f"{where_from}: per_row is true or false, with an agg over the rows, no minus")
        where = data.get("where") or {}
        if not isinstance(where, Mapping):
            raise ClaimError(f"{where_from}: `where` must be a mapping of column to value")
        nan_as = data.get("nan_as")
        side = data.get("minus")  # a paired difference: a selector of the same table
        if side is not None and (not isinstance(side, Mapping) or "table" in side or "minus" in side):
            raise ClaimError(f"{where_from}: `minus` is a selector of the same table (no table, minus)")
        inherited = {k: data[k] for k in ("column", "agg", "at_max", "at_min", "nan_as") if k in data}
        minus = None if side is None else cls.from_dict(
            {**inherited, **side, "table": table, "where": {**dict(where), **(side.get("where") or {})}},
            where_from=where_from,
        )  # fmt: skip
        return cls(
            table=str(table),
            column=str(data["column"]),
            where=dict(where),
            agg=agg,
            at_max=data.get("at_max"),
            nan_as=None if nan_as is None else float(nan_as),
            at_min=data.get("at_min"),
            minus=minus,
            per_row=per_row,
        )

    def fill(self, names: Mapping[str, str], where_from: str = "") -> Selector:
        """The selector with ``{placeholders}`` of its ``where`` values filled in."""
        minus = None if self.minus is None else self.minus.fill(names, where_from)
        return replace(
            self, where={key: _fill(v, names, where_from) for key, v in self.where.items()}, minus=minus
        )

    def restricted(self, extra: Mapping) -> Selector:
        """The selector on the rows that also match ``extra`` (its keys win)."""
        minus = None if self.minus is None else self.minus.restricted(extra)
        return replace(self, where={**self.where, **extra}, minus=minus)

    def describe(self) -> str:
        """``model=lstm_w325, seed=0`` (plus ``max step``, ``median of ...``)."""
        parts = [
            f"{key}={'|'.join(map(str, v)) if isinstance(v, list) else v}" for key, v in self.where.items()
        ]
        if self.at_max:
            parts.append(f"max {self.at_max}")
        if self.at_min:
            parts.append(f"min {self.at_min}")
        if self.agg:
            parts.append(f"{self.agg} of {self.column}" + (" per row" if self.per_row else ""))
        if self.minus is not None:
            return f"{', '.join(parts)} minus {self.minus.describe()}, seed by seed"
        return ", ".join(parts)


def _with_where(side: Mapping, default_where: Mapping | None) -> Mapping:
    """A compare side's ``where`` starts from its claim's (the side's keys win)."""
    if not default_where:
        return side
    return {**side, "where": {**default_where, **(side.get("where") or {})}}


@dataclass(frozen=True)
class Comparison:
    """``left op scale * right`` or ``left between scale * [lo, hi]`` (:func:`.judge.evaluate`)."""

    left: Selector
    op: str
    right: tuple  # one or two (Selector | float)
    scale: float = 1.0

    @classmethod
    def from_dict(
        cls, data: Mapping, default_table: str | None, where_from: str, default_where: Mapping | None = None
    ) -> Comparison:
        if not isinstance(data, Mapping):
            raise ClaimError(f"{where_from}: a comparison is a mapping of left, op, right, not {data!r}")
        unknown = set(data) - {"left", "op", "right", "scale"}
        if unknown:
            raise ClaimError(f"{where_from}: unknown compare keys {sorted(unknown)}")
        op = data.get("op")
        if op not in (ops := [*COMPARISONS, "between"]):
            raise ClaimError(f"{where_from}: compare op must be one of {ops}, not {op!r}")
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


def parse_compare(data, default_table: str | None, where_from: str, default_where: Mapping | None):
    """A ``compare``: one comparison, or a list of them that must all hold (judged in
    order; the first that fails stops the judgement)."""
    parts = data if isinstance(data, list) else [data]
    if not parts:
        raise ClaimError(f"{where_from}: `compare` is an empty list")
    return tuple(Comparison.from_dict(p, default_table, where_from, default_where) for p in parts)


def describe_compare(compare: tuple[Comparison, ...]) -> str:
    return " and ".join(c.describe() for c in compare)


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
    # The finding: comparisons that must all hold (direction and new).
    compare: tuple[Comparison, ...] | None = None
    # The same claim read from the regime-sensitivity table (one row per cell and
    # regime); judged once per regime of the sweep (`across_regimes`).
    regime_view: Claim | None = None
    # rule `new`: the open question (config `open_questions.<question>`) that answers it
    question: str | None = None
    # `protocol`: not a trained result (a count the protocol fixes); counted apart.
    protocol: bool = False
    # The id of the finding (a direction entry) reported beside this value's verdict.
    finding: str | None = None
    # Why the band is what it is (one line; published.yaml gives one for every band).
    why: str | None = None

    @property
    def kind(self) -> str:
        """``arithmetic``, ``value``, ``finding`` or ``new`` (see :data:`KINDS`)."""
        if self.rule == "new":
            return "new"
        if self.rule == "exact" or self.protocol:
            return "arithmetic"
        return "value" if self.rule == "within" else "finding"

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
        if data.get("kind", "protocol") != "protocol" or ("kind" in data and rule in ("exact", "new")):
            raise ClaimError(f"claim {cid}: the one `kind` is protocol (within and direction entries)")
        if "finding" in data and rule != "within":
            raise ClaimError(f"claim {cid}: only a within entry names the `finding` it bears on")
        tolerance = dict(data.get("tolerance") or {})
        selector = None
        if "column" in data:
            selector = Selector.from_dict(
                {k: v for k, v in data.items() if k in SELECTOR_KEYS}, where_from=f"claim {cid}"
            )
        compare = None
        if "compare" in data:
            compare = parse_compare(data["compare"], data.get("table"), f"claim {cid}", data.get("where"))
        published = data.get("published")
        if isinstance(published, str):
            try:  # PyYAML reads 4e-07 (no dot) as text
                published = float(published)
            except ValueError:
                pass
        if isinstance(published, list):
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in published):
                raise ClaimError(f"claim {cid}: a published list holds numbers, not {published!r}")
            published = tuple(float(v) for v in published)
        if rule in ("exact", "within"):
            if selector is None:
                raise ClaimError(f"claim {cid}: an {rule} claim needs `table` and `column`")
            if compare is not None:
                raise ClaimError(
                    f"claim {cid}: an {rule} claim takes no `compare` (a within entry names its `finding`)"
                )
            unknown = set(tolerance) - TOLERANCE_KEYS[rule]
            if unknown or (rule == "within" and not tolerance):
                raise ClaimError(
                    f"claim {cid}: {rule} tolerance keys are {sorted(TOLERANCE_KEYS[rule])}, "
                    f"got {sorted(tolerance)}"
                )
        elif rule == "direction" and compare is None:
            raise ClaimError(f"claim {cid}: a direction claim needs `compare`")
        if rule == "within":
            if isinstance(published, str):
                raise ClaimError(f"claim {cid}: a within claim needs a numeric published value")
            try:
                check_within(tolerance, published)
            except ValueError as err:
                raise ClaimError(f"claim {cid}: within tolerance: {err}") from None
        elif isinstance(published, tuple):
            raise ClaimError(f"claim {cid}: only a within claim (overlap: true) publishes a list")
        regime_view = None
        if "across_regimes" in data:
            view = data["across_regimes"]
            if not isinstance(view, Mapping) or set(view) - VIEW_KEYS:
                raise ClaimError(
                    f"claim {cid}: across_regimes is a mapping of {sorted(VIEW_KEYS)}, not {view!r}"
                )
            keys = ("id", "experiment", "description", "published", "source", "rule", "kind")
            base = {k: data[k] for k in keys if k in data}
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
            protocol="kind" in data,
            finding=None if data.get("finding") is None else str(data["finding"]),
            why=None if data.get("why") is None else str(data["why"]).strip(),
        )

    def fill(self, names: Mapping[str, str]) -> Claim:
        """The claim with the grid's model names filled into its selectors."""
        where = f"claim {self.id}"
        return replace(
            self,
            selector=None if self.selector is None else self.selector.fill(names, where),
            compare=None if self.compare is None else tuple(c.fill(names, where) for c in self.compare),
            regime_view=None if self.regime_view is None else self.regime_view.fill(names),
        )

    def restricted(self, extra: Mapping) -> Claim:
        """The claim with every selector restricted to the rows matching ``extra``."""
        return replace(
            self,
            selector=None if self.selector is None else self.selector.restricted(extra),
            compare=None if self.compare is None else tuple(c.restricted(extra) for c in self.compare),
        )

    def selectors(self) -> list[Selector]:
        found = [] if self.selector is None else [self.selector]
        return found + [s for c in self.compare or () for s in c.selectors()]

    def tables(self) -> list[str]:
        """Every table this claim reads, in first-use order."""
        return list(dict.fromkeys(s.table for s in self.selectors()))
