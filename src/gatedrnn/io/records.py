"""A run's records read back and checked against what their place says they are.

Every file of one run lives at a path that names it: ``results/models/<regime>/<model>_s<seed>/``
(``summary.json``, ``history.csv``) and ``results/gates/<regime>/<model>_s<seed>.npz``
(and ``.check.json``). A rule that asks for that path expects that run. A file copied
from another model, width, seed or regime would otherwise be read as this one's (a GRU
of 27 units counting another model's gates), so each record carries its own identity
and the readers here refuse a record whose identity is not its path's, naming the file.
An empty or truncated file is named too (:func:`gatedrnn.io.files.read_json`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from gatedrnn.core.conventions import MODEL_FILE
from gatedrnn.io.files import damaged_file_error, read_json


def run_of_path(path) -> dict | None:
    """``{"regime", "model", "seed"}`` that ``path`` names (a model directory's file, or
    a gates file ``<model>_s<seed>.npz`` / ``.check.json``), or None if it names no run."""
    path = Path(path)
    candidates = ((path.parent.name, path.parent.parent.name), (path.name.split(".")[0], path.parent.name))
    for name, regime in candidates:
        match = MODEL_FILE.match(name)
        if match:
            return {"regime": regime, "model": match["model"], "seed": int(match["seed"])}
    return None


def identity_problems(record: Mapping, expected: Mapping) -> list[str]:
    """Where ``record``'s identity keys disagree with ``expected`` (keys it lacks are
    problems too), and a model id that is not ``<cell>_<width token>``."""
    problems = [
        f"{key} {record.get(key)!r} (expected {value!r})"
        for key, value in expected.items()
        if value is not None and record.get(key) != value
    ]
    cell, token = record.get("cell"), record.get("width_token")
    if cell is not None and token is not None and record.get("model") != f"{cell}_{token}":
        problems.append(f"model {record.get('model')!r} is not cell {cell!r} at width {token!r}")
    return problems


def check_identity(record: Mapping, path, what: str, expected: Mapping | None = None) -> None:
    """Refuse (ValueError naming ``path``) a record that is not the run ``path`` names
    (and ``expected``'s further keys, e.g. the width or the corpus checksum)."""
    wanted = {**(run_of_path(path) or {}), **(expected or {})}
    problems = identity_problems(record, wanted)
    if problems:
        raise ValueError(
            f"{what} {path} is not this run's: it records {'; '.join(problems)}. It was copied "
            "from another run or is stale; delete it and rerun the workflow, which writes it again"
        )


def read_summary(path, expected: Mapping | None = None) -> dict:
    """A run's ``summary.json``, checked to be the run its path names."""
    summary = read_json(path, "training summary")
    check_identity(summary, path, "training summary", expected)
    return summary


def read_summaries(paths: Iterable) -> list[dict]:
    """:func:`read_summary` of each path, in order."""
    return [read_summary(path) for path in paths]


def read_gate_check(path) -> dict:
    """A gates rule's ``.check.json``, checked to be the run its path names."""
    check = read_json(path, "gate check")
    check_identity(check, path, "gate check")
    return check


def read_table(path, what: str = "table", expected: Mapping | None = None) -> pd.DataFrame:
    """A CSV an earlier rule wrote; an empty or cut-short file is a ValueError naming it
    (a file cut mid-line, too: every table ends with a newline), and so is one that
    lacks rows ``expected`` says it holds (:func:`check_rows`)."""
    try:
        with open(path, "rb") as handle:
            if handle.seek(0, 2):
                handle.seek(-1, 2)
                if handle.read(1) != b"\n":
                    raise pd.errors.ParserError("it ends mid-line")
        frame = pd.read_csv(path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise damaged_file_error(path, what, err) from None
    if expected:
        check_rows(frame, path, expected)
    return frame


def _key(value) -> str:
    """A key cell as text: 1.0 is 1 (a column with an empty cell is read as floats)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _shown(values) -> str:
    return ", ".join(str(v) for v in values)


def check_rows(frame: pd.DataFrame, path, expected: Mapping) -> None:
    """Refuse (ValueError naming ``path``) a table that lacks a key column, a row of any
    combination of ``expected["keys"]`` (column: values) or a column of
    ``expected["seed_columns"]``: what the plan says it holds."""
    keys = dict(expected.get("keys", {}))
    lacking = [c for c in [*keys, *expected.get("seed_columns", [])] if c not in frame.columns]
    problems = [f"the column(s) {_shown(lacking)}"] if lacking else []
    if not lacking and keys:
        have = {tuple(map(_key, row)) for row in frame[list(keys)].itertuples(index=False)}
        for column, values in keys.items():
            present = {_key(v) for v in frame[column]}
            gone = [v for v in values if _key(v) not in present]
            if gone:
                problems.append(f"every row of {column} {_shown(gone)}")
        if not problems:
            combos = [c for c in itertools.product(*keys.values()) if tuple(map(_key, c)) not in have]
            if combos:
                first = ", ".join(f"{k} {v}" for k, v in zip(keys, combos[0], strict=True))
                total = math.prod(len(values) for values in keys.values())
                problems.append(f"{len(combos)} row(s) of the {total} expected (first: {first})")
    if problems:
        holds = "; ".join(f"{column} {_shown(values)}" for column, values in keys.items())
        wide = expected.get("seed_columns")
        raise ValueError(
            f"table {path} lacks {'; '.join(problems)}: under this config it holds {holds}"
            f"{' and columns ' + _shown(wide) if wide else ''}. It was cut short or is left from another "
            "config; delete it and rerun the workflow, which writes it again"
        )
