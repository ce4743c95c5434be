"""Which recurrent cells a config may name, and what each declares (docs/cells.md).

A cell is named in the config either by a built-in name (``rnn``, ``gru``, ``lstm``,
``cho_gru``, ``gru_noreset``, ``cifg``, ``mingru``) or by an import path
``"package.module:Class"`` of a :class:`gatedrnn.core.interface.RecurrentCell`
subclass outside the package. Either way the analyses read a :class:`CellSpec`:
its gates, states, keep gate and coupling candidates, never a cell's name.

Torch-free for the built-ins (the plan, the widths and the memory estimate read them
before any model exists); an import path is imported only when it is asked about.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass, field

# An import path: dotted module, a colon, a class name.
IMPORT_PATH = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<cls>[A-Za-z_]\w*)$")
# What a cell's name may be in a file name (gatedrnn.core.conventions.MODEL_FILE).
CELL_NAME = re.compile(r"^[a-z][a-z_]*$")


@dataclass(frozen=True)
class CellSpec:
    """What the analyses know of a cell.

    ``gates``: the named gate activations per step, in the order the cell's weights
    stack them; ``states``: the state vectors per step (``h`` is the output);
    ``keep_gate``: the gate whose per-unit mean is the fraction of the state kept per
    step (sets a unit's half-life), or None; ``couplings``: pairs ``(a, b)`` whose tie
    ``a = 1 - b`` is a candidate (the LSTM's i against 1 - f); ``labels``: a word for
    each gate; ``blocks``: gate blocks of a closed-form parameter count (PyTorch's
    layout: ``blocks * (H * D + H * H + 2 * H)``), None where the count is taken from
    the instantiated module; ``path``: the class's import path.
    """

    name: str
    path: str
    gates: tuple[str, ...]
    states: tuple[str, ...] = ("h",)
    keep_gate: str | None = None
    couplings: tuple[tuple[str, str], ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    blocks: int | None = None
    builtin: bool = False

    def label(self, gate: str) -> str:
        return self.labels.get(gate, gate)


_BUILTIN = "gatedrnn.core.builtin_cells"
BUILTIN_CELLS: dict[str, CellSpec] = {
    spec.name: spec
    for spec in (
        CellSpec("rnn", f"{_BUILTIN}:TanhRNN", (), blocks=1, builtin=True),
        CellSpec(
            "gru", f"{_BUILTIN}:GRU", ("r", "z", "n"), keep_gate="z", blocks=3, builtin=True,
            labels={"r": "reset", "z": "update", "n": "candidate"},
        ),
        CellSpec(
            "lstm", f"{_BUILTIN}:LSTM", ("i", "f", "g", "o"), ("c", "h"), keep_gate="f",
            couplings=(("i", "f"),), blocks=4, builtin=True,
            labels={"i": "input", "f": "forget", "g": "candidate", "o": "output"},
        ),
        CellSpec(
            "gru_noreset", f"{_BUILTIN}:GRUNoReset", ("z", "n"), keep_gate="z", blocks=2, builtin=True,
            labels={"z": "update", "n": "candidate"},
        ),
        CellSpec(
            "cho_gru", f"{_BUILTIN}:ChoGRU", ("r", "z", "n"), keep_gate="z", blocks=3, builtin=True,
            labels={"r": "reset", "z": "update", "n": "candidate"},
        ),
        CellSpec(
            "cifg", f"{_BUILTIN}:CIFG", ("f", "g", "o"), ("c", "h"), keep_gate="f", blocks=3, builtin=True,
            labels={"f": "forget", "g": "candidate", "o": "output"},
        ),
        CellSpec(
            "mingru", f"{_BUILTIN}:MinGRU", ("z", "n"), keep_gate="z", builtin=True,
            labels={"z": "update", "n": "candidate"},
        ),
    )
}  # fmt: skip


def is_import_path(cell: str) -> bool:
    return bool(IMPORT_PATH.match(cell))


def cell_name(cell: str) -> str:
    """The name a cell's models carry in file names: a built-in's own, or an import
    path's class name in lower case (``tests.cells:JANET`` -> ``janet``). No import."""
    match = IMPORT_PATH.match(cell)
    return match["cls"].lower() if match else cell


def name_problem(cell: str) -> str | None:
    """Why ``cell`` cannot be a config's cell without importing anything, or None."""
    if cell in BUILTIN_CELLS:
        return None
    if not is_import_path(cell):
        return (
            f"unknown cell {cell!r}: name a built-in ({', '.join(BUILTIN_CELLS)}) or a class by "
            "import path 'package.module:Class' (docs/cells.md)"
        )
    name = cell_name(cell)
    if not CELL_NAME.match(name):
        return f"cell {cell!r}: its class name in lower case, {name!r}, must be letters and '_' only"
    if name in BUILTIN_CELLS:
        return f"cell {cell!r}: its class name in lower case, {name!r}, is a built-in's; rename the class"
    return None


def load_cell_class(cell: str):
    """The :class:`~gatedrnn.core.interface.RecurrentCell` subclass a name or import path
    stands for; ValueError (one line, saying the fix) if it does not resolve or is no cell."""
    from gatedrnn.core.interface import RecurrentCell

    if problem := name_problem(cell):
        raise ValueError(problem)
    path = BUILTIN_CELLS[cell].path if cell in BUILTIN_CELLS else cell
    module_name, _, class_name = path.partition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:  # a module beside the workflow
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as err:  # ImportError, or the module's own error
        raise ValueError(
            f"cell {cell!r}: module {module_name!r} does not import ({type(err).__name__}: {err}); "
            "it must be importable from the working directory or the environment"
        ) from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"cell {cell!r}: module {module_name!r} has no {class_name!r}")
    if not (isinstance(cls, type) and issubclass(cls, RecurrentCell)):
        raise ValueError(
            f"cell {cell!r}: {class_name} is not a cell (a subclass of "
            "gatedrnn.core.interface.RecurrentCell, docs/cells.md)"
        )
    if problem := cls.declaration_problem():
        raise ValueError(f"cell {cell!r}: {problem}")
    return cls


def cell_spec(cell: str) -> CellSpec:
    """The declared gates of a built-in (no import) or of a class named by import path."""
    if cell in BUILTIN_CELLS:
        return BUILTIN_CELLS[cell]
    cls = load_cell_class(cell)
    return CellSpec(
        name=cell_name(cell),
        path=cell,
        gates=tuple(cls.gates),
        states=tuple(cls.states),
        keep_gate=cls.keep_gate,
        couplings=tuple(tuple(pair) for pair in cls.couplings),
        labels=dict(cls.gate_labels),
    )
