"""Set a run's tables beside the reference run's: which numbers are bit-identical,
which differ within the seeds' spread, and which differ beyond it.

    python -m gatedrnn.compare --run results --reference reference [--details out.csv] [--strict]

Rows are matched on their label columns (every column that is not a float:
model, gate, cell, regime, seed, ...; an integer column that is a count, such as
units below a half, is a value instead: one that differs between the two, or one
that the other labels of a table with seeds already determine). Each float value of the run is then:

- ``identical``: the same bits as the reference (NaN matches NaN);
- ``within spread``: off by no more than the reference's own spread over seeds for
  that quantity (the range of the same column over the seeds of the same row
  labels, or over a wide table's ``seed_<k>`` columns);
- ``beyond spread``: off by more than that;
- ``no spread``: off, in a table without seeds (closed forms, one-seed rows), where
  any difference is unexplained.

A table whose labels do not line up with the reference's (another config, another
corpus) is reported as not comparable, value by value nothing. Columns a run's table
has after all of the reference's (a table that gained columns since the reference was
made, such as the intervals over seeds of issue #47) are left out, and named. What to expect:
the same config on the same CPU model with the same threads per job gives
identical trained tables; another CPU model or a GPU gives different float
rounding, so trained numbers move (reference/README.md, "Another CPU model",
measures by how much), while closed-form tables stay identical.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gatedrnn.io.records import read_table

STATUSES = ("identical", "within spread", "beyond spread", "no spread")
SEED_COLUMN = "seed"
WIDE_SEED_PREFIX = "seed_"


@dataclass
class TableComparison:
    table: str
    status: str  # "compared", "missing in run", "not comparable: ..."
    counts: dict[str, int]
    details: pd.DataFrame | None = None
    # columns the run's table has after all of the reference's (a table that gained
    # columns since the reference was made): not compared, named
    left_out: tuple[str, ...] = ()


def _label_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if not pd.api.types.is_float_dtype(frame[c])]


def _counted_columns(run: pd.DataFrame, reference: pd.DataFrame) -> list[str]:
    """Integer columns that differ between the two tables: statistics that count
    (units below a half, units past ten characters), values to compare rather than
    labels to match rows on. Labels (seed, width, step) are the same in both."""
    if len(run) != len(reference):
        return []
    return [
        c
        for c in _label_columns(reference)
        if c != SEED_COLUMN
        and pd.api.types.is_integer_dtype(reference[c])
        and pd.api.types.is_integer_dtype(run[c])
        and not run[c].reset_index(drop=True).equals(reference[c].reset_index(drop=True))
    ]


def _per_seed_counts(reference: pd.DataFrame, labels: list[str]) -> list[str]:
    """Integer columns of a table with seeds that the other labels already determine:
    a count per seed (units below a half), not part of a row's identity, whether or
    not it happens to differ in this run. Taken from the right, so a design label
    (width, steps) that other text labels name stays a label unless redundant."""
    if SEED_COLUMN not in labels:
        return []
    kept = list(labels)
    for column in reversed(labels):
        if column == SEED_COLUMN or not pd.api.types.is_integer_dtype(reference[column]):
            continue
        others = [c for c in kept if c != column]
        if not reference.duplicated(subset=others).any():
            kept = others
    return [c for c in labels if c not in kept]


def _row_keys(frame: pd.DataFrame, labels: list[str]) -> pd.Series:
    """One string per row from its label cells. Each cell through ``str`` (an empty
    cell is "nan"): pandas 3's ``astype(str)`` keeps NaN a float, which ``join`` refuses."""
    if not labels:
        return frame.index.astype(str).to_series(index=frame.index)
    return frame[labels].map(str).agg("\x1f".join, axis=1)


def _same_bits(a: float, b: float) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return np.float64(a).tobytes() == np.float64(b).tobytes()


def _long_spread(reference: pd.DataFrame, labels: list[str], column: str) -> pd.Series:
    """Per reference row: the range of ``column`` over the seeds of its row labels."""
    group = [c for c in labels if c != SEED_COLUMN]
    values = pd.to_numeric(reference[column], errors="coerce")
    numeric_seeds = pd.to_numeric(reference[SEED_COLUMN], errors="coerce").notna()
    if not group:
        spread = values[numeric_seeds].max() - values[numeric_seeds].min()
        return pd.Series(spread if numeric_seeds.sum() > 1 else np.nan, index=reference.index)
    keys = _row_keys(reference, group)
    per_seed = values.where(numeric_seeds)
    ranges = per_seed.groupby(keys).agg(lambda s: s.max() - s.min() if s.count() > 1 else np.nan)
    return keys.map(ranges)


def _wide_spread(reference: pd.DataFrame) -> pd.Series:
    seeds = [c for c in reference.columns if c.startswith(WIDE_SEED_PREFIX)]
    if len(seeds) < 2:
        return pd.Series(np.nan, index=reference.index)
    block = reference[seeds].apply(pd.to_numeric, errors="coerce")
    return block.max(axis=1) - block.min(axis=1)


