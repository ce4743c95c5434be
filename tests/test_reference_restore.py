"""`python -m gatedrnn.reference restore`: a collected stage's tables and figures back
into a run's results/, so that the next part of a stage goes on from them on a machine
without the earlier stages' results/ (a fresh machine), without training the earlier
models again."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, SMOKE_CONFIG, snakemake_cmd

from gatedrnn.plan import PROTOCOL_ROUND_TWO
from gatedrnn.reference.__main__ import main as reference_main
from gatedrnn.reference.restore import restore, stage_files


def a_reference(root: Path, stages: dict[str, dict[str, bytes]]) -> Path:
    """A collected reference folder: each stage's files (relative to results/) and a manifest."""
    root.mkdir()
    listed = {}
    for stage, files in stages.items():
        listed[stage] = {"files": list(files)}
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
    (root / "manifest.json").write_text(json.dumps({"stages": listed, "files": {}}))
    return root


def test_restore_copies_each_stages_files_once_with_one_modification_time(tmp_path):
    reference = a_reference(
        tmp_path / "ref",
        {
            "study": {"tables/a.csv": b"a\n1\n", "figures/a.png": b"png"},
            "protocol": {"tables/a.csv": b"a\n1\n", "tables/front.csv": b"f\n2\n"},
        },
    )
    assert stage_files(reference) == ["tables/a.csv", "figures/a.png", "tables/front.csv"]
    assert stage_files(reference, ["protocol"]) == ["tables/a.csv", "tables/front.csv"]
    results = tmp_path / "results"
    (results / "tables").mkdir(parents=True)
    (results / "tables/a.csv").write_bytes(b"a\n1\n")  # built here, with the collected bytes
    done = restore(reference, results, now=1_000_000.0)
    assert done == {"restored": ["figures/a.png", "tables/front.csv"], "kept": ["tables/a.csv"]}
    for name in stage_files(reference):
        assert (results / name).read_bytes() == (reference / name).read_bytes()
        # one time for all: a restored table is never newer than the table it was built from
        assert os.stat(results / name).st_mtime == 1_000_000.0


def test_restore_refuses_a_file_built_here_with_other_bytes_and_writes_nothing(tmp_path):
    reference = a_reference(tmp_path / "ref", {"protocol": {"tables/a.csv": b"1\n", "tables/b.csv": b"2\n"}})
    results = tmp_path / "results"
    (results / "tables").mkdir(parents=True)
    (results / "tables/b.csv").write_bytes(b"3\n")
    with pytest.raises(ValueError, match=r"b\.csv differs from the collected"):
        restore(reference, results)
    assert sorted(p.name for p in (results / "tables").iterdir()) == ["b.csv"]
    assert (results / "tables/b.csv").read_bytes() == b"3\n"


def test_the_command_refuses_an_unknown_stage_in_one_line(tmp_path, capsys):
    reference = a_reference(tmp_path / "ref", {"study": {"tables/a.csv": b"1\n"}})
    results = tmp_path / "results"
    code = reference_main(
        ["restore", "--reference", str(reference), "--results", str(results), "--stage", "x"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and "\n" not in err
    assert "has no stage x; it has study" in err and "nothing written" in err
    assert not results.exists()
    assert reference_main(["restore", "--reference", str(reference), "--results", str(results)]) == 0
    assert (results / "tables/a.csv").read_bytes() == b"1\n"


@pytest.mark.workflow
def test_a_fresh_machine_goes_on_from_restored_tables_without_training_the_earlier_models(
    smoke_run, tmp_path
):
    """A working directory with the smoke run's corpus files and no results/ (a fresh
    machine), its tables and figures restored from a reference collected from the smoke
    run: Snakemake's plan for round two's table trains none of round one's models nor
    rebuilds its tables; it starts from round two's plan (a checkpoint)."""
    collected = {}
    for path in sorted((smoke_run / "results").glob("*/*")):
        if path.parts[-2] in ("tables", "figures") and path.is_file():
            collected[f"{path.parts[-2]}/{path.name}"] = path.read_bytes()
    reference = a_reference(tmp_path / "ref", {"protocol": collected})
    workdir = tmp_path / "fresh"
    shutil.copytree(smoke_run / "data", workdir / "data")  # copy2: the corpus keeps its older times
    restored = ["restore", "--reference", str(reference), "--results", str(workdir / "results")]
    assert reference_main(restored) == 0

    planned = planned_rules(workdir)
    assert "protocol_round_two_plan" in planned
    earlier = {"train", "gates", "regime_seed_row", "regime_sensitivity", "corpus_size",
               "protocol_scoreboard", "protocol_confirmation", "small_corpus", "corpus"}  # fmt: skip
    assert not planned & earlier, planned

    # a corpus file newer than the restored tables: the earlier models are trained again,
    # as restore's docs warn (build the corpus files first, or restore again)
    later = os.stat(next((workdir / "results" / "tables").glob("*.csv"))).st_mtime + 60
    os.utime(workdir / "data" / "corpus.txt", (later, later))
    assert {"train", "regime_sensitivity"} <= planned_rules(workdir)


def planned_rules(workdir: Path) -> set[str]:
    """The rules of the jobs Snakemake plans for round two's table (a dry run)."""
    overlay = REPO / "tests" / "data" / "smoke_round_two.yaml"
    cmd = snakemake_cmd(workdir, PROTOCOL_ROUND_TWO, "-n", "--cores", "2", configfile=None)
    proc = subprocess.run([*cmd, "--configfile", str(SMOKE_CONFIG), str(overlay)],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    return set(re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):", proc.stdout + proc.stderr, flags=re.M))
