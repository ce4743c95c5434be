"""The plan of runs (gatedrnn.plan) without Snakemake: every sweep and question switch,
the refusals, and one dry run that checks the plan against what Snakemake schedules."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO, SMOKE_CONFIG

from gatedrnn.plan import ANY_RUN, Plan, Run, checkpoint_dir, gate_file, model_file, run_files
from gatedrnn.plan.paths import OPEN_QUESTION_TABLES

DEFAULT = yaml.safe_load(DEFAULT_CONFIG.read_text())
SMOKE = yaml.safe_load(SMOKE_CONFIG.read_text())


def plan_of(mutate=None, base=DEFAULT) -> Plan:
    config = copy.deepcopy(base)
    if mutate is not None:
        mutate(config)
    return Plan.from_config(config)


def names(runs) -> set[tuple[str, str]]:
    return {(run.regime, run.name) for run in runs}


def refused(mutate, message, base=DEFAULT):
    with pytest.raises(ValueError) as error:
        plan_of(mutate, base)
    assert message in str(error.value)
    return str(error.value)


# ----------------------------------------------------------------- the default config


def test_default_config_trains_204_runs_and_extracts_134_gates():
    plan = plan_of()
    # grid 4 x 10 seeds; G8's two cifg widths x 10; G2's three widths x 3 models x 3; G1's
    # two noreset widths x 3; G5 3; E3 2 x 3; G3 3 x 3; G4 2 x 3; G6 2 x 3 + 3; G7 3 x 10;
    # the regime sweep's 18 new points x 2 and the small corpus's 6 x 2
    assert len(plan.training_runs) == 40 + 20 + 27 + 6 + 3 + 6 + 9 + 6 + 9 + 30 + 36 + 12 == 204
    assert len(plan.gate_runs) == 134
    assert len(set(plan.training_runs)) == 204  # each run once
    assert set(plan.gate_runs) <= set(plan.training_runs)
    assert len(plan.sweep_points) == 12 + 8  # optimizer points, then windows (3 x 3, one the default)
    # the corpus-size axis: the sweep's 6 optimizer points at 800 steps on the small corpus
    assert len(plan.corpus_size_points) == 6
    assert len(plan.corpus_size_runs) == 12
    # three sweep points reuse regimes (default by both axes); each small-corpus point is a regime
    assert len(plan.regimes) == len(DEFAULT["regimes"]) + 10 + 8 + 6


def test_smoke_config_plan():
    plan = plan_of(base=SMOKE)
    # issue #50: the sweep at one step count and one window pair (it was 45 and 34)
    assert (len(plan.training_runs), len(plan.gate_runs)) == (37, 26)


def test_corpus_size_axis():
    plan = plan_of()
    point = plan.corpus_size_points[0]
    assert point == {"regime": "adam_lr0.0005_steps800_small", "optimizer": "adam", "lr": 0.0005,
                     "steps": 800, "batch_size": 32, "seq_len": 128, "dataset": "small_corpus"}  # fmt: skip
    assert plan.dataset(point["regime"]) == "small_corpus"
    assert plan.corpus(point["regime"])["corpus"] == "data/small_corpus/corpus.txt"
    # trains like the sweep's point on the corpus, on another text: never its prefix
    assert plan.train_config(point["regime"]) == plan.train_config("adam_lr0.0005_steps800")
    assert plan.prefix_regime(point["regime"]) is None
    assert plan.targets["protocol"][1:] == [
        "results/tables/corpus_size.csv",
        "results/tables/protocol_scoreboard.csv",
        "results/tables/protocol_distance.csv",
        "results/tables/protocol_confirmation.csv",
        "results/tables/protocol_front.csv",
        "results/figures/protocol_scoreboard.png",
        "results/tables/protocol_round_two_plan.csv",
        "results/tables/protocol_round_two.csv",
        "results/tables/protocol_round_two_front.csv",
        "results/figures/protocol_round_two_front.png",
    ]
    # the front's regimes and those near it, trained again at every seed of protocol.confirm.seeds
    runs = plan.confirmation_runs(["sgd_lr0.3_steps3200", "default"])
    assert [run.seed for run in runs[:3]] == [0, 1, 2]
    assert {run.regime for run in runs} == {"sgd_lr0.3_steps3200", "default"}
    assert len(runs) == 2 * 2 * 3
    with pytest.raises(ValueError, match="not points of either sweep"):
        plan.confirmation_points(["two_layers"])


def test_protocol_switched_off_trains_nothing_of_its_own():
    def off(config):
        config["protocol"]["enabled"] = False

    plan = plan_of(off)
    assert plan.corpus_size_points == () and plan.corpus_size_runs == ()
    assert plan.targets["protocol"] == []
    assert len(plan.training_runs) == 204 - 12  # less the small corpus's 6 points x 2 models


def test_small_corpus_name_taken_is_refused():
    def clash(config):
        config["regimes"]["sgd_lr1_steps800_small"] = {"optimizer": "sgd"}

    refused(clash, "already uses")


MODEL_OUTPUT = re.compile(r"results/models/([\w.-]+)/(\w+)/model\.pt")


def test_the_plan_is_what_snakemake_schedules(tmp_path):
    """One dry run of the default config: the same training runs, gate jobs and targets."""
    from conftest import run_snakemake
    from test_workflow import job_counts

    proc = run_snakemake(tmp_path, "-n", configfile=DEFAULT_CONFIG)
    text = proc.stdout + proc.stderr
    plan = plan_of()
    assert {(m.group(1), m.group(2)) for m in MODEL_OUTPUT.finditer(text)} == names(plan.training_runs)
    counts = job_counts(text)
    assert counts["train"] == len(plan.training_runs) == 204
    assert counts["gates"] == len(plan.gate_runs)
    for targets in plan.targets.values():
        for target in targets:
            assert target in text


# ----------------------------------------------------------------- names and paths


def test_model_names_follow_the_conventions():
    plan = plan_of()
    assert plan.model_id("gru", "budget") == "gru_budget325"
    assert plan.model_id("lstm", 325) == "lstm_w325"
    assert plan.model_id("gru", "budget", 128) == "gru_budget128"
    assert plan.comparison_ids == {
        "reference_lstm": "lstm_w325",
        "width_matched_gru": "gru_w325",
        "budget_matched_gru": "gru_budget325",
    }
    assert plan.claim_models["budget_matched_rnn"] == "rnn_budget325"
    run = Run("default", "gru_budget325", 2)
    assert run.name == "gru_budget325_s2"
    assert model_file(run, "model.pt") == "results/models/default/gru_budget325_s2/model.pt"
    assert plan.model_dir("default", "gru", "budget", 2) == "results/models/default/gru_budget325_s2"
    assert gate_file(run) == "results/gates/default/gru_budget325_s2.npz"
    assert gate_file(run, "check.json") == "results/gates/default/gru_budget325_s2.check.json"
    assert run_files([run], "gates") == [gate_file(run)]


def test_rule_patterns_are_the_same_names_with_wildcards():
    assert model_file(ANY_RUN, "model.pt") == "results/models/{regime}/{cell}_{width}_s{seed}/model.pt"
    assert gate_file(ANY_RUN) == "results/gates/{regime}/{cell}_{width}_s{seed}.npz"
    wildcards = SimpleNamespace(regime="steps_x4", cell="gru_noreset", width="budget325", seed="1")
    assert checkpoint_dir(Run.of(wildcards)) == "results/checkpoints/steps_x4/gru_noreset_budget325_s1"


def test_grid_and_gate_files_are_model_major():
    plan = plan_of()
    files = plan.grid_files("summary.json", models=plan.comparison)
    seeds = DEFAULT["grid"]["seeds"]
    assert files[: len(seeds) + 1] == [
        *(f"results/models/default/lstm_w325_s{seed}/summary.json" for seed in seeds),
        "results/models/default/gru_budget325_s0/summary.json",
    ]
    assert len(plan.grid_files("history.csv")) == 4 * len(seeds)
    assert plan.gate_files([plan.reference_lstm], suffix="check.json")[0].endswith("lstm_w325_s0.check.json")


def test_wildcard_constraints_match_every_regime_and_no_prefix():
    plan = plan_of()
    pattern = plan.wildcard_constraints["regime"]
    for regime in plan.regimes:
        assert re.fullmatch(pattern, regime)
    assert not re.fullmatch(pattern, "adam_lr0x0005_steps800")  # the dot is escaped
    assert re.fullmatch(plan.wildcard_constraints["width"], "budget325")


def test_the_plan_imports_neither_torch_nor_snakemake():
    code = "import sys, gatedrnn.plan; print(sorted({'torch', 'snakemake'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------ regimes


def test_train_config_applies_a_regimes_overrides_only_to_train_keys():
    plan = plan_of()
    assert plan.train_config("default")["steps"] == 800
    assert plan.train_config("steps_x4")["steps"] == 3200
    assert plan.train_config("forget_bias_3")["forget_bias"] == 3.0
    assert "dataset" not in plan.train_config("long_memory")
    assert plan.train_config("sgd_lr0.3_steps800") == {
        **plan.train_config("default"),
        "optimizer": "sgd",
        "lr": 0.3,
    }
    assert plan.corpus("long_memory")["corpus"] == "data/long_memory/corpus.txt"
    assert plan.corpus("sgd_lr1_steps3200")["corpus"] == "data/corpus.txt"


def test_regime_sweep_reuses_configured_regimes_and_names_the_others():
    plan = plan_of()
    points = [p["regime"] for p in plan.sweep_points]
    assert points[:2] == ["adam_lr0.0005_steps800", "adam_lr0.0005_steps3200"]
    assert "default" in points and "steps_x4" in points  # adam at train.lr, 800 and 3200 steps
    assert {"sgd_lr0.1_steps800", "sgd_lr1_steps3200"} <= set(points)
    assert list(plan.regimes)[: len(DEFAULT["regimes"])] == list(DEFAULT["regimes"])
    assert len(plan.regime_sweep_runs) == 2 * 20
    assert plan.targets["regime_sweep"] == [
        "results/tables/regime_sensitivity.csv",
        "results/figures/regime_sensitivity.png",
    ]
    # a configured regime that trains like a point lends the point its name
    same = plan_of(lambda c: c["regimes"].update(sgd_fast={"optimizer": "sgd", "lr": 0.1}))
    assert "sgd_fast" in [p["regime"] for p in same.sweep_points]
    assert "sgd_lr0.1_steps800" not in same.regimes


def test_the_window_axes_are_regimes_at_the_protocol_s_optimizer_and_reuse_the_default():
    plan = plan_of()
    train = DEFAULT["train"]
    windows = [p for p in plan.sweep_points if (p["batch_size"], p["seq_len"]) != (32, 128)]
    pairs = [(b, n) for b in (16, 32, 64) for n in (64, 128, 256) if (b, n) != (32, 128)]
    assert [(p["batch_size"], p["seq_len"]) for p in windows] == pairs  # crossed, in config order
    assert [p["regime"] for p in windows] == [f"batch{b}_seq{n}" for b, n in pairs]
    assert all(
        (p["optimizer"], p["lr"], p["steps"]) == ("adam", train["lr"], train["steps"]) for p in windows
    )
    # each trains at its windows and the protocol's other keys; only the windows are overrides
    assert plan.regimes["batch64_seq256"] == {"optimizer": "adam", "lr": 0.002, "steps": 800,
                                              "batch_size": 64, "seq_len": 256}  # fmt: skip
    assert plan.regimes["batch16_seq128"] == {
        "optimizer": "adam",
        "lr": 0.002,
        "steps": 800,
        "batch_size": 16,
    }
    assert plan.train_config("batch32_seq64") == {**plan.train_config("default"), "seq_len": 64}
    # the protocol's pair is the default point, listed once, its models the grid's
    assert [p["regime"] for p in plan.sweep_points].count("default") == 1
    runs = {(r.regime, r.name) for r in plan.regime_sweep_runs}
    assert {("default", "lstm_w325_s0"), ("default", "gru_budget325_s0")} <= runs
    assert {("batch64_seq256", "lstm_w325_s0"), ("batch64_seq256", "gru_budget325_s0")} <= runs
    assert plan.prefix_regime("batch16_seq64") is None  # another window shape: never a prefix
    # every window run's probe gates are read (the table's gate columns)
    assert {("batch16_seq64", "gru_budget325_s0")} <= names(plan.gate_runs)


def test_window_axes_at_train_s_windows_add_nothing():
    off = plan_of(lambda c: c["regime_sweep"].update(batch_sizes=[32], seq_lens=[128]))
    assert [p["regime"] for p in off.sweep_points] == [p["regime"] for p in plan_of().sweep_points][:12]
    # one axis alone: the batch sizes at train's window length
    batch = plan_of(lambda c: c["regime_sweep"].update(seq_lens=[128]))
    assert [p["regime"] for p in batch.sweep_points][12:] == ["batch16_seq128", "batch64_seq128"]


def test_window_axes_without_the_default_optimizer_point_still_reuse_the_default():
    plan = plan_of(lambda c: c["regime_sweep"].update(optimizers={"sgd": [0.3]}, steps=[800]))
    assert [p["regime"] for p in plan.sweep_points][:2] == ["sgd_lr0.3_steps800", "batch16_seq64"]
    assert "default" in [p["regime"] for p in plan.sweep_points]


def test_a_window_point_that_does_not_fit_names_its_sweep_key():
    refused(
        lambda c: c["regime_sweep"].update(seq_lens=[32, 10_000]),
        "regime_sweep.seq_lens is 10000: a validation window",
        base=SMOKE,
    )


def test_switching_the_regime_sweep_off():
    on, off = plan_of(), plan_of(lambda c: c["regime_sweep"].update(enabled=False))
    assert off.sweep_points == () and off.regime_sweep_runs == ()
    # the small corpus's points (protocol's switch) stay: the sweep's optimizer points
    small = [point["regime"] for point in off.corpus_size_points]
    assert list(off.regimes) == list(DEFAULT["regimes"]) + small
    assert off.targets["regime_sweep"] == []
    gone = names(on.training_runs) - names(off.training_runs)
    assert {regime for regime, _ in gone} == set(on.regimes) - set(DEFAULT["regimes"]) - set(small)
    assert len(off.training_runs) == 204 - 36 and len(off.gate_runs) == 134 - 36  # 18 points x 2


@pytest.mark.parametrize(
    "mutate",
    [
        # two learning rates that print alike would share a regime (and its models)
        lambda c: c["regime_sweep"]["optimizers"].update(adam=[0.003, 0.0030000001]),
        # a configured regime already holds a point's name but trains differently
        lambda c: c["regimes"].update(sgd_lr1_steps800={"optimizer": "sgd", "lr": 1.0, "layers": 2}),
    ],
)
def test_a_sweep_point_whose_name_is_taken_is_refused(mutate):
    refused(mutate, "regime_sweep: the point")


# ------------------------------------------------------------- the forget-bias sweep


def test_forget_bias_sweep_runs_and_biases():
    plan = plan_of()
    assert plan.forget_biases == {"default": None, "forget_bias_1": 1.0, "forget_bias_3": 3.0}
    assert plan.sweep_files("model.pt")[3] == "results/models/forget_bias_1/lstm_w325_s0/model.pt"
    one = plan_of(lambda c: c["forget_bias_sweep"].update(regimes=["forget_bias_3"], seeds=[4]))
    assert names(one.forget_bias_sweep_runs) == {("forget_bias_3", "lstm_w325_s4")}
    assert ("forget_bias_1", "lstm_w325_s0") not in names(one.training_runs)


def test_forget_bias_sweep_refuses_undefined_and_other_dataset_regimes():
    refused(
        lambda c: c["forget_bias_sweep"].update(regimes=["default", "forget_bias_9"]),
        "forget_bias_sweep.regimes names 'forget_bias_9', which is not under `regimes`",
    )
    refused(
        lambda c: c["forget_bias_sweep"].update(regimes=["long_memory_forget_bias_3"]),
        "which trains on 'long_memory'; the sweep's models train on the corpus",
    )


# ---------------------------------------------------------------- the open questions

# What switching each question off removes from the training runs (the rest stays).
ONLY_NEEDED_BY = {
    "reset_gate": lambda run: run.model.startswith("gru_noreset"),
    "split_by_width": lambda run: run.model[-3:] in ("128", "256", "512"),
    "two_layers": lambda run: run.regime == "two_layers",
    # the regime sweep keeps seed 0 of steps_x4 (adam at train.lr for 3200 steps)
    "longer_training": lambda run: run.regime == "steps_x4" and run.seed != 0,
    "cho_gru": lambda run: run.model.startswith("cho_gru"),
    "long_memory": lambda run: run.regime.startswith("long_memory"),
}


@pytest.mark.parametrize("question", list(ONLY_NEEDED_BY))
def test_switching_one_question_off_leaves_out_its_table_and_its_models(question):
    on = plan_of()
    off = plan_of(lambda c: c["open_questions"][question].update(enabled=False))
    gone = set(on.training_runs) - set(off.training_runs)
    assert gone and gone == {run for run in on.training_runs if ONLY_NEEDED_BY[question](run)}
    assert set(off.training_runs) <= set(on.training_runs)
    table = OPEN_QUESTION_TABLES[question]
    assert table in on.targets["open_questions"] and table not in off.targets["open_questions"]
    assert question not in off.enabled_questions
    assert "results/open_questions.md" in off.targets["open_questions"]
    # the runs are still planned: its table can be asked for by name
    assert off.questions.of(question) == on.questions.of(question)


def test_switching_every_question_off():
    def all_off(config):
        for settings in config["open_questions"].values():
            settings["enabled"] = False

    plan = plan_of(all_off)
    assert plan.targets["open_questions"] == [] and plan.enabled_questions == []
    assert not any(run.model.startswith(("gru_noreset", "cho_gru")) for run in plan.training_runs)
    figures = {t for t in plan_of().targets["open_questions"] if t.endswith(".png")}
    assert figures == {"results/figures/split_by_width.png", "results/figures/longer_training.png"}


def test_question_runs_follow_their_widths_and_seeds():
    plan = plan_of(
        lambda c: (
            c["open_questions"]["reset_gate"].update(widths=["budget", 325], seeds=[0]),
            c["open_questions"]["split_by_width"].update(reference_widths=[128], seeds=[5]),
            c["open_questions"]["cho_gru"].update(widths=[256, "budget"]),
        )
    )
    q = plan.questions
    assert names(q.reset_noreset) == {
        ("default", "gru_noreset_budget325_s0"),
        ("default", "gru_noreset_w325_s0"),
    }
    assert names(q.reset_pinned) == {("default", "gru_budget325_s0")}
    assert [run.name for run in q.split_by_width] == ["lstm_w128_s5", "gru_w128_s5", "gru_budget128_s5"]
    assert q.cho_pairs == {"cho_gru_w256": "gru_w256", "cho_gru_budget325": "gru_budget325"}
    assert [run.model for run in q.two_layers[::3]] == [
        "lstm_w325",
        "gru_budget325",
        "gru_w325",
        "lstm_w325",
        "gru_budget325",
        "gru_w325",
    ]
    assert {run.regime for run in q.two_layers} == {"default", "two_layers"}


def test_long_memory_trains_only_the_lstm_under_a_forget_bias_and_pairs_counterparts():
    q = plan_of().questions
    models = {(run.regime, run.model) for run in q.long_memory}
    assert models == {
        ("long_memory", "lstm_w325"),
        ("long_memory", "gru_budget325"),
        ("long_memory_forget_bias_3", "lstm_w325"),
    }
    assert q.long_memory_counterparts == {
        "long_memory": "default",
        "long_memory_forget_bias_3": "forget_bias_3",
    }
    assert ("forget_bias_3", "lstm_w325_s1") in names(q.long_memory_counterpart_runs)
    assert len(q.long_memory_counterpart_runs) == len(q.long_memory)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (
            lambda c: c["open_questions"]["two_layers"].update(regime="three_layers"),
            "open_questions.two_layers names regime 'three_layers', which is not under `regimes`",
        ),
        (
            lambda c: c["open_questions"]["longer_training"].update(regime="long_memory"),
            "open_questions.longer_training: regime 'long_memory' trains on dataset 'long_memory'; "
            "it must set dataset: default",
        ),
        (
            lambda c: c["open_questions"]["long_memory"].update(regimes=["default"]),
            "it must set dataset: long_memory",
        ),
        (
            lambda c: c["open_questions"]["long_memory"].update(distance=128),
            "open_questions.long_memory.distance is 128",
        ),
    ],
)
def test_an_enabled_question_with_an_unusable_regime_is_refused(mutate, message):
    refused(mutate, message)


def test_a_switched_off_question_may_name_a_regime_the_config_lacks():
    def off(config):
        config["open_questions"]["two_layers"].update(enabled=False, regime="three_layers")
        config["open_questions"]["long_memory"].update(enabled=False, regimes=["gone"], distance=999)

    plan = plan_of(off)
    assert {run.regime for run in plan.questions.two_layers} == {"default", "three_layers"}
    assert plan.questions.long_memory_counterparts == {"gone": None}
    assert "three_layers" not in {run.regime for run in plan.training_runs}


# ------------------------------------------------------------------- grid and claims


def test_grid_widths_and_seeds_shape_the_runs():
    plan = plan_of(
        lambda c: c["grid"].update(reference_width=64, seeds=[7], models=[{"cell": "lstm", "width": 64}])
    )
    assert plan.runs(plan.grid) == (Run("default", "lstm_w64", 7),)
    assert plan.model_id(*plan.budget_matched_gru) == "gru_budget64"
    # D3 and E1 still need their models, grid or not
    assert ("default", "rnn_budget64_s7") in names(plan.training_runs)
    assert ("default", "gru_w64_s7") in names(plan.training_runs)


def test_the_claims_ledger_reads_the_enabled_questions_tables_only():
    published = str(REPO / "workflow" / "resources" / "published.yaml")
    new_findings = str(REPO / "workflow" / "resources" / "new_findings.yaml")
    tables = plan_of().claims_tables(published, new_findings)
    assert "results/tables/gru_gates.csv" in tables and "results/tables/long_memory.csv" in tables
    assert "results/tables/regime_sensitivity.csv" not in tables  # an input of its own
    off = plan_of(lambda c: c["open_questions"]["long_memory"].update(enabled=False))
    assert set(tables) - set(off.claims_tables(published, new_findings)) == {"results/tables/long_memory.csv"}
