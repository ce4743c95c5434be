"""Issue #53, "nothing wrong passes quietly, round two": each case as the probe ran it.

Config and command-line cases run the real ``snakemake`` (dry runs, or a run stopped
before any job); rule and tool cases call the package or the command directly on
small files. Every refusal is one message naming the key, file or argument and the
fix, with no Python traceback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, run_snakemake
from faults.runs import smoke_config, write_config

from gatedrnn.plan.config_files import config_file_problem, retype_overrides, typed_overrides

SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())


def no_traceback(output: str) -> None:
    assert "Traceback" not in output, output[-3000:]


def deployed(tmp_path: Path, config: dict | None = None) -> Path:
    """A working directory holding its own config/config.yaml (a deployed workflow's)."""
    workdir = tmp_path / "run"
    (workdir / "config").mkdir(parents=True)
    if config is None:
        shutil.copy(REPO / "config" / "config.yaml", workdir / "config" / "config.yaml")
    else:
        (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    return workdir


# ------------------------------------------------------------------ config files


def test_the_documented_config_form_works(tmp_path, fault_ledger):
    """config/README.md's `--config train='{steps: 1600}'`: Snakemake passes the nested
    1600 as the string '1600', which the schema refused."""
    name = fault_ledger.tried("--config train='{steps: 1600}' (config/README.md)")
    assert "--config train='{steps: 1600}'" in (REPO / "config" / "README.md").read_text()
    workdir = deployed(tmp_path)
    proc = run_snakemake(
        workdir, "-n", "results/tables/grad_reach_init.csv", "--config", "train={steps: 1600}",
        configfile=None, check=False, timeout=300,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    fault_ledger.rejected(name)


def test_config_strings_are_read_as_the_schema_wants():
    raw = {
        "train": {"steps": "1600", "lr": "0.5", "forget_bias": "null", "optimizer": "sgd"},
        "grid": {"seeds": ["0", "5"], "models": [{"cell": "gru", "width": "budget"},
                                                 {"cell": "lstm", "width": "24"}]},
        "corpus": {"path": "2024", "sha256": "1" * 64},
    }  # fmt: skip
    typed = typed_overrides(raw, SCHEMA)
    assert typed["train"] == {"steps": 1600, "lr": 0.5, "forget_bias": None, "optimizer": "sgd"}
    assert typed["grid"]["seeds"] == [0, 5]
    assert typed["grid"]["models"] == [{"cell": "gru", "width": "budget"}, {"cell": "lstm", "width": 24}]
    assert typed["corpus"] == {"path": "2024", "sha256": "1" * 64}  # strings the schema takes stay
    config = smoke_config()
    config["train"]["steps"] = "1600"
    retype_overrides(config, {"train": {"steps": "1600"}}, SCHEMA)
    assert config["train"]["steps"] == 1600


def test_a_config_value_still_wrong_is_refused_naming_the_key(tmp_path):
    proc = run_snakemake(
        tmp_path / "run", "-n", "--config", "train={steps: many}",
        configfile=write_config(tmp_path / "c.yaml"),
        check=False, timeout=120,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "On instance['train']['steps']" in output and "'many'" in output


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("train:\n  steps: 5\ntrain:\n  lr: 0.1\n", "train given twice (line 1)"),
        ("grid:\n  reference_width: 24\ngrid:\n  seeds: [0]\n", "grid given twice"),
        ("train:\n  steps: 5\n  steps: 6\n", "steps given twice"),
        ("", "is empty"),
        ("- 1\n- 2\n", "holds a list, not keys at top level"),
        ("train: [unclosed\n", "is not valid YAML"),
    ],
    ids=["two train blocks", "two grid blocks", "a key twice in a block", "empty", "a list", "bad yaml"],
)
def test_a_config_file_given_a_key_twice_is_named(tmp_path, text, fragment):
    path = tmp_path / "my.yaml"
    path.write_text(text)
    problem = config_file_problem(path)
    assert problem and fragment in problem and str(path) in problem


def test_a_users_config_file_with_a_key_twice_is_refused(tmp_path, fault_ledger):
    """Two `train:` blocks in a user's file: the last one won silently; a second `grid:`
    block gave "'reference_width' is a required property" for a file that has it."""
    name = fault_ledger.tried("config file with two grid: blocks")
    config = yaml.safe_dump(smoke_config())
    configfile = tmp_path / "mine.yaml"
    configfile.write_text(config + "grid:\n  seeds: [0]\n")
    proc = run_snakemake(tmp_path / "run", "-n", configfile=configfile, check=False, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-2000:]
    assert f"config file {configfile}: key(s) grid given twice" in output, output[-2000:]
    assert "reference_width" not in output
    no_traceback(output)
    fault_ledger.rejected(name)


def test_an_overlay_with_a_key_twice_is_refused(tmp_path):
    """The second of two files after --configfile (an overlay) is checked too."""
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("train:\n  steps: 80\ntrain:\n  lr: 0.02\n")
    base = write_config(tmp_path / "base.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
         "--directory", str(tmp_path / "run"), "-n", "--configfile", str(base), str(overlay)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-2000:]
    assert f"config file {overlay}: key(s) train given twice" in output, output[-2000:]


def test_cores_0_is_refused(tmp_path, fault_ledger):
    """`snakemake --cores 0` printed "Provided cores: 0" and hung."""
    name = fault_ledger.tried("snakemake --cores 0")
    proc = run_snakemake(
        tmp_path / "run", "--cores", "0", "data/corpus.txt", configfile=write_config(tmp_path / "c.yaml"),
        check=False, timeout=120,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "--cores 0 gives no job a core; give --cores 1 or more" in output
    assert not (tmp_path / "run" / "data").exists()
    fault_ledger.rejected(name)


def fake_corpus(workdir: Path, characters: int = 60000, vocab: int = 52) -> None:
    """data/corpus.txt and corpus.json as the corpus rule writes them (no job run)."""
    (workdir / "data").mkdir(parents=True, exist_ok=True)
    (workdir / "data" / "corpus.txt").write_text("ab\n" * (characters // 3))
    (workdir / "data" / "corpus.json").write_text(
        json.dumps({"source": "synthetic", "characters": characters, "vocab_size": vocab})
    )


@pytest.mark.parametrize(
    "overrides",
    [{"train": {"batch_size": 10**8}}, {"grid": {"reference_width": 2_000_000}}],
    ids=["batch 1e8", "width 2e6"],
)
def test_a_job_too_big_for_memory_is_refused_in_one_message(tmp_path, overrides, fault_ledger):
    """The memory refusal came inside an InputFunctionException with a Traceback block."""
    name = fault_ledger.tried(f"training job too big for memory: {overrides}")
    workdir = tmp_path / "run"
    fake_corpus(workdir)
    width = overrides.get("grid", {}).get("reference_width", 24)
    target = f"results/models/default/lstm_w{width}_s0/summary.json"
    proc = run_snakemake(
        workdir, "--cores", "1", "--", target, configfile=write_config(tmp_path / "c.yaml", overrides),
        check=False, timeout=180,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "is estimated to peak at" in output and "give it more memory" in output, output[-3000:]
    assert "InputFunctionException" not in output
    no_traceback(output)
    fault_ledger.rejected(name)


# ------------------------------------------------------------- reference and compare


def reference_copy(tmp_path: Path, without=()) -> Path:
    copy = tmp_path / "reference"
    shutil.copytree(REPO / "reference", copy)
    for name in without:
        (copy / name).unlink()
    return copy


def test_pages_refuse_a_reference_lacking_what_its_manifest_lists(tmp_path, capsys, fault_ledger):
    """A copy of reference/ without two of its tables rewrote README.md and
    docs/results.md with whole sections gone, and exited 0."""
    from gatedrnn.reference.__main__ import main as reference_main

    name = fault_ledger.tried("reference pages on a copy of reference/ lacking two tables")
    reference = reference_copy(tmp_path, ["tables/lstm_gates.csv", "tables/gru_vs_lstm.csv"])
    page, readme = tmp_path / "results.md", tmp_path / "README.md"
    shutil.copy(REPO / "docs" / "results.md", page)
    shutil.copy(REPO / "README.md", readme)
    before = {p: p.read_bytes() for p in (page, readme, reference / "README.md")}
    code = reference_main(
        ["pages", "--reference", str(reference), "--page", str(page), "--readme", str(readme)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert (
        "lacks 2 of the files its manifest.json lists (tables/gru_vs_lstm.csv, tables/lstm_gates.csv)" in err
    )
    assert "nothing written" in err
    assert {p: p.read_bytes() for p in before} == before
    fault_ledger.rejected(name)


def test_ledger_with_nothing_changed_rewrites_nothing(fault_ledger):
    """`reference ledger` with nothing changed rewrote reference/manifest.json (a new time
    and commit). The command itself on the committed reference:
    tests/test_documented_commands.py::test_pages_and_ledger_regenerate_the_committed_files."""
    from gatedrnn.reference.manifest import derived_unchanged

    name = fault_ledger.tried("reference ledger with nothing changed")
    reference = REPO / "reference"
    recorded = json.loads((reference / "manifest.json").read_text())["stages"]["ledger"]["files"]
    files = {reference / name: (reference / name).read_text() for name in recorded}
    assert derived_unchanged(reference, "ledger", files)
    first = next(iter(files))
    assert not derived_unchanged(reference, "ledger", {**files, first: files[first] + "x"})
    assert not derived_unchanged(reference, "ledger", dict(list(files.items())[1:]))
    fault_ledger.rejected(name)


def test_reference_tools_outside_the_checkout_say_where_to_run(tmp_path, monkeypatch, capsys):
    """Found by the round-two probe: `ledger` run outside the checkout ended in a
    FileNotFoundError traceback for workflow/resources/new_findings.yaml."""
    from gatedrnn.reference.__main__ import main as reference_main

    reference = reference_copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert (
        reference_main(
            ["ledger", "--reference", str(reference), "--configfile", str(REPO / "config/config.yaml")]
        )
        == 2
    )
    assert "run this command from the checkout's root" in capsys.readouterr().err


def test_verify_refuses_a_users_run_as_its_directory(tmp_path, fault_ledger):
    """`python -m gatedrnn.verify` ran in the working directory: it replaced a toy run's
    data/corpus.txt with the real corpus and retrained a model in its results/."""
    name = fault_ledger.tried("python -m gatedrnn.verify in a toy run's directory")
    toy = tmp_path / "toy"
    fake_corpus(toy)
    (toy / "results" / "models").mkdir(parents=True)
    before = {p: p.read_bytes() for p in toy.rglob("*") if p.is_file()}
    proc = subprocess.run([sys.executable, "-m", "gatedrnn.verify", "--directory", str(toy)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--directory {toy} holds files verify did not make (data, results)" in proc.stderr
    no_traceback(proc.stdout + proc.stderr)
    assert {p: p.read_bytes() for p in toy.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in toy.iterdir()) == ["data", "results"]
    fault_ledger.rejected(name)


def test_verify_makes_its_own_directory(tmp_path):
    from gatedrnn.verify.__main__ import DEFAULT_DIRECTORY, MARKER, own_directory

    own_directory(tmp_path / "new")
    own_directory(tmp_path / "new")  # again: it is verify's own
    assert (tmp_path / "new" / MARKER).is_file()
    assert DEFAULT_DIRECTORY == "verify-run" and "/verify-run/" in (REPO / ".gitignore").read_text()


def test_compare_strict_says_why_it_fails(tmp_path, capsys, fault_ledger):
    """The footer read "all 493 identical, 0 differ" and the command exited 1: 30 tables
    not comparable, said nowhere."""
    from gatedrnn.compare import main as compare_main

    name = fault_ledger.tried("compare --strict with tables missing in the run")
    tables = tmp_path / "run" / "tables"
    tables.mkdir(parents=True)
    shutil.copy(REPO / "reference" / "tables" / "gru_vs_lstm.csv", tables)
    (tables / "gru_gates.csv").write_text("model,seed,ga")  # cut short in its header
    (tables / "lstm_gates.csv").write_text("")  # empty: pandas cannot read it
    code = compare_main(["--run", str(tmp_path / "run"), "--reference", str(REPO / "reference"), "--strict"])
    out = capsys.readouterr().out
    total = len(list((REPO / "reference" / "tables").glob("*.csv")))
    assert code == 1
    footer = out.splitlines()[-1]
    assert footer.startswith(f"--strict fails: {total - 3} table(s) missing in run: "), footer
    assert "1 table(s) not comparable: columns differ: gru_gates.csv" in footer
    assert "1 table(s) not comparable: lstm_gates.csv" in footer
    assert "lstm_gates.csv is empty (0 bytes)" in out
    fault_ledger.rejected(name)


def test_estimate_json_into_a_missing_folder_is_refused_first(tmp_path, capsys, fault_ledger):
    """`estimate --json` into a missing folder ended in a traceback after the whole estimate."""
    from gatedrnn.estimate.__main__ import main as estimate_main

    name = fault_ledger.tried("estimate --json into a missing folder")
    target = tmp_path / "nowhere" / "projection.json"
    assert estimate_main(["--cores", "1", "--json", str(target), "--directory", str(tmp_path)]) == 2
    assert f"--json {target}: is in {target.parent}, which does not exist" in capsys.readouterr().err
    fault_ledger.rejected(name)
