"""The cells a config names: built-ins by name, plug-ins by import path (docs/cells.md).

A plug-in's models carry its class name in lower case in their file names
(``tests.cells:JANET`` -> ``janet_budget24_s0``); :func:`configured_cells` maps that
name back to the import path, for the jobs that build the model. The check below
refuses, when the config is loaded, an import path that does not resolve or a class
that is not a cell, in one line naming the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gatedrnn.core.registry import BUILTIN_CELLS, cell_name, is_import_path, load_cell_class, name_problem
from gatedrnn.plan.checks import check
from gatedrnn.plan.paths import CELL_ANALYSES, STUDY_CELLS


def _cells(config, key: str = ""):
    """(dotted key, cell) for every ``cell`` a mapping of the config names, however deep."""
    if isinstance(config, Mapping):
        for k, value in config.items():
            path = f"{key}.{k}" if key else str(k)
            if k == "cell" and isinstance(value, str):
                yield path, value
            else:
                yield from _cells(value, path)
    elif isinstance(config, list):
        for index, value in enumerate(config):
            yield from _cells(value, f"{key}[{index}]")


def configured_cells(config: Mapping) -> dict[str, str]:
    """name -> import path of every plug-in cell the config names (no import)."""
    return {cell_name(cell): cell for _, cell in _cells(config) if is_import_path(cell)}


def cell_path(config: Mapping, name: str) -> str:
    """What builds a model whose file name says ``name``: a plug-in's import path, or the built-in."""
    return configured_cells(config).get(name, name)


def cell_names(config: Mapping) -> list[str]:
    """Every cell a model directory may hold under this config: the built-ins and the plug-ins."""
    return [*BUILTIN_CELLS, *(name for name in configured_cells(config) if name not in BUILTIN_CELLS)]


def cell_analyses_targets(grid) -> list[str]:
    """The table of every analysis by declared gates, when the grid ``(cell, width)`` holds
    a cell beyond the study's three (the default config's DAG is the study's)."""
    return [CELL_ANALYSES] if any(cell not in STUDY_CELLS for cell, _ in grid) else []


@check("cells resolve")
def cells_resolve(plan) -> Iterable[str]:
    """A cell named by import path imports and is a cell (a RecurrentCell subclass whose
    declarations hold); two import paths do not share a name."""
    names: dict[str, str] = {}
    for key, cell in _cells(plan.config):
        if cell in BUILTIN_CELLS:
            continue
        if problem := name_problem(cell):
            yield f"{key}: {problem}"
            continue
        try:
            load_cell_class(cell)
        except ValueError as err:
            yield f"{key}: {err}"
            continue
        other = names.setdefault(cell_name(cell), cell)
        if other != cell:
            yield f"{key}: {cell!r} and {other!r} both name files {cell_name(cell)!r}; rename one class"
