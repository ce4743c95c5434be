"""gatedrnn.estimate: the projected CPU and wall time of a run, before it runs."""

from __future__ import annotations

import json
import math
import re

import pytest

from gatedrnn.estimate import (
    Cost,
    Shape,
    TrainJob,
    benchmark_costs,
    cost_jobs,
    evaluations,
    makespan,
    planned_train_jobs,
)

DRY_RUN = """
rule corpus:
    output: data/corpus.txt, data/corpus.json
    jobid: 1

rule train:
    input: data/corpus.txt, data/corpus.json
    output: results/models/default/lstm_w24_s0/model.pt
    jobid: 2
    wildcards: regime=default, cell=lstm, width=w24, seed=0
    threads: 1

localrule train:
    input: data/corpus.txt, data/corpus.json, results/models/default/gru_budget24_s1/summary.json
    wildcards: regime=steps_x4, cell=gru, width=budget24, seed=1

rule gates:
    wildcards: regime=default, cell=lstm, width=w24, seed=0
"""

SHAPE = Shape("lstm", 24, 1, 8, 32, 16, 100, "adam", 16, "layernorm")


def job(name: str, seconds: float, after: str | None = None) -> TrainJob:
    regime, run = name.split("/")
    model, seed = run.rsplit("_s", 1)
    out = TrainJob(regime, model, int(seed), SHAPE, steps=10, evaluations=2, after=after)
    out.seconds = seconds
    return out


def test_the_dry_run_gives_every_train_job_and_nothing_else():
    jobs = planned_train_jobs(DRY_RUN)
    assert [(j["regime"], j["cell"], j["width"], j["seed"]) for j in jobs] == [
        ("default", "lstm", "w24", "0"),
        ("steps_x4", "gru", "budget24", "1"),
    ]
    assert jobs[1]["inputs"][-1] == "results/models/default/gru_budget24_s1/summary.json"


@pytest.mark.parametrize(
    "steps, every, start, expected",
    [(800, 50, 0, 17), (40, 10, 0, 5), (45, 10, 0, 6), (3200, 50, 800, 48), (160, 10, 40, 12)],
)
def test_validations_are_counted_as_the_loop_does(steps, every, start, expected):
    # step 0 (fresh runs only), every multiple of eval_every, and the last step
    assert evaluations(steps, every, start) == expected


def test_the_schedule_places_the_longest_first_and_waits_for_a_prefix():
    jobs = [job("a/x_s0", 10), job("a/y_s0", 6), job("a/z_s0", 4), job("a/w_s0", 3)]
    assert makespan(jobs, 1) == 23
    assert makespan(jobs, 2) == 13  # {10, 3} and {6, 4}
    chained = [job("short/x_s0", 5), job("long/x_s0", 5, after="short/x_s0"), job("a/y_s0", 1)]
    assert makespan(chained, 2) == 10  # the long run starts when its prefix ends


