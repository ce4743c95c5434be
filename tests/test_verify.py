"""python -m gatedrnn.verify: the reference's cheapest model trained again, compared bit for bit.

End to end at smoke size: a smoke run's two LSTMs collected into a temporary reference
(python -m gatedrnn.reference collect), then verify against it: "bit-identical", and a
clear difference when one thing changes (the numerics, a recorded hash)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SMOKE_CONFIG, run_snakemake

from gatedrnn import numerics
from gatedrnn.plan.config_files import keys_the_schema_lacks
from gatedrnn.verify.against_reference import compare, merged_config, missing_bits, seed_spread

RECORD = {
    "weights_sha256": "a" * 64,
    "history_sha256": "b" * 64,
    "best_val_loss": 2.5,
    "corpus_sha256": "c" * 64,
    "numerics": {"cpu_isa": "portable", "device": "cpu", "torch_version": "2.13.0+cpu", "cpu_model": "X"},
}


def verify(*args, cwd=REPO):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run(
        [sys.executable, "-m", "gatedrnn.verify", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_keys_a_newer_schema_lacks_are_left_out_of_the_references_config():
    schema = {
        "$defs": {
            "keys": {"lr": {"type": "number"}},
            "train": {"type": "object", "additionalProperties": False,
                      "properties": {"lr": {"$ref": "#/$defs/keys/lr"}}},
        },
        "type": "object",
        "properties": {
            "train": {"$ref": "#/$defs/train"},
            "regimes": {"type": "object", "additionalProperties": {"$ref": "#/$defs/train"}},
            "open": {"type": "object", "properties": {"a": {"type": "number"}}},
        },
    }  # fmt: skip
    config = {
        "train": {"lr": 0.1, "old": 1},
        "regimes": {"fast": {"lr": 1.0, "gone": 2}},
        "open": {"a": 1, "b": 2},  # additional properties allowed: kept
    }
    assert keys_the_schema_lacks(config, schema) == ["train.old", "regimes.fast.gone"]
    assert config == {"train": {"lr": 0.1}, "regimes": {"fast": {"lr": 1.0}}, "open": {"a": 1, "b": 2}}


def test_the_committed_references_config_is_one_this_checkout_runs(tmp_path):
    """Issue #52: on a fresh clone `python -m gatedrnn.verify` failed at its first snakemake
    call, since the reference's config (collected under an older schema) held
    `protocol.confirm.regimes`, a key the schema no longer allows."""
    import yaml

    manifest = json.loads((REPO / "reference" / "manifest.json").read_text())
    dropped: list[str] = []
    config = merged_config(manifest["config"], dropped)
    assert all(path.count(".") >= 1 for path in dropped)  # keys inside sections, never a section
    configfile = tmp_path / "config.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False))
    # the first call verify makes, dry: the config passes the workflow's schema and checks
    run_snakemake(tmp_path / "run", "-n", "data/corpus.json", configfile=configfile)


def test_same_bits_are_bit_identical():
    assert compare(RECORD, dict(RECORD), []).lines == ["bit-identical to the reference"]


def test_another_corpus_is_named_first():
    here = RECORD | {"weights_sha256": "d" * 64, "corpus_sha256": "e" * 64}
    verdict = compare(RECORD, here, [])
    assert not verdict.identical
    assert verdict.lines[0].startswith("first difference: the final weights")
    assert "another corpus" in verdict.lines[-1]


def test_same_pin_other_bits_blame_the_cpu():
    here = RECORD | {"history_sha256": "f" * 64, "numerics": RECORD["numerics"] | {"cpu_model": "Y"}}
    verdict = compare(RECORD, here, [])
    assert verdict.lines[0] == "first difference: the validation history (the weights agree)"
    assert "this CPU's kernels differ" in verdict.lines[-1]
    assert "Y here, X in the reference" in verdict.lines[-1]


def test_native_and_gpu_compare_within_the_seed_spread():
    for unpinned in ({"cpu_isa": "native"}, {"device": "cuda"}):
        changed = {"weights_sha256": "d" * 64, "best_val_loss": 2.55}
        changed["numerics"] = RECORD["numerics"] | unpinned
        here = RECORD | changed
        within = compare(RECORD, here, [2.45, 2.5, 2.6])
        assert within.identical and not within.bits_expected
        assert "bits are not expected to match; the best loss is within" in within.lines[-1]
        outside = compare(RECORD, here | {"best_val_loss": 2.8}, [2.45, 2.5, 2.6])
        assert not outside.identical and "OUTSIDE" in outside.lines[-1]


def test_a_reference_without_hashes_says_how_to_get_them():
    message = missing_bits("default/rnn_budget325_s0", {"cpu_s": 1.0})
    assert "lacks weights_sha256, history_sha256, numerics" in message
    assert "python -m gatedrnn.reference collect" in message


def test_seed_spread_is_the_models_seeds_under_its_regime():
    jobs = {
        "default/lstm_w24_s0": {"best_val_loss": 2.0},
        "default/lstm_w24_s1": {"best_val_loss": 2.2},
        "default/gru_w24_s0": {"best_val_loss": 1.0},
        "forget_bias_1/lstm_w24_s0": {"best_val_loss": 3.0},
    }
    assert seed_spread({"training_jobs": jobs}, "default/lstm_w24_s1") == [2.0, 2.2]


def test_a_reference_collected_without_hashes_says_so(tmp_path):
    """The committed reference with its hashes taken out (as one collected before
    numerics.cpu_isa): verify says what it lacks before training anything."""
    reference = tmp_path / "reference"
    reference.mkdir()
    manifest = json.loads((REPO / "reference/manifest.json").read_text())
    for job in manifest["training_jobs"].values():
        for key in ("weights_sha256", "history_sha256", "numerics"):
            job.pop(key, None)
    (reference / "manifest.json").write_text(json.dumps(manifest))
    proc = verify("--directory", str(REPO), "--reference", str(reference))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "cannot verify: the reference lacks weights_sha256" in proc.stderr


def test_the_committed_reference_records_what_verify_compares():
    """Every model of the committed reference carries its weights' and history's sha256
    and the numerics it was trained under (the reference is trained under the pin)."""
    manifest = json.loads((REPO / "reference/manifest.json").read_text())
    lacking = [missing_bits(name, job) for name, job in sorted(manifest["training_jobs"].items())]
    assert manifest["training_jobs"] and not any(lacking), next(filter(None, lacking))


@pytest.mark.workflow
def test_verify_end_to_end_at_smoke_size(tmp_path):
    workdir = tmp_path / "run"
    targets = [f"results/models/default/lstm_w24_s{seed}/summary.json" for seed in (0, 1)]
    targets.append("results/tables/matched_widths.csv")  # collect takes a stage's tables
    # the shell asks for other kernels; the config's numerics.cpu_isa (the default) wins
    shell = {"MKL_CBWR": "AVX512", "ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"}
    run_snakemake(workdir, "--cores", "1", *targets, env=shell)
    reference = tmp_path / "reference"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    collect = [sys.executable, "-m", "gatedrnn.reference", "collect", "--stage", "smoke"]
    collect += ["--results", "results", "--out", str(reference)]
    collect += ["--configfile", str(REPO / "config" / "config.yaml"), str(SMOKE_CONFIG)]
    subprocess.run(collect, cwd=workdir, env=env, check=True, capture_output=True)
    manifest = json.loads((reference / "manifest.json").read_text())
    record = manifest["training_jobs"]["default/lstm_w24_s0"]
    assert record["numerics"]["cpu_isa"] == numerics.DEFAULT and len(record["weights_sha256"]) == 64
    assert record["numerics"]["torch_cpu_capability"] == "AVX2"
    assert record["numerics"]["environment"]["MKL_CBWR"] == "AVX2,STRICT"
    assert record["numerics"]["mkl_vendor_shim"], "the job ran with MKL's vendor check answered"

    # verify works in a directory of its own: the run's own is refused, untouched (issue #53)
    before = {p: p.stat().st_mtime_ns for p in workdir.rglob("*") if p.is_file()}
    mine = verify("--reference", str(reference), "--directory", str(workdir))
    assert mine.returncode == 2 and "holds files verify did not make" in mine.stderr, mine.stderr
    assert {p: p.stat().st_mtime_ns for p in workdir.rglob("*") if p.is_file()} == before
    own = tmp_path / "verify"
    same = verify("--reference", str(reference), "--directory", str(own))
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.splitlines()[0] == f"verify works in {own} (its own: nothing outside it is written)"
    assert "on this machine" in same.stdout.splitlines()[1]  # how long, said beforehand
    assert same.stdout.strip().endswith("bit-identical to the reference")

    native = verify("--reference", str(reference), "--directory", str(own), "--cpu-isa", "native")
    assert "numerics.cpu_isa native" in native.stdout
    assert "bits are not expected to match (native numerics or a GPU)" in native.stdout
    if "bit-identical" not in native.stdout:  # a CPU whose native kernels are the pin's would match
        assert "native numerics" in native.stdout and "bits are not expected to match" in native.stdout

    # the full-size record of the fingerprint file works on any model the workflow trained
    fingerprint_file = tmp_path / "fingerprint.json"
    committed = REPO / "tests" / "data" / f"numerics_fingerprint_{numerics.DEFAULT}.json"
    fingerprint_file.write_text(committed.read_text())
    model_dir = str(workdir / "results" / "models" / "default" / "lstm_w24_s0")
    recorded = verify("fingerprint", "--file", str(fingerprint_file), "--full-size", model_dir)
    assert recorded.returncode == 0 and "recorded default/lstm_w24_s0" in recorded.stdout
    again = verify("fingerprint", "--file", str(fingerprint_file), "--full-size", model_dir, "--record-cpu")
    assert again.returncode == 0 and "bit-identical to the reference" in again.stdout
    assert "already listed" in again.stdout

    name = min(manifest["training_jobs"], key=lambda n: manifest["training_jobs"][n]["cpu_s"])
    manifest["training_jobs"][name]["weights_sha256"] = "0" * 64
    (reference / "manifest.json").write_text(json.dumps(manifest))
    changed = verify("--reference", str(reference), "--directory", str(own))
    assert changed.returncode == 1
    assert "first difference: the final weights" in changed.stdout
    assert "this CPU's kernels differ" in changed.stdout
    assert Path(own / "results" / "verify" / "config.yaml").exists()
