"""Issue #53, "nothing wrong passes quietly, round two": each case as the probe ran it.

Config and command-line cases run the real ``snakemake`` (dry runs, or a run stopped
before any job); rule and tool cases call the package or the command directly on
small files. Every refusal is one message naming the key, file or argument and the
fix, with no Python traceback.
"""

from __future__ import annotations

import json
import shlex
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


def test_a_pin_whose_shim_cannot_be_built_is_refused_before_any_job(tmp_path, fault_ledger):
    """numerics.cpu_isa portable_avx2 builds MKL's vendor shim when the Snakefile is parsed:
    a machine without a working C compiler gets one line naming the way out, and no job runs."""
    name = fault_ledger.tried("numerics.cpu_isa portable_avx2 without a working C compiler")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "CC": "false"}
    proc = run_snakemake(
        tmp_path / "run", "--cores", "1", "data/corpus.txt", configfile=write_config(tmp_path / "c.yaml"),
        check=False, timeout=120, env=env,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    no_traceback(output)
    assert proc.returncode != 0 and "could not build MKL's vendor shim" in output
    assert "numerics.cpu_isa: portable" in output
    assert not (tmp_path / "run" / "data").exists() and not list((tmp_path / "cache").rglob("*.so"))
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
    (tables / "gru_gates.csv").write_text("model,seed,gate\n")  # a header alone: other columns
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


# ------------------------------------------------------------------ tables and records


@pytest.fixture(scope="module")
def default_plan():
    """The plan of what the committed reference holds: the default config at the
    reference's grid seeds, without the questions it predates (G8)."""
    from gatedrnn.plan import Plan

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    made_with = json.loads((REPO / "reference" / "manifest.json").read_text())["config"]
    config["grid"]["seeds"] = made_with["grid"]["seeds"]
    for question, settings in config["open_questions"].items():
        if question not in made_with["open_questions"]:
            settings["enabled"] = False
    return Plan.from_config(config)


def reference_tables(tmp_path: Path) -> Path:
    """The reference's tables where a run keeps them (results/tables/)."""
    shutil.copytree(REPO / "reference" / "tables", tmp_path / "results" / "tables")
    return tmp_path


def read_claims_tables(base: Path, plan):
    """What the claims rule reads (workflow/scripts/claims.py): every table the ledger
    names, checked against what the plan says each holds."""
    from gatedrnn.claims import read_tables
    from gatedrnn.plan.table_rows import table_rows

    needed = plan.claims_tables(
        str(REPO / "workflow/resources/published.yaml"), str(REPO / "workflow/resources/new_findings.yaml")
    )
    return read_tables(needed, base, rows=table_rows(plan))


def test_the_reference_tables_hold_what_the_plan_says(tmp_path, default_plan):
    tables = read_claims_tables(reference_tables(tmp_path), default_plan)
    seeds = json.loads((REPO / "reference" / "manifest.json").read_text())["config"]["grid"]["seeds"]
    assert len(tables["results/tables/lstm_gates.csv"]) == 4 * len(seeds)  # the LSTM's gates, every seed


def test_a_table_that_lost_a_seeds_rows_is_refused(tmp_path, default_plan, fault_ledger):
    """lstm_gates.csv cut at a line boundary so that a seed's rows are gone: the ledger
    judged every C2 claim on the seeds left, exit 0, no warning."""
    name = fault_ledger.tried("lstm_gates.csv cut at a line boundary (a seed's rows gone)")
    base = reference_tables(tmp_path)
    path = base / "results/tables/lstm_gates.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if ",2," not in line))
    with pytest.raises(ValueError) as refusal:
        read_claims_tables(base, default_plan)
    message = str(refusal.value)
    assert f"table {path} lacks every row of seed 2" in message and "delete it and rerun" in message
    fault_ledger.rejected(name)


@pytest.mark.parametrize(
    "table, cut, fragment",
    [
        ("lstm_gates.csv", "mid-line", "ends mid-line"),
        ("gru_gates.csv", "gate", "lacks every row of gate reset"),
        ("forget_bias_sweep.csv", "regime", "lacks every row of regime forget_bias_3"),
        ("gru_vs_lstm.csv", "column", "lacks the column(s) seed_2"),
        ("val_loss_curves.csv", "model", "lacks every row of model rnn_budget325"),
        (
            "unit_half_lives.csv",
            "one row",
            "lacks 1 row(s) of the {rows} expected (first: model lstm_w325, seed 1)",
        ),
    ],
)
def test_a_damaged_table_is_named(tmp_path, default_plan, table, cut, fragment, fault_ledger):
    """A cut mid-line ended in a pandas KeyError traceback; other losses were trusted."""
    import pandas as pd

    name = fault_ledger.tried(f"{table}: {cut}")
    base = reference_tables(tmp_path)
    path = base / "results/tables" / table
    frame = pd.read_csv(path)
    if cut == "mid-line":
        path.write_bytes(path.read_bytes()[:-25])
    elif cut == "gate":
        frame[frame["gate"] != "reset"].to_csv(path, index=False)
    elif cut == "regime":
        frame[frame["regime"] != "forget_bias_3"].to_csv(path, index=False)
    elif cut == "column":
        frame.drop(columns="seed_2").to_csv(path, index=False)
    elif cut == "model":
        frame[frame["model"] != "rnn_budget325"].to_csv(path, index=False)
    else:
        frame[(frame["seed"] != 1) | (frame["model"] != "lstm_w325")].to_csv(path, index=False)
    with pytest.raises(ValueError) as refusal:
        read_claims_tables(base, default_plan)
    fragment = fragment.format(rows=len(frame))  # the intact table's rows are the plan's
    assert str(path) in str(refusal.value) and fragment in str(refusal.value), str(refusal.value)
    fault_ledger.rejected(name)


def fake_run(tmp_path: Path) -> Path:
    """results/models/default/lstm_w24_s0 with a summary that names its run."""
    model_dir = tmp_path / "results/models/default/lstm_w24_s0"
    model_dir.mkdir(parents=True)
    summary = {"regime": "default", "model": "lstm_w24", "seed": 0, "cell": "lstm", "width_token": "w24",
               "width": 24, "vocab_size": 100, "diverged": False,
               "train_config": {"embed_dim": 16, "layers": 1, "readout_norm": "layernorm",
                                "steps": 40}}  # fmt: skip
    (model_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    return model_dir


def run_logged_main(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    """``body`` (the body of a rule script's main) under gatedrnn.scripting.run_logged, as a
    rule runs it: what reaches the console."""
    script = tmp_path / "rule_script.py"
    script.write_text(
        "from gatedrnn.scripting import run_logged\n"
        f"def main(log):\n    {body}\n"
        f"run_logged({str(tmp_path / 'rule.log')!r}, main)\n"
    )
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)


def test_a_corrupted_model_read_by_the_gates_rule_is_one_line(tmp_path, fault_ledger):
    """The gates rule on a corrupted model.pt printed the full traceback twice."""
    name = fault_ledger.tried("corrupted model.pt read by the gates rule")
    model_dir = fake_run(tmp_path)
    (model_dir / "model.pt").write_bytes(b"PK\x03\x04 not a zip archive")
    proc = run_logged_main(
        tmp_path, f"from gatedrnn.train.loop import load_model; load_model({str(model_dir)!r})"
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith(f"ERROR: {model_dir / 'model.pt'} cannot be read"), proc.stderr
    assert "delete it and rerun the workflow to retrain that model" in proc.stderr
    no_traceback(proc.stderr + (tmp_path / "rule.log").read_text())
    fault_ledger.rejected(name)


def test_a_truncated_summary_is_named_with_the_fix(tmp_path, fault_ledger):
    """A truncated summary.json gave "Expecting property name enclosed in double quotes:
    line 15 column 1", naming neither the file nor the fix."""
    name = fault_ledger.tried("truncated summary.json (gates rule, estimate)")
    model_dir = fake_run(tmp_path)
    summary = model_dir / "summary.json"
    summary.write_text(summary.read_text()[:120])
    proc = run_logged_main(
        tmp_path, f"from gatedrnn.io.files import read_json; read_json({str(summary)!r}, 'training summary')"
    )
    assert proc.returncode == 1 and f"ERROR: training summary {summary} cannot be read" in proc.stderr
    assert "delete it and rerun the workflow" in proc.stderr
    # estimate reads every summary beside a benchmark
    from gatedrnn.estimate.costs import benchmark_costs

    bench = tmp_path / "results/benchmarks/train/default/lstm_w24_s0.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text("s\tcpu_time\n12.0\t11.0\n")
    with pytest.raises(ValueError, match=r"training summary .*summary\.json cannot be read .*delete it"):
        benchmark_costs(tmp_path / "results")
    fault_ledger.rejected(name)


# ------------------------------------------------------------- where a run writes


def test_a_file_where_a_results_folder_belongs_is_refused_before_any_job(tmp_path, fault_ledger):
    """results/gates being a file: 18 frames of Snakemake's traceback, after the model trained."""
    name = fault_ledger.tried("results/gates is a file")
    workdir = tmp_path / "run"
    (workdir / "results").mkdir(parents=True)
    (workdir / "results" / "gates").write_text("")
    proc = run_snakemake(workdir, "--cores", "1", "data/corpus.txt",
                         configfile=write_config(tmp_path / "c.yaml"), check=False, timeout=120)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "results/gates is a file, where the run writes a folder: move it away" in output, output[-3000:]
    assert output.count("results/gates is a file") == 1
    assert not (workdir / "data").exists()  # no job ran
    no_traceback(output)
    fault_ledger.rejected(name)


def read_only_mounts_work() -> bool:
    remount = "mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp"
    probe = subprocess.run(["unshare", "-m", "sh", "-c", remount], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(shutil.which("unshare") is None or not read_only_mounts_work(),
                    reason="needs a private mount namespace (unshare -m) for a read-only folder")  # fmt: skip
def test_a_read_only_data_folder_is_refused_before_any_job(tmp_path, fault_ledger):
    """A read-only data/: 40 frames ending in OSError: [Errno 30] Read-only file system."""
    name = fault_ledger.tried("read-only data/")
    workdir = tmp_path / "run"
    (workdir / "data").mkdir(parents=True)
    command = shlex.join(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
         "--configfile", str(write_config(tmp_path / "c.yaml")), "--cores", "1", "data/corpus.txt"]
    )  # fmt: skip
    data = workdir / "data"
    remount = f"mount --bind {data} {data} && mount -o remount,bind,ro {data}"
    proc = subprocess.run(["unshare", "-m", "sh", "-c", f"{remount} && {command}"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"{Path('data')}/ is on a read-only file system, and the run writes into it" in output, output[
        -3000:
    ]
    no_traceback(output)
    fault_ledger.rejected(name)


def test_place_problems_names_each_place_once(tmp_path):
    from gatedrnn.plan.places import place_problems

    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "models").write_text("")
    problems = place_problems(["results/models/a", "results/models/b", "results/tables", "data"], tmp_path)
    fix = "is a file, where the run writes a folder: move it away (or delete it) and rerun"
    assert problems == [f"{tmp_path / 'results/models'} {fix}"]
