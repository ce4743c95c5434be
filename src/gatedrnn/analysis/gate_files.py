"""Probe gates saved to a file, read back without torch.

The ``gates`` rule (:func:`gatedrnn.tables.probe_gates.write_probe_gates`) recomputes a
trained model's gates on the probe set (:mod:`gatedrnn.analysis.gates`, which runs the
model) and saves them here as a compressed ``.npz``; every table and figure that only
reads those files (the gate statistics, the regime sweep, the open questions) imports
this module and numpy, never torch, so such a job does not pay torch's start-up.

A cell's gates are read through its declared :class:`~gatedrnn.core.registry.CellSpec`
(keep gate, coupling candidates), which is torch-free for the built-in cells; a cell
named by import path is imported (with torch) only when its spec is asked for.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gatedrnn.core.registry import CellSpec, cell_spec


@dataclass
class ProbeGates:
    """Gates saved for a probe set: arrays (B, T, H), token ids (B, T), text lines."""

    cell: str
    layer: int
    gates: dict[str, np.ndarray]
    tokens: np.ndarray
    lines: list[str]
    # the run the gates are of (model, seed, regime, width, corpus_sha256); {} if unrecorded
    identity: dict = field(default_factory=dict)


def save_gates(
    path: str | Path,
    gates: dict[str, np.ndarray],
    tokens,
    lines: list[str],
    cell: str,
    layer: int = 0,
    keys: tuple[str, ...] | None = None,
    identity: dict | None = None,
) -> None:
    """Write gates (float32), the probe token ids and probe text to a compressed ``.npz``.

    ``keys`` selects which arrays to keep (default: all of ``gates``); pass
    ``GATE_NAMES[cell]`` to drop the states and keep the file small. Arrays are
    stored as ``gate_<name>``; no pickled objects, so loading needs no
    ``allow_pickle``. ``identity`` (the run's model, seed, regime, width, corpus
    checksum) is stored as JSON, for the readers to check the file is the run they want.
    """
    keys = tuple(gates) if keys is None else tuple(keys)
    # a torch tensor (from the gates rule) or an array; no torch import needed to tell
    tokens = np.asarray(tokens.cpu() if hasattr(tokens, "cpu") else tokens)
    lines = list(lines)
    if len(lines) != tokens.shape[0]:
        raise ValueError(f"{len(lines)} text lines for {tokens.shape[0]} token rows")
    arrays = {f"gate_{k}": np.asarray(gates[k], dtype=np.float32) for k in keys}
    for name, value in arrays.items():
        if value.shape[:2] != tokens.shape:
            raise ValueError(f"{name} has shape {value.shape}, tokens {tokens.shape}")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        np.savez_compressed(
            handle,
            cell=np.array(cell),
            layer=np.array(layer, dtype=np.int64),
            tokens=tokens.astype(np.int64),
            lines=np.array(lines, dtype=str),
            identity=np.array(json.dumps(identity or {}, sort_keys=True)),
            **arrays,
        )


def load_gates(path: str | Path) -> ProbeGates:
    """Read a file written by :func:`save_gates`; an empty, truncated or damaged file
    is a ValueError naming it (not numpy's bare EOFError or BadZipFile)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            gates = {k.removeprefix("gate_"): data[k] for k in data.files if k.startswith("gate_")}
            return ProbeGates(
                cell=str(data["cell"]),
                layer=int(data["layer"]),
                gates=gates,
                tokens=data["tokens"],
                lines=[str(line) for line in data["lines"]],
                identity=json.loads(str(data["identity"])) if "identity" in data.files else {},
            )
    except (EOFError, OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        raise ValueError(
            f"gates file {path} cannot be read ({type(err).__name__}: {err}): it is empty, truncated "
            "or damaged; delete it and rerun the workflow, which writes it again"
        ) from None


def keep_gate(probe: ProbeGates, what: str) -> np.ndarray:
    """The declared keep gate's values (B, T, H); ValueError if the cell has none."""
    spec = probe_spec(probe)
    if spec.keep_gate is None:
        raise ValueError(f"{what} needs a keep gate, and a {probe.cell} declares none")
    return probe.gates[spec.keep_gate]


def coupling_pair(probe: ProbeGates, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The first declared coupling candidate (a, b), tie a = 1 - b; ValueError if none."""
    spec = probe_spec(probe)
    if not spec.couplings:
        raise ValueError(f"{what} needs a coupling candidate, and a {probe.cell} declares none")
    a, b = spec.couplings[0]
    return probe.gates[a], probe.gates[b]


def probe_spec(probe) -> CellSpec:
    """The declared gates of the cell a :class:`ProbeGates` (or a summary) is of."""
    identity = probe.identity if isinstance(probe, ProbeGates) else probe
    cell = probe.cell if isinstance(probe, ProbeGates) else probe["cell"]
    return cell_spec(identity.get("cell_path") or cell)
