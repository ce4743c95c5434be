"""The benchmarks (``python -m bench ...``) run at toy size and print what bench/README.md quotes.

No timing is asserted: only that every entry point runs and prints its table.
"""

from __future__ import annotations

import ast
import json
import math
import re
import subprocess
import sys

import pytest
from conftest import DEFAULT_CONFIG, REPO

from gatedrnn import numerics

# Toy size: tiny models, one step, one round, one thread.
TOY = ("--steps", "1", "--rounds", "1", "--threads", "1")


def run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=600, cwd=REPO, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def table_row(out: str, name: str) -> list[str]:
    rows = [line for line in out.splitlines() if line.startswith(name)]
    assert rows, f"no row for {name!r} in:\n{out}"
    return rows[0].split()


@pytest.fixture
def grid(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    import bench.grid

    return bench.grid


def test_the_grid_widths_are_computed_from_the_vocabulary_and_the_config(grid, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(chr(32 + i) for i in range(83)) + "\n", encoding="utf-8")  # 84 characters
    found = grid.bench_vocab(corpus)
    assert found.size == 84 and str(corpus) in found.source
    # the study's grid at the default corpus's V: what bench/README.md's tables were measured on
    assert grid.grid_models(84) == [("lstm", 325), ("gru", 381), ("gru", 325), ("rnn", 686)]
    assert grid.reference_and_gru(84) == [("lstm", 325), ("gru", 381)]
    # another V, other budget-matched widths (the LayerNorm head's 2H included): nothing is typed in
    assert grid.grid_models(52) == [("lstm", 325), ("gru", 382), ("gru", 325), ("rnn", 693)]
    assert grid.reference_width() == grid.load_config(DEFAULT_CONFIG)["grid"]["reference_width"]


def test_without_a_corpus_the_vocabulary_is_the_synthetic_corpus(grid, tmp_path):
    from gatedrnn.io.synthetic import synthetic_prose

    spec = grid.load_config()["corpus"]
    found = grid.bench_vocab(tmp_path / "absent.txt")
    assert found.size == len(set(synthetic_prose(spec["synthetic_chars"], spec["synthetic_seed"])))
    assert "synthetic" in found.source
    assert grid.given_or_found(30).size == 30


def test_the_science_does_not_import_the_benchmarks():
    for path in (REPO / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "bench" or n.startswith("bench.") for n in names), path


# In fresh processes each model costs several interpreter starts (torch's import each
# time): one model there, two in process.
@pytest.mark.parametrize(
    "mode, models",
    [([], ["gru"]), (["--in-process"], ["gru", "cho_gru"])],
    ids=["fresh processes", "in process"],
)
def test_train_step_bench_prints_a_ratio_per_model(mode, models):
    listed = ",".join(f"{cell}:8" for cell in models)
    # four steps, not TOY's one: a marginal step is a (1 + n)-step run minus a 1-step run,
    # and one step at width 8 (fractions of a millisecond) once came out at -0.023x
    steps = ("--steps", "4", "--rounds", "1", "--threads", "1")
    out = run("-m", "bench", "train-step", "--models", listed, "--share-steps", "0", *steps, *mode)
    assert ("fresh process" in out) != bool(mode)
    for model in (f"{cell} w8" for cell in models):
        row = table_row(out, model)
        ratio_cpu = float(row[row.index("|", 8) + 2])  # train_model / bare, CPU time
        assert math.isfinite(ratio_cpu) and ratio_cpu > 0
    assert re.search(r"gru w8: train_model -?\d+, bare \d+, fwd\+bwd \d+", out)


def test_train_step_share_table_times_a_real_run():
    out = run(
        "-m", "bench", "train-step", "--models", "rnn:8", "--share-models", "rnn:8", "--share-steps", "2",
        "--in-process", "--vocab", "30", *TOY,
    )  # fmt: skip
    assert "V 30 (--vocab)" in out
    assert "# Non-training share: a real train_model run of 2 steps" in out
    assert len([line for line in out.splitlines() if line.startswith("rnn w8 ")]) == 2  # both tables


def test_eval_bench_compares_evaluate_with_a_bare_forward():
    out = run("-m", "bench", "eval", "--models", "gru:8", *TOY)
    row = table_row(out, "gru w8")
    assert row[-1].endswith("%")
    assert "a job evaluates" in out


def test_variants_bench_times_and_checks_bytes():
    out = run("-m", "bench", "variants", "--models", "gru:8", "--repro-steps", "1", *TOY)
    assert "# Bit-reproducibility" in out
    for variant in ("baseline", "mkldnn off", "time-major", "adam for-loop", "adam fused"):
        assert f"gru w8     {variant}" in out
    baseline = [line.split() for line in out.splitlines() if line.startswith("gru w8     baseline")]
    assert baseline[-1][-3:-1] == ["True", "True"]  # the baseline against itself


def test_numerics_bench_times_each_setting_beside_native():
    out = run("-m", "bench", "numerics", "--models", "lstm:8", "--settings", "portable,mkl=AVX2+STRICT", *TOY)
    native = table_row(out, "lstm w8    native")
    assert native[4:6] == ["1.000", "="]  # native against itself
    portable = table_row(out, "lstm w8    portable")
    assert portable[-2:] == ["AVX2,", "COMPATIBLE,STRICT"]  # what torch and MKL say they run
    one_library = table_row(out, "lstm w8    mkl=AVX2+STRICT")
    # MKL's AVX2 branch is Intel's; elsewhere it runs AUTO (what the workflow refuses for avx2)
    intel = numerics.cpu_vendor() == "GenuineIntel"
    assert one_library[-1] == ("AVX2,STRICT" if intel else "AUTO,STRICT")


def test_numerics_settings_change_one_library_of_a_workflow_setting(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from bench.numerics import setting_environment

    # a candidate pin: portable with MKL on another branch (issue #50)
    changed = setting_environment("portable:mkl=AVX2+STRICT")
    assert changed == numerics.environment_for("portable") | {"MKL_CBWR": "AVX2,STRICT"}
    alone = setting_environment("onednn=AVX")  # one library, the others unset (native)
    onednn = ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")
    assert alone == {name: ("AVX" if name in onednn else None) for name in numerics.VARIABLES}
    with pytest.raises(SystemExit, match="'portable:blas=X'"):
        setting_environment("portable:blas=X")


def test_threads_bench_runs_worker_processes_and_hashes_the_weights():
    out = run(
        "-m", "bench", "threads", "--models", "gru:8", "--steps", "1", "--rounds", "1",
        "--layouts", "1x1,1x1:retain", "--repro-steps", "1",
    )  # fmt: skip
    assert len([line for line in out.splitlines() if line.startswith("gru w8     1 x 1")]) == 2
    assert re.search(
        r"env -: [0-9a-f]{16}, 1 thread\(s\) env retain: [0-9a-f]{16}; rerun of the first: same", out
    )


def test_overhead_bench_reads_a_runs_benchmark_files(tmp_path):
    assert "No benchmark files" in run("-m", "bench", "overhead", "--root", str(tmp_path))
    tsv = tmp_path / "results" / "benchmarks" / "train" / "default" / "lstm_w8_seed0.tsv"
    tsv.parent.mkdir(parents=True)
    tsv.write_text(
        "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
        "10.0\t0:00:10\t300.0\t900.0\t280.0\t290.0\t0.0\t1.0\t95.0\t9.5\n"
    )
    summary = tmp_path / "results" / "models" / "default" / "lstm_w8_seed0" / "summary.json"
    summary.parent.mkdir(parents=True)
    summary.write_text(json.dumps({"wall_seconds": 9.0, "threads": 1}))
    out = run("-m", "bench", "overhead", "--root", str(tmp_path), "--cores", "1")
    assert table_row(out, "default/lstm_w8_seed0")[1:5] == ["10.0", "9.0", "1.0", "10.0%"]


def test_dag_bench_times_snakemake_planning(tmp_path):
    (tmp_path / "Snakefile").write_text(
        'rule all:\n    output:\n        "x.txt",\n    shell:\n        "touch {output}"\n'
    )
    out = run("-m", "bench", "dag", "--rounds", "1", "--root", str(tmp_path))
    assert "jobs in the DAG: 1;" in out
    assert table_row(out, "snakemake -n --nolock")


def test_cell_bench_times_the_fast_path_beside_the_recorded_loop():
    out = run("-m", "bench", "cells", "--threads", "1", "--repeats", "1", "--width", "8")
    for name in ("gru", "cho_gru", "gru_noreset", "cho_gru recorded", "gru_noreset recorded"):
        assert name in out
    assert float(table_row(out, "gru ")[-1]) == 1.0  # nn.GRU against itself


def test_gate_bench_runs_as_a_file_too():
    out = run("bench/bench_gates.py", "--repeats", "1", "--width", "8")
    assert table_row(out, "extract_gates")
    assert "LSTM width 8," in out
