"""The tools that write committed files never write on bad input (issue 31).

``python -m gatedrnn.reference collect --results /nonexistent`` once rewrote
``reference/manifest.json`` and exited 0; ``pages --reference /nonexistent`` deleted
the README's and docs/results.md's generated sections, then raised a traceback. Each
subcommand here gets a nonexistent or wrong-kind path for each path it takes, in a
copy of the checkout's tracked files: it must refuse, naming the argument, with no
traceback, and leave every tracked file's bytes as they were.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from gatedrnn.compare import main as compare_main
from gatedrnn.reference.__main__ import main as reference_main

MISSING, A_FILE, NOT_A_REFERENCE = "/nonexistent", "README.md", "config"

# (argv, the argument the refusal must name); defaults fill every path not named
CASES = [
    (["collect", "--stage", "study", "--results", MISSING], "--results"),
    (["collect", "--stage", "study", "--results", A_FILE], "--results"),
    (["collect", "--stage", "study", "--results", NOT_A_REFERENCE], "--results"),
    (["collect", "--stage", "study", "--results", "reference", "--out", A_FILE], "--out"),
    (["collect", "--stage", "study", "--results", "reference", "--out", NOT_A_REFERENCE], "--out"),
    (["collect", "--stage", "study", "--results", "reference", "--provenance", MISSING], "--provenance"),
    (["collect", "--stage", "study", "--results", "reference", "--provenance", A_FILE], "--provenance"),
    (["collect", "--stage", "study", "--results", "reference", "--configfile", MISSING], "--configfile"),
    (["collect", "--stage", "", "--results", "reference"], "--stage"),
    (
        [
            "collect",
            "--stage",
            "study",
            "--results",
            "reference",
            "--provenance",
            "reference/manifest.json",
            "--projection",
            MISSING,
        ],
        "--projection",
    ),  # fmt: skip
    (["ledger", "--reference", MISSING], "--reference"),
    (["ledger", "--reference", A_FILE], "--reference"),
    (["ledger", "--reference", NOT_A_REFERENCE], "--reference"),
    (["ledger", "--configfile", "reference"], "--configfile"),
    (["scoreboard", "--reference", MISSING], "--reference"),
    (["scoreboard", "--configfile", A_FILE], "--configfile"),
    (["restore", "--reference", MISSING], "--reference"),
    (["restore", "--reference", A_FILE], "--reference"),
    (["restore", "--results", A_FILE], "--results"),
    (["confirm", "--reference", MISSING], "--reference"),
    (["confirm", "--results", MISSING], "--results"),
    (["confirm", "--targets", "--configfile", MISSING], "--configfile"),
    (
        ["collect-another-cpu", "--stage", "questions_depth", "--results", MISSING, "--built-by", "x"],
        "--results",
    ),  # fmt: skip
    (
        [
            "collect-another-cpu",
            "--stage",
            "questions_depth",
            "--results",
            "reference",
            "--out",
            MISSING,
            "--built-by",
            "x",
        ],
        "--out",
    ),  # fmt: skip
    (
        ["collect-another-cpu", "--stage", "questions_depth", "--results", "reference", "--built-by", " "],
        "--built-by",
    ),  # fmt: skip
    (["pages", "--reference", MISSING], "--reference"),
    (["pages", "--reference", A_FILE], "--reference"),
    (["pages", "--reference", NOT_A_REFERENCE], "--reference"),
    (["pages", "--readme", MISSING], "--readme"),
    (["pages", "--readme", "docs"], "--readme"),
    (["pages", "--readme", "LICENSE"], "--readme"),  # a file without the generated blocks
    (["pages", "--scoreboard", MISSING], "--scoreboard"),
    (["pages", "--scoreboard", "LICENSE"], "--scoreboard"),  # a page without the protocol block
    (["pages", "--page", "/nonexistent/results.md"], "--page"),
    (["pages", "--page", "docs"], "--page"),
    (["pages", "--configfile", MISSING], "--configfile"),
]


def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name and (root / name).is_file()]


def hashes(root: Path) -> dict[str, str]:
    """Every file under ``root`` (the copy): a changed, removed or added file shows."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the checkout's tracked files (what a careless command could destroy)."""
    root = tmp_path_factory.mktemp("checkout")
    names = tracked_files(REPO)
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    return root


@pytest.mark.parametrize(("argv", "argument"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_bad_path_is_refused_naming_it_and_writes_nothing(checkout, argv, argument, monkeypatch,
                                                            capsys, fault_ledger):  # fmt: skip
    root = checkout
    name = fault_ledger.tried(f"reference tool: {' '.join(argv)}")
    before = hashes(root)
    monkeypatch.chdir(root)
    code = reference_main(argv)
    err = capsys.readouterr().err
    assert code != 0
    assert err.startswith("ERROR: ") and argument in err and "nothing written" in err, err
    assert hashes(root) == before
    fault_ledger.rejected(name)


def test_collect_from_a_run_without_tables_refuses_and_keeps_the_manifest(checkout, tmp_path, monkeypatch,
                                                                          capsys, fault_ledger):  # fmt: skip
    """An empty results/ (a stage not run yet) once emptied the stage's file list."""
    root = checkout
    name = fault_ledger.tried("reference tool: collect from a results/ whose tables/ is empty")
    (tmp_path / "results" / "tables").mkdir(parents=True)
    before = hashes(root)
    monkeypatch.chdir(root)
    assert reference_main(["collect", "--stage", "study", "--results", str(tmp_path / "results")]) != 0
    assert "--results" in capsys.readouterr().err
    assert hashes(root) == before
    fault_ledger.rejected(name)


def test_a_conflicting_file_refuses_collect_before_it_copies_anything(tmp_path, monkeypatch, fault_ledger):
    """A file another stage collected with other bytes is refused before any file is copied
    (collect used to copy the files sorted before it, then raise, leaving them behind)."""
    name = fault_ledger.tried("reference tool: collect over another stage's file with other bytes")
    out, results = tmp_path / "reference", tmp_path / "results"
    (results / "tables").mkdir(parents=True)
    (results / "tables" / "b.csv").write_text("x\n2\n")
    provenance = tmp_path / "corpus.json"
    provenance.write_text('{"corpus_sha256": "0"}')
    monkeypatch.chdir(REPO)
    argv = ["collect", "--results", str(results), "--out", str(out), "--provenance", str(provenance),
            "--configfile", "config/smoke.yaml"]  # fmt: skip
    assert reference_main([*argv, "--stage", "study"]) == 0
    manifest = (out / "manifest.json").read_bytes()
    (results / "tables" / "a.csv").write_text("x\n9\n")  # new, and sorted before the conflict
    (results / "tables" / "b.csv").write_text("x\n8\n")
    assert reference_main([*argv, "--stage", "regimes"]) == 1
    assert (out / "tables" / "b.csv").read_text() == "x\n2\n"
    assert not (out / "tables" / "a.csv").exists()
    assert (out / "manifest.json").read_bytes() == manifest
    fault_ledger.rejected(name)


@pytest.mark.parametrize("details", ["/nonexistent/values.csv", "docs"])
def test_compare_refuses_a_details_path_it_cannot_write_before_comparing(details, capsys, fault_ledger):
    name = fault_ledger.tried(f"compare --details {details}")
    code = compare_main(["--run", str(REPO / "reference"), "--reference", str(REPO / "reference"),
                         "--details", details])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and "--details" in captured.err
    assert "table" not in captured.out  # refused before any table is compared
    fault_ledger.rejected(name)