def test_costs_come_from_benchmarks_of_the_same_shape_else_calibration(tmp_path, monkeypatch):
    results = tmp_path / "results"
    model = results / "models/default/lstm_w24_s0"
    model.mkdir(parents=True)
    cfg = {"layers": 1, "batch_size": 8, "seq_len": 32, "embed_dim": 16, "optimizer": "adam"}
    cfg |= {"val_windows": 16, "steps": 40, "readout_norm": "layernorm", "vocabulary": "printable"}
    summary = {"cell": "lstm", "width": 24, "vocab_size": 100, "train_config": cfg, "resumed_from_step": None}
    (model / "summary.json").write_text(json.dumps(summary))
    bench = results / "benchmarks/train/default"
    bench.mkdir(parents=True)
    (bench / "lstm_w24_s0.tsv").write_text("s\th:m:s\tmax_rss\tcpu_time\n9.0\t0:00:09\t300\t7.0\n")
    known = benchmark_costs(results)
    assert known[SHAPE].step == pytest.approx((7.0 - 3.0) / 40) and known[SHAPE].source == "benchmark"
    # a long run that started from a shorter run's state at step 30 trained 10 steps in that time
    (model / "summary.json").write_text(json.dumps(summary | {"prefix_from": {"step": 30}}))
    assert benchmark_costs(results)[SHAPE].step == pytest.approx((7.0 - 3.0) / 10)
    (model / "summary.json").write_text(json.dumps(summary))

    calibrated = []
    monkeypatch.setattr(
        "gatedrnn.estimate.costs.calibrate",
        lambda shape: calibrated.append(shape) or Cost(0.5, 1.0, "calibration"),
    )
    other = Shape("gru", 27, 1, 8, 32, 16, 100, "adam", 16, "layernorm")
    jobs = [TrainJob("default", "lstm_w24", 1, SHAPE, 40, 5)]
    jobs += [TrainJob("default", "gru_budget24", seed, other, 40, 5) for seed in (0, 1)]
    cost_jobs(jobs, known, log=lambda _: None)
    assert calibrated == [other]  # once per shape, never for a benchmarked one
    assert jobs[0].seconds == pytest.approx(3.0 + 40 * 0.1) and jobs[0].source == "benchmark"
    assert jobs[1].seconds == pytest.approx(3.0 + 40 * 0.5 + 5 * 1.0) and not math.isnan(jobs[2].seconds)


def test_a_calibration_under_other_kernels_than_the_runs_is_refused(monkeypatch):
    """The pinned kernels cost a training 1.8 to 4x the CPU's own (bench/README.md), so a
    calibration must run under the run's numerics; in a process pinned otherwise it is
    refused, naming the library, before anything is timed."""
    from gatedrnn.numerics import NumericsMismatch

    monkeypatch.setenv("MKL_CBWR", "AUTO")  # whatever this process runs under, not portable
    calibrated = []
    monkeypatch.setattr("gatedrnn.estimate.costs.calibrate", lambda shape: calibrated.append(shape))
    jobs = [TrainJob("default", "lstm_w24", 0, SHAPE, 40, 5)]
    with pytest.raises(NumericsMismatch, match="MKL_CBWR='AUTO', not 'COMPATIBLE,STRICT'"):
        cost_jobs(jobs, {}, log=lambda _: None, cpu_isa="portable")
    assert calibrated == []


def test_bad_arguments_are_refused_naming_the_fix(tmp_path, capsys):
    """``--configfile`` takes every word after it, as snakemake's does: a target written
    after it is refused as a missing config file; so are no cores and a directory that
    is not there, all before the dry run or the pin."""
    from gatedrnn.estimate.__main__ import main

    config = tmp_path / "config.yaml"
    config.write_text("{}\n")
    assert main(["--cores", "2", "--configfile", str(config), "stage_questions"]) == 2
    err = capsys.readouterr().err
    assert "no config file stage_questions" in err and "put the targets before it" in err
    assert main(["--cores", "0", "stage_questions"]) == 2
    assert "--cores 0: give the --cores you will give snakemake (1 or more)" in capsys.readouterr().err
    assert main(["--cores", "2", "--directory", str(tmp_path / "nowhere")]) == 2
    assert f"--directory {tmp_path / 'nowhere'} is not a directory" in capsys.readouterr().err


def test_the_config_is_the_working_directorys_as_for_snakemake(tmp_path):
    """Snakemake reads the Snakefile's ``configfile:`` from the working directory (a
    deployed workflow's own config); the estimate does too, and falls back to the
    workflow's where the directory has none, which it then gives the dry run."""
    from conftest import REPO

    from gatedrnn.estimate.planned import config_files, load_config

    assert config_files(["extra.yaml"], tmp_path) == [str(REPO / "config/config.yaml"), "extra.yaml"]
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text("numerics: {cpu_isa: native}\n")
    assert config_files([], tmp_path) == [str(tmp_path / "config/config.yaml")]
    assert load_config([], tmp_path)["numerics"] == {"cpu_isa": "native"}


