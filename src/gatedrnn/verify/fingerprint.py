"""The numerics fingerprint: whether this CPU trains the same bits as the CPUs it has passed on.

Each cell (and two layers) trained for a few steps at a small width on the workflow's
own synthetic text, under the pinned numerics; the sha256 of each model's weights
(:func:`gatedrnn.numerics.weights_sha256`) against the setting's record,
``tests/data/numerics_fingerprint_<cpu_isa>.json`` (:func:`path_for`).
The width (20) is no multiple of a vector's lanes, so the kernels' remainder loops count
too. The file also lists every CPU the check has passed on (``passed_on``):
``python -m gatedrnn.verify fingerprint --record-cpu`` adds this one after a pass.

The process must be pinned before torch is imported: ``python -m gatedrnn.verify``
does that; :func:`train_fingerprint` refuses a process that is not.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from gatedrnn import numerics
from gatedrnn.io.files import read_json

DATA = Path(__file__).resolve().parents[3] / "tests" / "data"


def path_for(cpu_isa: str) -> Path:
    """The record of ``cpu_isa``'s bits: one file per setting, so that a new default pin
    starts its own record and the old one keeps the CPUs it passed on."""
    return DATA / f"numerics_fingerprint_{cpu_isa}.json"


FINGERPRINT = path_for(numerics.DEFAULT)

# name -> (cell, layers): every cell of the study and of the open questions, and two layers
MODELS = {
    "rnn": ("rnn", 1),
    "gru": ("gru", 1),
    "lstm": ("lstm", 1),
    "cho_gru": ("cho_gru", 1),
    "gru_noreset": ("gru_noreset", 1),
    "cifg": ("cifg", 1),
    "mingru": ("mingru", 1),
    "lstm_two_layers": ("lstm", 2),
    "gru_two_layers": ("gru", 2),
}
WIDTH = 20
SEED = 0
CORPUS_CHARS = 6000  # gatedrnn.io.synthetic.synthetic_prose, seed 0
PROTOCOL = {
    "steps": 6,
    "batch_size": 8,
    "seq_len": 32,
    "eval_every": 3,
    "val_windows": 4,
    "embed_dim": 12,
}


def train_fingerprint(cpu_isa: str, log=lambda message: None, names=None) -> dict[str, str]:
    """name -> sha256 of the weights after :data:`PROTOCOL`'s steps, for every model of
    :data:`MODELS`, or of ``names`` (a record's models: one written before a cell joined
    :data:`MODELS` is checked on what it holds, its CPUs' passes still meaning that)."""
    numerics.check_in_force(cpu_isa)
    import torch

    from gatedrnn.core.data import Vocabulary, split_train_val
    from gatedrnn.io.synthetic import synthetic_prose
    from gatedrnn.train.config import TrainConfig
    from gatedrnn.train.loop import train_model

    torch.set_num_threads(1)
    text = synthetic_prose(CORPUS_CHARS, seed=0)
    vocab = Vocabulary.from_text(text)
    train_ids, val_ids = split_train_val(vocab.encode(text), 0.9)
    hashes = {}
    for name in MODELS if names is None else names:
        cell, layers = MODELS[name]
        cfg = TrainConfig(**PROTOCOL, layers=layers)
        result = train_model(
            cell=cell,
            hidden=WIDTH,
            seed=SEED,
            vocab_size=len(vocab),
            train_ids=train_ids,
            val_ids=val_ids,
            cfg=cfg,
            device="cpu",
            log=lambda message: None,
        )
        hashes[name] = numerics.weights_sha256(result.model.state_dict())
        log(f"  {name:<16} {hashes[name][:16]}")
    return hashes


def differences(expected: dict[str, str], found: dict[str, str]) -> list[str]:
    """One line per model whose weights differ from the fingerprint's (or that one of them lacks)."""
    lines = []
    for name in sorted(set(expected) | set(found)):
        if name not in found or name not in expected:
            lines.append(f"{name}: {'not trained here' if name not in found else 'not in the fingerprint'}")
        elif expected[name] != found[name]:
            cell, layers = MODELS.get(name, (name, 1))
            lines.append(
                f"{name} ({cell}, {layers} layer{'s' if layers > 1 else ''}): weights differ "
                f"(fingerprint {expected[name][:16]}, here {found[name][:16]})"
            )
    return lines


def this_cpu(found: dict) -> dict:
    """The entry ``passed_on`` gets for this machine (``found``: :func:`gatedrnn.numerics.in_force`)."""
    return {
        "cpu_model": found["cpu_model"],
        "cpu_vendor": found["cpu_vendor"],
        "cpu_flags": found.get("cpu_flags", numerics.cpu_flags()),
        "torch": found["torch_version"],
        "passed": datetime.now(UTC).date().isoformat(),
    }


def _cpu_label(entry: dict) -> str:
    widest = "AVX-512" if "avx512f" in entry.get("cpu_flags", []) else "AVX2"
    return f"{entry['cpu_model']} with {widest}"


def passed_before(fingerprint: dict, found: dict) -> str:
    """The CPUs ``passed_on`` lists, each once with its widest vector extension (two EPYC
    generations share a model name), and whether this one is among them."""
    labels = list(dict.fromkeys(_cpu_label(entry) for entry in fingerprint.get("passed_on", [])))
    here = this_cpu(found)
    listed = any((known["cpu_model"], known["cpu_flags"]) == (here["cpu_model"], here["cpu_flags"])
                 for known in fingerprint.get("passed_on", []))  # fmt: skip
    status = "listed" if listed else "not listed yet: --record-cpu adds it"
    before = f"passed before on {len(labels)} CPU models: {'; '.join(labels)}"
    return f"{before}; this one ({_cpu_label(here)}) is {status}"


def load(path: Path = FINGERPRINT) -> dict:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: write it with python -m gatedrnn.verify fingerprint --write"
        )
    return json.loads(path.read_text())


