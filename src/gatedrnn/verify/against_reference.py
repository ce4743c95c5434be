"""The reference run's cheapest model trained again here, and compared with ``reference/manifest.json``.

``python -m gatedrnn.reference collect`` records, for every trained model, the sha256 of
its final weights and of its ``history.csv``, its best validation loss, its corpus and the
numerics it was trained under (:func:`gatedrnn.reference.manifest.trained_bits`). This
module picks the cheapest of those models that trains on the real corpus, trains it
again through the workflow (``snakemake --forcerun train``, under the reference's own
config), and says either "bit-identical to the reference" or the first difference and
what it likely means. Under ``native`` numerics or on a GPU, bits are not expected to
match: the best loss is compared with the spread of the reference's seeds instead.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gatedrnn.io.files import read_json

REPO = Path(__file__).resolve().parents[3]
SNAKEFILE = REPO / "Snakefile"


class CannotVerify(Exception):
    """The reference does not hold what the check needs; the message says how to get it."""


@dataclass
class Verdict:
    identical: bool  # bit-identical, or (bits not expected) within the seed spread
    lines: list[str] = field(default_factory=list)
    bits_expected: bool = True


SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def merged_config(reference_config: dict, dropped: list[str] | None = None) -> dict:
    """The reference's config over the checkout's ``config/config.yaml``, as Snakemake merges
    them, without the reference's keys that this checkout's schema no longer has (their
    dotted paths appended to ``dropped``). A reference collected under an older schema keeps
    keys since renamed or dropped (the three-seed reference's ``protocol.confirm.regimes``);
    none of them reaches training, whose keys the schema still names, and the trained bits
    are what verify compares."""
    import yaml
    from snakemake.utils import update_config

    from gatedrnn.plan.config_files import keys_the_schema_lacks

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, json.loads(json.dumps(reference_config)))
    lacking = keys_the_schema_lacks(config, yaml.safe_load(SCHEMA.read_text()))
    if dropped is not None:
        dropped.extend(lacking)
    return config


def cheapest_model(manifest: dict) -> tuple[str, dict]:
    """``<regime>/<model>_s<seed>`` and the manifest's record of the cheapest (CPU seconds)
    trained model whose regime trains on the real corpus."""
    from gatedrnn.plan import Plan

    plan = Plan.from_config(merged_config(manifest.get("config", {})))
    jobs = manifest.get("training_jobs", {})
    candidates = [
        (job["cpu_s"], name)
        for name, job in jobs.items()
        if name.split("/")[0] in plan.regimes and plan.dataset(name.split("/")[0]) == "default"
    ]
    if not candidates:
        raise CannotVerify("the reference's manifest lists no trained model on the corpus (training_jobs)")
    _, name = min(candidates)
    return name, jobs[name]


def missing_bits(name: str, record: dict) -> str | None:
    """Why ``record`` cannot be compared bit for bit, or None."""
    lacking = [key for key in ("weights_sha256", "history_sha256", "numerics") if not record.get(key)]
    if not lacking:
        return None
    return (
        f"the reference lacks {', '.join(lacking)} for {name}: it was collected before "
        "collect recorded them (numerics.cpu_isa did not exist yet). Rebuild the reference under "
        "the pin and collect it again (python -m gatedrnn.reference collect ...; reference/README.md), "
        "or collect your own run with it and verify against that (--reference DIR)"
    )


def run_parts(name: str) -> dict:
    regime, run = name.split("/")
    model, seed = run.rsplit("_s", 1)
    cell, width = model.rsplit("_", 1)
    return {"regime": regime, "cell": cell, "width": width, "seed": seed}


def projected_seconds(name: str, configfile: Path, workdir: Path, cpu_isa: str) -> float:
    """This machine's projected seconds for training ``name`` (gatedrnn.estimate); a
    calibration needs this process pinned to ``cpu_isa`` (numerics.pin_this_process)."""
    from gatedrnn.estimate import benchmark_costs, cost_jobs, train_jobs_for

    jobs, threads = train_jobs_for([run_parts(name)], [str(configfile)], workdir)
    cost_jobs(jobs, benchmark_costs(workdir / "results"), log=lambda message: None, cpu_isa=cpu_isa)
    return jobs[0].seconds


def snakemake(workdir: Path, configfile: Path, *args: str, log: Path) -> None:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir)]
    cmd += ["--configfile", str(configfile), "--cores", "1", *args]
    with open(log, "a") as handle:
        proc = subprocess.run(cmd, stdout=handle, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise CannotVerify(f"snakemake {' '.join(args)} failed: see {log}")


def gpu_present() -> bool:
    import torch

    return torch.cuda.is_available()


def seed_spread(manifest: dict, name: str) -> list[float]:
    """Best validation losses of every seed of ``name``'s model under its regime in the reference."""
    stem = name.rsplit("_s", 1)[0]
    losses = [
        job.get("best_val_loss")
        for other, job in manifest.get("training_jobs", {}).items()
        if other.rsplit("_s", 1)[0] == stem and isinstance(job.get("best_val_loss"), float)
    ]
    return sorted(loss for loss in losses if not math.isnan(loss))


def compare(record: dict, here: dict, spread: list[float]) -> Verdict:
    """``record`` (the reference's) against ``here`` (the same keys, from the retraining)."""
    ref_numerics, our_numerics = record.get("numerics") or {}, here.get("numerics") or {}
    causes = []
    if record.get("corpus_sha256") != here.get("corpus_sha256"):
        causes.append("another corpus: the text's sha256 is not the reference's (config corpus.*)")
    if our_numerics.get("device", "cpu") != "cpu" or ref_numerics.get("device", "cpu") != "cpu":
        causes.append(
            f"a GPU (here {our_numerics.get('device')}, reference {ref_numerics.get('device')}): "
            "GPU kernels are not bit-reproducible across GPU models"
        )
    settings = (("cpu_isa", "another ISA setting (numerics.cpu_isa)"), ("torch_version", "another torch"))
    for key, what in settings:
        if ref_numerics.get(key) != our_numerics.get(key):
            causes.append(f"{what}: {our_numerics.get(key)} here, {ref_numerics.get(key)} in the reference")
    native = "native" in (ref_numerics.get("cpu_isa"), our_numerics.get("cpu_isa"))
    if native:
        causes.append("native numerics: bits match only on the reference's CPU model")
    bits_expected = not any(c.startswith(("a GPU", "native")) for c in causes)

    same_weights = here["weights_sha256"] == record["weights_sha256"]
    if same_weights and here["history_sha256"] == record["history_sha256"]:
        return Verdict(True, ["bit-identical to the reference"])
    lines = []
    if not same_weights:
        lines.append(
            f"first difference: the final weights (sha256 {here['weights_sha256'][:16]} here, "
            f"{record['weights_sha256'][:16]} in the reference)"
        )
    else:
        lines.append("first difference: the validation history (the weights agree)")
    lines.append(
        f"best validation loss: {here['best_val_loss']!r} here, {record['best_val_loss']!r} in the reference"
    )
    if causes:
        lines.append("what differs from the reference's training: " + "; ".join(causes))
    elif bits_expected:
        lines.append(
            "likely cause: this CPU's kernels differ from the reference CPU's under the same pin "
            f"({our_numerics.get('cpu_model')} here, {ref_numerics.get('cpu_model')} in the reference). "
            "Run python -m gatedrnn.verify fingerprint and report the CPU: the promise says it should match"
        )
    if bits_expected:
        return Verdict(False, lines)
    if len(spread) < 2:
        lines.append("bits are not expected to match; the reference has one seed of this model: no spread")
        return Verdict(False, lines, bits_expected=False)
    width = spread[-1] - spread[0]
    within = abs(here["best_val_loss"] - record["best_val_loss"]) <= width
    lines.append(
        f"bits are not expected to match; the best loss is {'within' if within else 'OUTSIDE'} the "
        f"spread of the reference's {len(spread)} seeds ({spread[0]:.4f}..{spread[-1]:.4f}, "
        f"spread {width:.4f}; "
        f"here {here['best_val_loss']:.4f}, reference {record['best_val_loss']:.4f})"
    )
    return Verdict(within, lines, bits_expected=False)


def retrained(workdir: Path, name: str) -> dict:
    """The retraining's record, with the keys of :func:`gatedrnn.reference.manifest.trained_bits`."""
    from gatedrnn.reference.manifest import trained_bits

    model_dir = workdir / "results" / "models" / name
    summary = read_json(model_dir / "summary.json", "training summary")
    return trained_bits(model_dir, summary)