def test_every_missing_text_is_named_at_once(tmp_path):
    """The corpus and each generated dataset the planned jobs read, in one list; a text
    already made is not named."""
    from conftest import SMOKE_CONFIG

    from gatedrnn.estimate import missing_texts

    planned = [{"regime": regime} for regime in ("default", "long_memory", "steps_x4")]
    texts = missing_texts(planned, [str(SMOKE_CONFIG)], tmp_path)
    assert texts == ["data/corpus.txt", "data/long_memory/corpus.txt"]
    (tmp_path / "data").mkdir()
    (tmp_path / "data/corpus.json").write_text("{}")
    assert missing_texts(planned, [str(SMOKE_CONFIG)], tmp_path) == ["data/long_memory/corpus.txt"]


TARGETS = ("results/tables/gru_vs_lstm.csv", "results/tables/long_memory.csv")


@pytest.mark.workflow
def test_estimate_makes_the_texts_it_needs_on_a_fresh_directory(tmp_path):
    """`python -m gatedrnn.estimate` in an empty working directory: it makes every text
    the widths need (one snakemake call) and projects every planned training job."""
    import subprocess
    import sys

    from conftest import SMOKE_CONFIG

    proc = subprocess.run(
        [sys.executable, "-m", "gatedrnn.estimate", "--cores", "2", "--configfile", str(SMOKE_CONFIG),
         "--directory", str(tmp_path), *TARGETS],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "making the texts whose vocabulary sets the widths: data/corpus.txt data/long_memory/corpus.txt"
        in (proc.stderr)
    )
    assert (tmp_path / "data/corpus.json").exists() and (tmp_path / "data/long_memory/corpus.json").exists()
    # it times the shapes under the training's kernels, pinned before torch started
    pinned = "numerics portable_avx2: PyTorch AVX2, MKL AVX2,STRICT, oneDNN AVX"
    assert f"calibrating under {pinned}" in proc.stdout
    from conftest import run_snakemake

    dry = run_snakemake(tmp_path, "-n", *TARGETS)
    trained = int(re.search(r"^train\s+(\d+)", dry.stdout, re.M).group(1))
    assert f"\n{trained} training jobs to run," in f"\n{proc.stdout}", proc.stdout


def test_a_calibration_serves_every_optimizer_is_kept_and_says_one_line_per_model(tmp_path, monkeypatch):
    """Issue 52: the estimate printed `calibrating lstm width 325 (3 steps) ...` 12 times and
    took 4 minutes. Shapes that differ in the optimizer alone share a calibration, a model's
    shapes are reported in one line, and the next estimate here times nothing again."""
    from dataclasses import replace

    from gatedrnn.estimate import format_range

    calibrated = []
    monkeypatch.setattr(
        "gatedrnn.estimate.costs.calibrate",
        lambda shape: calibrated.append(shape) or Cost(0.5, 1.0, "calibration"),
    )
    sgd, windows = replace(SHAPE, optimizer="sgd"), replace(SHAPE, batch_size=16)
    jobs = [TrainJob(regime, "lstm_w24", 0, shape, 40, 5)
            for regime, shape in (("default", SHAPE), ("sgd", sgd), ("b16", windows))]  # fmt: skip
    kept, lines = tmp_path / ".snakemake/gatedrnn/calibrations.json", []
    cost_jobs(jobs, {}, log=lines.append, keep=kept)
    assert calibrated == [SHAPE, windows]
    assert jobs[0].seconds == jobs[1].seconds and jobs[0].source == "calibration"
    assert [line for line in lines if "lstm width 24" in line] == [lines[-1]] and "2 shape(s)" in lines[-1]
    calibrated.clear()
    again = [TrainJob("default", "lstm_w24", 1, shape, 80, 9) for shape in (SHAPE, sgd, windows)]
    cost_jobs(again, {}, log=lines.append, keep=kept)
    assert calibrated == [] and "2 shapes calibrated before on this machine" in lines[-1]
    assert again[0].seconds == pytest.approx(3.0 + 80 * 0.5 + 9 * 1.0)
    # verify's projection is a range: the projection, and the same on a busy machine
    assert format_range(600) == "10.0 to 15.0 min" and format_range(3000) == "50.0 min to 1.25 h"