def save(fingerprint: dict, path: Path = FINGERPRINT) -> None:
    Path(path).write_text(json.dumps(fingerprint, indent=1, sort_keys=True) + "\n")


def fresh(cpu_isa: str, hashes: dict[str, str], found: dict) -> dict:
    """A new fingerprint: these hashes, passed on this CPU alone."""
    return {
        "about": "python -m gatedrnn.verify fingerprint (gatedrnn/verify/fingerprint.py): "
        "short trainings of every cell under numerics.cpu_isa, sha256 of their weights",
        "cpu_isa": cpu_isa,
        "torch": found["torch_version"],
        "protocol": {"width": WIDTH, "seed": SEED, "corpus_chars": CORPUS_CHARS, **PROTOCOL},
        "weights_sha256": hashes,
        "passed_on": [this_cpu(found)],
    }


def record_pass(fingerprint: dict, found: dict) -> bool:
    """Add this CPU to ``passed_on`` unless a CPU of the same model and flags is there; True if added."""
    entry = this_cpu(found)
    for known in fingerprint.setdefault("passed_on", []):
        if (known["cpu_model"], known["cpu_flags"], known["torch"]) == (
            entry["cpu_model"],
            entry["cpu_flags"],
            entry["torch"],
        ):
            return False
    fingerprint["passed_on"].append(entry)
    return True


def record_emulated_pass(fingerprint: dict, emulator: str, found: dict) -> bool:
    """Add an emulated CPU (``qemu-x86_64 7.2 -cpu Haswell-noTSX``) to ``emulated_on`` unless
    it is there; True if added. Kept apart from ``passed_on``, which lists real CPUs."""
    entry = {"emulator": emulator, "torch": found["torch_version"]}
    entry["host_cpu_model"] = found["cpu_model"]  # /proc/cpuinfo under qemu-user is the host's
    entry["passed"] = datetime.now(UTC).date().isoformat()
    for known in fingerprint.setdefault("emulated_on", []):
        if (known["emulator"], known["torch"]) == (entry["emulator"], entry["torch"]):
            return False
    fingerprint["emulated_on"].append(entry)
    return True


def full_size_record(model_dir: Path) -> tuple[str, dict]:
    """``<regime>/<run>`` and what :func:`gatedrnn.reference.manifest.trained_bits` records
    of a model the workflow trained (``results/models/<regime>/<run>``), with its steps."""
    from gatedrnn.reference.manifest import trained_bits

    model_dir = Path(model_dir)
    summary = read_json(model_dir / "summary.json", "training summary")
    if not summary.get("numerics"):
        raise ValueError(f"{model_dir} was trained before numerics.cpu_isa existed: train it again")
    bits = trained_bits(model_dir, summary) | {"steps": summary["train_config"]["steps"]}
    return f"{model_dir.parent.name}/{model_dir.name}", bits