def compare_tables(name: str, run: pd.DataFrame, reference: pd.DataFrame) -> TableComparison:
    """Compare one table of a run with the reference's (see the module docstring)."""
    empty = dict.fromkeys(STATUSES, 0)
    added = tuple(run.columns[len(reference.columns) :])
    if list(run.columns[: len(reference.columns)]) != list(reference.columns):
        return TableComparison(name, "not comparable: columns differ", empty)
    run = run[list(reference.columns)]
    labels = _label_columns(reference)
    if _label_columns(run) != labels:
        return TableComparison(name, "not comparable: column types differ", empty)
    counted = {*_counted_columns(run, reference), *_per_seed_counts(reference, labels)}
    labels = [c for c in labels if c not in counted]
    run_keys, ref_keys = _row_keys(run, labels), _row_keys(reference, labels)
    if len(run) != len(reference) or list(run_keys) != list(ref_keys):
        return TableComparison(name, "not comparable: rows differ (another config or corpus?)", empty)

    values = [c for c in reference.columns if c not in labels]
    wide = _wide_spread(reference)
    rows = []
    for column in values:
        if SEED_COLUMN in labels:
            spread = _long_spread(reference, labels, column)
        elif column.startswith(WIDE_SEED_PREFIX) or column == "median":
            spread = wide
        else:
            spread = pd.Series(np.nan, index=reference.index)
        for i in range(len(reference)):
            ours, theirs = float(run[column].iloc[i]), float(reference[column].iloc[i])
            width = float(spread.iloc[i])
            if _same_bits(ours, theirs):
                status = "identical"
            elif math.isnan(width) or math.isnan(ours) or math.isnan(theirs):
                status = "no spread"
            elif abs(ours - theirs) <= width:
                status = "within spread"
            else:
                status = "beyond spread"
            rows.append(
                {
                    "table": name,
                    "row": ref_keys.iloc[i].replace("\x1f", " ") if labels else str(i),
                    "column": column,
                    "run": ours,
                    "reference": theirs,
                    "difference": ours - theirs,
                    "seed_spread": width,
                    "status": status,
                }
            )
    details = pd.DataFrame(rows, columns=["table", "row", "column", "run", "reference", "difference",
                                          "seed_spread", "status"])  # fmt: skip
    counts = {status: int((details["status"] == status).sum()) for status in STATUSES}
    return TableComparison(name, "compared", counts, details, added)


def compare_runs(run_dir: str | Path, reference_dir: str | Path) -> list[TableComparison]:
    """Every CSV under ``<reference>/tables`` against the same file under ``<run>/tables``."""
    run_tables, ref_tables = Path(run_dir) / "tables", Path(reference_dir) / "tables"
    if not ref_tables.is_dir():
        raise FileNotFoundError(f"{ref_tables} does not exist: point --reference at a directory with tables/")
    if not run_tables.is_dir():
        raise FileNotFoundError(f"{run_tables} does not exist: point --run at a run's results/ directory")
    out = []
    for ref_path in sorted(ref_tables.glob("*.csv")):
        run_path = run_tables / ref_path.name
        if not run_path.exists():
            out.append(TableComparison(ref_path.name, "missing in run", dict.fromkeys(STATUSES, 0)))
            continue
        try:
            run_table, ref_table = read_table(run_path), read_table(ref_path)
        except ValueError as err:  # empty or cut short: named, the other tables still compared
            out.append(TableComparison(ref_path.name, f"not comparable: {err}", dict.fromkeys(STATUSES, 0)))
            continue
        out.append(compare_tables(ref_path.name, run_table, ref_table))
    return out


def strict_failures(comparisons: list[TableComparison]) -> list[str]:
    """Why ``--strict`` fails: tables not compared (by reason) and values not identical."""
    reasons: dict[str, list[str]] = {}
    for c in comparisons:
        if c.status != "compared":
            reasons.setdefault(c.status.split(" (")[0].split(": table ")[0], []).append(c.table)
    lines = [
        f"{len(tables)} table(s) {reason}: {', '.join(tables[:6])}{' ...' if len(tables) > 6 else ''}"
        for reason, tables in reasons.items()
    ]
    differ = {s: sum(c.counts[s] for c in comparisons) for s in STATUSES[1:]}
    if any(differ.values()):
        lines.append(
            "values not identical: " + ", ".join(f"{n} {status}" for status, n in differ.items() if n)
        )
    return lines


def render(comparisons: list[TableComparison]) -> str:
    width = max([len(c.table) for c in comparisons] + [5])
    head = f"{'table':<{width}}  " + "  ".join(f"{s:>13}" for s in STATUSES) + "  status"
    lines = [head, "-" * len(head)]
    for c in comparisons:
        counts = "  ".join(f"{c.counts[s]:>13}" for s in STATUSES)
        left_out = f" (not in the reference, left out: {', '.join(c.left_out)})" if c.left_out else ""
        lines.append(f"{c.table:<{width}}  {counts}  {c.status}{left_out}")
    total = {s: sum(c.counts[s] for c in comparisons) for s in STATUSES}
    lines.append("-" * len(head))
    lines.append(f"{'all':<{width}}  " + "  ".join(f"{total[s]:>13}" for s in STATUSES))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", default="results", help="a run's results directory (default: results)")
    parser.add_argument(
        "--reference", default="reference", help="the reference directory (default: reference)"
    )
    parser.add_argument("--details", help="write every compared value with its status to this CSV")
    parser.add_argument("--strict", action="store_true", help="exit 1 unless every value is identical")
    args = parser.parse_args(argv)
    details = Path(args.details) if args.details else None
    if details is not None and (details.is_dir() or not details.parent.is_dir()):
        why = "is a directory" if details.is_dir() else f"is in {details.parent}, which does not exist"
        print(f"ERROR: --details {args.details}: {why}; name a CSV file to write", file=sys.stderr)
        return 2
    try:
        comparisons = compare_runs(args.run, args.reference)
    except FileNotFoundError as err:
        print(f"ERROR: {err}", file=sys.stderr)
        return 2
    print(render(comparisons))
    if args.details:
        frames = [c.details for c in comparisons if c.details is not None and not c.details.empty]
        if frames:
            pd.concat(frames).to_csv(details, index=False)
    if args.strict:
        clean = all(c.status == "compared" for c in comparisons) and all(
            c.counts[s] == 0 for c in comparisons for s in STATUSES[1:]
        )
        if clean:
            return 0
        print("--strict fails: " + "; ".join(strict_failures(comparisons)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