def test_round_two_is_projected_at_its_bound_the_costliest_points_first():
    from gatedrnn.estimate.planned import capped_round_two

    def job(regime, model, seconds):
        return TrainJob(regime, model, 0, SHAPE, steps=800, evaluations=9, seconds=seconds)

    jobs = [
        job(r, m, s) for r, s in (("a", 1.0), ("b", 4.0), ("c", 2.0), ("d", 4.0)) for m in ("lstm", "gru")
    ]
    config = {"protocol": {"round_two": {"seeds": [0], "max_trainings": 5}}}  # 2 points of 2 models
    assert [(j.regime, j.model) for j in capped_round_two(jobs, config)] == [
        ("b", "lstm"), ("b", "gru"), ("d", "lstm"), ("d", "gru")
    ]  # fmt: skip
    config["protocol"]["round_two"]["max_trainings"] = 100
    assert capped_round_two(jobs, config) == jobs


def test_a_calibration_is_carried_to_other_widths_by_the_flop_count_of_a_step():
    """Issue 52: the cost of a fused cell's step is its matrix multiplies. Per character
    forward, a layer of ``blocks`` gate blocks costs 2 * blocks * H * (d_in + H) and the
    read-out 2 * H * V; a step is 3 forwards of batch * seq_len characters, a validation
    pass one forward of val_windows * seq_len (written out here, not the code's own)."""
    from dataclasses import replace

    from gatedrnn.estimate.scaling import family, nearest, scaled

    lstm48 = replace(SHAPE, width=48, vocab_size=80, val_windows=32, readout_norm="none")
    step_24 = 3 * 8 * 32 * (2 * 4 * 24 * (16 + 24) + 2 * 24 * 100)
    step_48 = 3 * 8 * 32 * (2 * 4 * 48 * (16 + 48) + 2 * 48 * 80)
    eval_24 = 16 * 32 * (2 * 4 * 24 * (16 + 24) + 2 * 24 * 100)
    eval_48 = 32 * 32 * (2 * 4 * 48 * (16 + 48) + 2 * 48 * 80)
    expected = (0.5 * step_48 / step_24, 2.0 * eval_48 / eval_24)
    assert scaled(0.5, 2.0, SHAPE, lstm48) == pytest.approx(expected)
    # a second layer reads the first's H outputs; the GRU has 3 gate blocks, the RNN 1
    two = replace(SHAPE, cell="gru", layers=2)
    one = replace(two, layers=1)
    per_char = {1: 2 * 3 * 24 * (16 + 24) + 2 * 24 * 100, 2: 2 * 3 * 24 * (16 + 24 + 24 + 24) + 2 * 24 * 100}
    assert scaled(1.0, 1.0, one, two) == pytest.approx((per_char[2] / per_char[1],) * 2)
    # a window of half the characters is half the recurrence's steps, and half the read-outs
    assert scaled(0.5, 2.0, SHAPE, replace(SHAPE, seq_len=16)) == pytest.approx((0.25, 1.0))
    # within a family only: another batch size, layers or a Python-loop cell are timed on their own
    assert family(lstm48) == family(replace(SHAPE, optimizer="sgd")) == family(replace(SHAPE, seq_len=64))
    assert family(lstm48) != family(replace(SHAPE, batch_size=16))
    assert family(two) != family(one) and family(replace(SHAPE, cell="cho_gru")) is None
    assert nearest(replace(SHAPE, width=40), [SHAPE, lstm48, replace(SHAPE, width=400)]) == lstm48
    # carried at most 3x up or down in step FLOPs: T 128 is 4x the FLOPs of T 32
    assert nearest(replace(SHAPE, seq_len=96), [SHAPE]) == SHAPE
    assert nearest(replace(SHAPE, seq_len=128), [SHAPE]) is None


