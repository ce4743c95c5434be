"""Which rule scripts load torch (issue #50).

``import torch`` costs about 1.2 CPU-seconds per process, and every Snakemake job is a
process: a rule that only reads tables and saved probe gates (``.npz``) must not pay it.
The package keeps the parts that run models (``gatedrnn.analysis.gates``,
``.perturbation``, ``gatedrnn.tables.probe_gates``, ...) apart from those that read
their outputs (``gatedrnn.analysis.gate_files``, ``.stats``, ``gatedrnn.tables.gates``,
...). Every script outside ``NEEDS_TORCH`` must import without torch; a new accidental
import fails here, naming the chain of modules that asked for it.

One subprocess checks every script: torch is refused, never loaded, so a module that
needs it fails to import and is not kept, while a module kept is torch-free for the
next script too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflow" / "scripts"

# The rule scripts that load torch, each with the reason; every other script must not.
NEEDS_TORCH = {
    "train.py": "trains the models",
    "probe_gates.py": "runs each trained model on the probe set to recompute its gates (C1)",
    "perturbation_table.py": "reruns trained models on changed text and differentiates them (C4, E1, E3)",
    "cell_analyses.py": "steps, perturbs and differentiates every grid model (issue #49)",
    "forget_bias_memory_check.py": "reruns the sweep's LSTMs through nn.LSTM (issue #17)",
    "grad_reach_init_table.py": "differentiates freshly initialised modules (B1)",
    "long_memory.py": "runs the copy-task models for recall and gates (G6)",
    "open_reset_gate.py": "evaluates the trained GRUs with the reset gate pinned (G1)",
    # not by its nature: gatedrnn.io.variants -> io.reading -> core.data imports torch
    # at module level, and those modules are frozen while the reference trains
    "small_corpus.py": "gatedrnn.io.reading imports gatedrnn.core.data (torch); frozen",
}

CHECK = r"""
import ast, json, sys, traceback
from pathlib import Path

repo = Path.cwd()
asked = []


def where(frame):
    path = Path(frame.filename)
    return f"{path.relative_to(repo) if path.is_relative_to(repo) else path.name}:{frame.lineno}"


class RefuseTorch:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "torch":
            stack = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith("<")]
            asked.append(" <- ".join(where(f) for f in reversed(stack)))
            raise ImportError(f"torch refused ({name})")
        return None


sys.meta_path.insert(0, RefuseTorch())
found = {}
for script in sys.argv[1:]:
    tree = ast.parse(Path(script).read_text())
    imports = [
        node for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "module", None) != "__future__"
    ]
    asked.clear()
    try:
        exec(compile(ast.Module(body=imports, type_ignores=[]), script, "exec"), {})
    except ImportError:
        if not asked:  # a broken import, not torch refused
            raise
    found[Path(script).name] = asked[0] if asked else None

# The gate statistics at work (what gate_stats_table.py runs), on files of hand-made gates:
# no function reaches for torch when it is called either.
asked.clear()
try:
    import numpy as np
    from gatedrnn.analysis.gate_files import save_gates
    from gatedrnn.tables import gates as gate_tables

    rng = np.random.default_rng(0)
    paths = []
    for cell, names in (("lstm", "ifgo"), ("gru", "rzn")):
        path = Path(GATES) / "default" / f"{cell}_w3_s0.npz"
        identity = {"model": f"{cell}_w3", "seed": 0, "regime": "default", "cell": cell, "width": 3}
        gates = {name: rng.uniform(size=(2, 4, 3)) for name in names}
        save_gates(path, gates, np.zeros((2, 4), np.int64), ["ab c", "d\nef"], cell, identity=identity)
        paths.append(path)
    lstm, gru = gate_tables.load_probe_gates(paths)
    units = gate_tables.unit_gates_table([lstm, gru])
    for table in (
        gate_tables.gate_table([lstm, gru]),
        gate_tables.forget_units_table([lstm]),
        gate_tables.forget_by_char_table([lstm]),
        gate_tables.coupling_table([lstm]),
        gate_tables.coupling_histogram_table([lstm]),
        gate_tables.unit_half_lives_table(units),
    ):
        assert len(table), table
except ImportError:
    if not asked:
        raise
found["<the gate statistics at work>"] = asked[0] if asked else None
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def torch_asked(tmp_path_factory) -> dict[str, str | None]:
    """Per script: the chain of modules that first asked for torch, or None."""
    gates = tmp_path_factory.mktemp("gates")
    code = CHECK.replace("GATES", repr(str(gates)))
    scripts = sorted(str(path) for path in SCRIPTS.glob("*.py"))
    proc = subprocess.run(
        [sys.executable, "-c", code, *scripts], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_scripts_that_only_read_tables_and_gates_import_no_torch(torch_asked):
    accidental = {
        name: chain for name, chain in torch_asked.items() if name not in NEEDS_TORCH and chain is not None
    }
    assert not accidental, (
        "these rule scripts import torch (through the modules named, innermost first); keep "
        "the code that runs models apart from what reads their outputs, or, if the rule runs "
        f"a model, add the script to NEEDS_TORCH with the reason: {json.dumps(accidental, indent=1)}"
    )


def test_the_scripts_said_to_need_torch_do(torch_asked):
    """A script that stopped needing torch leaves NEEDS_TORCH (and its reason) behind."""
    assert set(NEEDS_TORCH) <= set(torch_asked), set(NEEDS_TORCH) - set(torch_asked)
    assert [name for name in NEEDS_TORCH if torch_asked[name] is None] == []