def test_a_family_is_timed_at_its_steps_weighted_median_and_again_beyond_reach():
    """Windows of 16, 32, 64 and 128 characters (step FLOPs 1, 2, 4, 8 x): 32 trains the most
    steps of those in reach (16, 32, 64), 128 is 4x beyond 32 and so is timed on its own."""
    from dataclasses import replace

    from gatedrnn.estimate.scaling import anchors

    t16, t32, t64, t128 = (replace(SHAPE, seq_len=n) for n in (16, 32, 64, 128))
    assert anchors({t16: 800, t32: 800, t64: 800, t128: 100}, []) == [t32, t128]
    assert anchors({t16: 3000, t32: 800, t64: 800}, []) == [t16, t64]  # 64 is 4x 16
    assert anchors({t16: 800, t128: 800}, [t64]) == [t16]  # 128 within reach of a kept 64


def test_a_fresh_estimate_calibrates_one_shape_per_fused_cell_and_windows(tmp_path, monkeypatch):
    """The default config's 40 shapes took 40 calibrations (minutes on 2 cores). Now a fused
    cell (nn.RNN/GRU/LSTM) is timed once per (layers, batch_size), at the shape
    training the most steps, and every other width of it carried by FLOP count; a cell
    stepped by a Python loop is timed shape by shape. The kept file holds what was timed."""
    from dataclasses import replace

    from gatedrnn.estimate.scaling import scaled

    calibrated = []
    monkeypatch.setattr(
        "gatedrnn.estimate.costs.calibrate",
        lambda shape: calibrated.append(shape) or Cost(0.5, 1.0, "calibration"),
    )
    lstm, gru = replace(SHAPE, width=325), replace(SHAPE, cell="gru", width=381)
    shapes = [lstm, replace(lstm, width=128), replace(lstm, width=512), replace(lstm, optimizer="sgd"),
              replace(lstm, vocab_size=65, readout_norm="none"), replace(lstm, batch_size=16),
              replace(lstm, layers=2), replace(lstm, seq_len=64), gru, replace(gru, width=325),
              replace(gru, batch_size=16),
              replace(gru, cell="cho_gru"), replace(gru, cell="cho_gru", width=325),
              replace(gru, cell="gru_noreset")]  # fmt: skip
    # the LSTM at 325 trains the most steps of its family, the GRU at 381 of its own
    main = {"lstm": 325}  # else 381
    jobs = [TrainJob("r", f"m{i}", 0, shape, 800 if shape.width == main.get(shape.cell, 381) else 400, 17)
            for i, shape in enumerate(shapes)]  # fmt: skip
    kept, lines = tmp_path / "calibrations.json", []
    cost_jobs(jobs, {}, log=lines.append, keep=kept)
    timed = [lstm, replace(lstm, width=128), replace(lstm, batch_size=16), replace(lstm, layers=2), gru,
             replace(gru, batch_size=16),
             replace(gru, cell="cho_gru"), replace(gru, cell="cho_gru", width=325),
             replace(gru, cell="gru_noreset")]  # fmt: skip
    assert sorted(map(repr, calibrated)) == sorted(map(repr, timed))  # 9 of the 13 optimizer-free shapes
    assert len(next(iter(json.loads(kept.read_text()).values()))) == len(timed)
    assert "4 more shapes of the same cells and batches carried from those by FLOPs" in lines[-1]
    step, evaluation = scaled(0.5, 1.0, lstm, shapes[2])  # width 512: 2.4x the FLOPs of 325
    assert jobs[2].seconds == pytest.approx(3.0 + 400 * step + 17 * evaluation)
    assert jobs[3].seconds == jobs[0].seconds and jobs[1].source == "calibration"
    # the next estimate here times nothing, and carries the same costs from the kept file
    calibrated.clear()
    again = [TrainJob("r", job.model, 0, job.shape, job.steps, 17) for job in jobs]
    cost_jobs(again, {}, log=lines.append, keep=kept)
    assert calibrated == [] and [j.seconds for j in again] == pytest.approx([j.seconds for j in jobs])


def _default_config() -> dict:
    import yaml
    from conftest import REPO

    return yaml.safe_load((REPO / "config/config.yaml").read_text())


def _largest_confirmation_by_hand(config: dict) -> tuple[int, int]:
    """The trainings round two's confirmation can ask for at most, counted from the
    config: (round one's, round two's). Any regime of either round may be on the front of
    both or near it; each is confirmed as the sweep's two models at every seed of
    protocol.confirm.seeds it has not trained at yet."""
    sweep, protocol = config["regime_sweep"], config["protocol"]
    train = config["train"]
    rates = sum(len(lrs) for lrs in sweep["optimizers"].values())
    # train's own windows are an optimizer point here (adam at train.lr for train.steps)
    assert train["lr"] in sweep["optimizers"][train["optimizer"]] and train["steps"] in sweep["steps"]
    assert train["batch_size"] in sweep["batch_sizes"] and train["seq_len"] in sweep["seq_lens"]
    on_corpus = rates * len(sweep["steps"]) + len(sweep["batch_sizes"]) * len(sweep["seq_lens"]) - 1
    on_small = rates * len(protocol["small_corpus"]["steps"])
    assert sweep["seeds"] == protocol["small_corpus"]["seeds"]
    confirm = set(protocol["confirm"]["seeds"])
    first = (on_corpus + on_small) * 2 * len(confirm - set(sweep["seeds"]))
    round_two = protocol["round_two"]
    points = round_two["max_trainings"] // (2 * len(round_two["seeds"]))  # each point: 2 models x seeds
    return first, points * 2 * len(confirm - set(round_two["seeds"]))


def test_round_two_confirmation_is_projected_at_its_bound(tmp_path):
    """Issue 48: once round two's table exists (a checkpoint), rule
    protocol_round_two_confirmation trains the regimes of either round on the front of both
    or near it at protocol.confirm.seeds, which no dry run lists before. The estimate
    projects the most it can train: every round-one regime, and the costliest points
    round two may plan within max_trainings, at the seeds they lack."""
    from gatedrnn.estimate.planned import capped_round_two_confirmation, confirmation_after_round_two
    from gatedrnn.plan import PROTOCOL_ROUND_TWO, PROTOCOL_ROUND_TWO_PLAN, Plan

    config = _default_config()
    first, second = _largest_confirmation_by_hand(config)
    assert (first, second) == (104, 160)  # 26 round-one regimes, 40 points; 2 models at seeds 1, 2
    plan = Plan.from_config(config)
    entries = confirmation_after_round_two([], [], tmp_path, [])
    assert {e["seed"] for e in entries} == {"1", "2"}  # seed 0: trained by both rounds
    order = list(dict.fromkeys(e["regime"] for e in entries if e["regime"] not in plan.regimes))
    jobs = [TrainJob(e["regime"], f"{e['cell']}_{e['width']}", int(e["seed"]), SHAPE, 800, 17,
                     seconds=float(order.index(e["regime"]) if e["regime"] in order else 1))
            for e in entries]  # fmt: skip
    capped = capped_round_two_confirmation(jobs, config)
    assert len(capped) == first + second
    assert sum(j.regime in plan.regimes for j in capped) == first
    assert {j.regime for j in capped if j.regime not in plan.regimes} == set(order[-40:])  # the costliest
    # a run the dry run lists, or one already made, is not projected again
    listed = [{"regime": "default", "cell": "lstm", "width": "w325", "seed": "1"}]
    made = tmp_path / "results/models/sgd_lr1_steps800_small/gru_budget325_s2/summary.json"
    made.parent.mkdir(parents=True)
    made.write_text("{}")
    assert len(confirmation_after_round_two([], [], tmp_path, listed)) == len(entries) - 2
    # only targets past round two's front reach it
    assert len(confirmation_after_round_two(["stage_protocol"], [], tmp_path, [])) == len(entries) - 1
    assert confirmation_after_round_two(["results/tables/protocol_round_two.csv"], [], tmp_path, []) == []
    # round two planned: its own points (here two), no others
    (tmp_path / PROTOCOL_ROUND_TWO_PLAN).parent.mkdir(parents=True)
    (tmp_path / PROTOCOL_ROUND_TWO_PLAN).write_text(f"regime\n{order[0]}\n{order[5]}\n")
    planned = confirmation_after_round_two([], [], tmp_path, [])
    assert {e["regime"] for e in planned} - set(plan.regimes) == {order[0], order[5]}
    assert len(planned) == first - 1 + 2 * 2 * 2
    (tmp_path / PROTOCOL_ROUND_TWO).write_text("regime\n")  # its checkpoint ran: the dry run lists them
    assert confirmation_after_round_two([], [], tmp_path, []) == []


def test_round_two_confirmation_trains_the_shorter_run_a_confirmed_run_continues(tmp_path):
    """A 3200-step regime continues its 800-step sibling's run at the same seed (prefix
    sharing): confirming steps_x4 at seed 1 trains default at seed 1 first where it is not
    made, even when default is no regime of round one."""
    from gatedrnn.estimate.planned import confirmation_after_round_two

    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("regime_sweep: {steps: [3200], batch_sizes: [16], seq_lens: [64]}\n")
    entries = confirmation_after_round_two([], [str(overlay)], tmp_path, [])
    assert [(e["cell"], e["seed"]) for e in entries if e["regime"] == "default"] == [
        ("lstm", "1"), ("lstm", "2"), ("gru", "1"), ("gru", "2")
    ]  # fmt: skip
    listed = [{"regime": "default", "cell": "lstm", "width": "w325", "seed": s} for s in ("1", "2")]
    assert len(confirmation_after_round_two([], [str(overlay)], tmp_path, listed)) == len(entries) - 2


def test_the_estimate_prints_round_two_and_its_confirmation_apart_and_writes_them_as_bounds(
    tmp_path, monkeypatch, capsys
):
    """`python -m gatedrnn.estimate` before round one has run: the dry run's jobs, then
    round two, then its confirmation, each its own section at its bound, and both in
    --json under upper_bounds, apart from the dry run's jobs (collect compares those
    alone with what ran)."""
    import subprocess

    import gatedrnn.estimate.__main__ as estimate

    for text in (
        "corpus",
        "small_corpus/corpus",
        "small_corpus_550000/corpus",
        "small_corpus_2200000/corpus",
    ):
        (tmp_path / f"data/{text}.json").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f"data/{text}.json").write_text(json.dumps({"vocab_size": 65, "characters": 1}))
    monkeypatch.setattr(estimate, "pin_this_process", lambda cpu_isa: None)
    monkeypatch.setattr(
        estimate.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 0, DRY_RUN, "")
    )

    def cost(jobs, known, **kw):  # seconds: the steps trained, one per step
        for job in jobs:
            job.seconds, job.source = float(job.steps), "calibration"

    monkeypatch.setattr(estimate, "cost_jobs", cost)
    out = tmp_path / "projected.json"
    assert estimate.main(["--cores", "2", "--directory", str(tmp_path), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    first, second = _largest_confirmation_by_hand(_default_config())
    note = printed[printed.index("and after round two's front") :].splitlines()
    assert "the most it can train" in note[0] and "at protocol.confirm.seeds [0, 1, 2]" in note[0]
    assert note[1].startswith(f"{first + second} training jobs to run")
    bound = _default_config()["protocol"]["round_two"]["max_trainings"]
    assert printed.startswith("2 training jobs to run") and f"\n{bound} training jobs to run" in printed
    from gatedrnn.reference.manifest import projection_against_actual

    projected = json.loads(out.read_text())
    ran = {"steps_x4/lstm_w325_s1": {"cpu_s": 10.0}}  # a bound's job that ran: no projection of it
    against = projection_against_actual(projected, ran)
    assert (against["jobs_projected"], against["jobs_run"]) == (2, 0)
    bounds = projected.pop("upper_bounds")
    assert projected == {"default/lstm_w24_s0": 800.0, "steps_x4/gru_budget24_s1": 2400.0}
    assert len(bounds["round_two"]) == bound  # round two at max_trainings
    assert len(bounds["round_two_confirmation"]) == first + second
    assert bounds["round_two_confirmation"]["steps_x4/lstm_w325_s1"] == 2400  # continues default's 800
