"""Round two of the protocol search (gatedrnn.plan.round_two): its points follow from
round one's front, each axis around each front regime, named so that the name alone
says how it trains; the plan knows every regime a front could ask for."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO

from gatedrnn.plan import (
    PROTOCOL_ROUND_TWO,
    PROTOCOL_ROUND_TWO_FIGURE,
    PROTOCOL_ROUND_TWO_FRONT,
    PROTOCOL_ROUND_TWO_PLAN,
    ConfigError,
    Plan,
)
from gatedrnn.plan.round_two import (
    possible_round_two_points,
    round_one_points,
    round_two_points,
    round_two_trainings,
)

DEFAULT = yaml.safe_load(DEFAULT_CONFIG.read_text())
SMALL, ADAM, FAR = "sgd_lr1_steps800_small", "adam_lr0.0005_steps800", "sgd_lr0.1_steps800"


def config_with(mutate=None) -> dict:
    config = copy.deepcopy(DEFAULT)
    config["protocol"]["round_two"] = {
        "enabled": True,
        "seeds": [0, 1],
        "max_trainings": 10_000,  # the bound has its own tests below
        "lr_factors": [0.5, 2.0],
        "small_corpus_chars": [550000, 2200000],
        "axes": {"clip_norm": [0.25, 1.0, 5.0], "momentum": [0.0], "weight_decay": [0.0001]},
    }
    if mutate is not None:
        mutate(config)
    return config


def front(*rows) -> pd.DataFrame:
    """A protocol_front.csv's regimes and flags: (regime, on_front, near_front)."""
    return pd.DataFrame(rows, columns=["regime", "on_front", "near_front"])


NEAR = "sgd_lr0.3_steps800"
FRONT = front((SMALL, True, False), (ADAM, True, False), (NEAR, False, True), (FAR, False, False))


def test_points_follow_the_front():
    points = round_two_points(FRONT, config_with())
    # only near the front (more seeds decide it, round two's confirmation), or neither
    # on it nor near it: nothing around it
    assert list(dict.fromkeys(points["from_regime"])) == [SMALL, ADAM]
    sgd = points[points["from_regime"] == SMALL].set_index("regime")
    # finer learning rates around the point, on its own corpus
    assert sgd.loc[f"{SMALL}__lr0.5", "lr"] == 0.5 and sgd.loc[f"{SMALL}__lr2", "lr"] == 2.0
    assert sgd.loc[f"{SMALL}__lr2", "dataset"] == "small_corpus"
    # corpus sizes only around a small-corpus point, each its own text
    chars = sgd[sgd["axis"] == "chars"]
    assert list(chars["value"]) == [550000, 2200000]
    assert list(chars["dataset"]) == ["small_corpus_550000", "small_corpus_2200000"]
    # every axis value but the point's own (clip 1.0 is train.clip_norm): skipped
    assert list(sgd.loc[sgd["axis"] == "clip_norm", "clip_norm"]) == [0.25, 5.0]
    assert sgd.loc[f"{SMALL}__momentum0", "momentum"] == 0.0
    assert sgd.loc[f"{SMALL}__weight_decay0.0001", "weight_decay"] == 0.0001
    # the other keys are the front point's own
    assert set(sgd["optimizer"]) == {"sgd"} and set(sgd["steps"]) == {800}
    assert set(sgd.loc[sgd["axis"] != "lr", "lr"]) == {1.0}
    adam = points[points["from_regime"] == ADAM]
    assert "momentum" not in set(adam["axis"]) and "chars" not in set(adam["axis"])  # Adam has no momentum
    # sgd: 2 rates, 2 sizes, 2 clips, momentum, decay; adam: 2 rates, 2 clips, decay
    assert len(points) == len(set(points["regime"])) == 8 + 5
    # pure: the same front gives the same table
    pd.testing.assert_frame_equal(points, round_two_points(FRONT, config_with()))


def test_a_point_round_one_has_is_left_out():
    # sgd 1 x 0.3 on the small corpus is round one's sgd_lr0.3_steps800_small
    factors = config_with(lambda c: c["protocol"]["round_two"].update(lr_factors=[0.3, 0.7]))
    points = round_two_points(front((SMALL, True, False)), factors)
    assert list(points.loc[points["axis"] == "lr", "lr"]) == [0.7]  # 1 x 0.7 is 0.7, not 0.7000000000000001
    # two front regimes whose points train alike: planned once, around the first
    twice = round_two_points(
        front(("sgd_lr0.3_steps800", True, False), (FAR, True, False)),
        config_with(lambda c: c["protocol"]["round_two"].update(lr_factors=[0.5, 1.5])),
    )
    assert list(twice.loc[twice["axis"] == "lr", "regime"]) == [
        "sgd_lr0.3_steps800__lr0.15",
        "sgd_lr0.3_steps800__lr0.45",
        f"{FAR}__lr0.05",  # 0.1 x 1.5 is 0.3 x 0.5
    ]


def test_every_point_a_front_can_ask_for_is_a_regime_the_plan_trains():
    plan = Plan.from_config(config_with())
    points = round_two_points(FRONT, plan.config)
    assert set(points["regime"]) <= set(plan.round_two_regimes)
    assert not set(plan.round_two_regimes) & set(plan.regimes)  # round one's names stay round one's
    for point in points.to_dict("records"):
        trains = plan.train_config(point["regime"])
        assert {
            k: trains[k] for k in ("optimizer", "lr", "steps", "clip_norm", "momentum", "weight_decay")
        } == {k: point[k] for k in ("optimizer", "lr", "steps", "clip_norm", "momentum", "weight_decay")}
        assert plan.dataset(point["regime"]) == point["dataset"]
        assert plan.prefix_regime(point["regime"]) is None  # a shorter sibling may not be planned
    assert plan.corpus(f"{SMALL}__chars550000") == {
        "corpus": "data/small_corpus_550000/corpus.txt",
        "provenance": "data/small_corpus_550000/corpus.json",
    }
    runs = plan.round_two_runs([f"{SMALL}__lr0.5"])
    assert [(r.model, r.seed) for r in runs] == [("lstm_w325", 0), ("lstm_w325", 1), ("gru_budget325", 0),
                                                 ("gru_budget325", 1)]  # fmt: skip
    # the largest round two: every round-one regime on the front
    largest = possible_round_two_points(plan.config)
    everything = front(*((p["regime"], True, False) for p in (*plan.sweep_points, *plan.corpus_size_points)))
    assert [p["regime"] for p in largest] == list(plan.round_two_regimes)
    assert set(round_two_points(everything, plan.config)["regime"]) <= set(plan.round_two_regimes)
    assert plan.targets["protocol"][-4:] == [
        PROTOCOL_ROUND_TWO_PLAN,
        PROTOCOL_ROUND_TWO,
        PROTOCOL_ROUND_TWO_FRONT,
        PROTOCOL_ROUND_TWO_FIGURE,
    ]


def test_the_default_config_plans_round_two():
    plan = Plan.from_config(DEFAULT)
    assert plan.round_two_enabled and plan.targets["protocol"][-4:] == [
        PROTOCOL_ROUND_TWO_PLAN,
        PROTOCOL_ROUND_TWO,
        PROTOCOL_ROUND_TWO_FRONT,
        PROTOCOL_ROUND_TWO_FIGURE,
    ]
    assert all("__" in name for name in plan.round_two_regimes)


@pytest.mark.parametrize("switch", ["round_two", "protocol"])
def test_round_two_switched_off_plans_nothing(switch):
    def off(config):
        (config["protocol"]["round_two"] if switch == "round_two" else config["protocol"])["enabled"] = False

    plan = Plan.from_config(config_with(off))
    assert plan.round_two_regimes == {} and PROTOCOL_ROUND_TWO not in plan.targets["protocol"]
    assert PROTOCOL_ROUND_TWO_FRONT not in plan.targets["protocol"]
    assert PROTOCOL_ROUND_TWO_FIGURE not in plan.targets["protocol"]
    assert round_two_points(FRONT, plan.config).empty


def test_a_front_of_another_config_is_refused():
    with pytest.raises(ValueError, match=r"the front names 'adam_lr9_steps800'.*rerun round one"):
        round_two_points(front(("adam_lr9_steps800", True, False)), config_with())


def test_a_configured_regime_holding_a_round_two_name_is_refused():
    def clash(config):
        config["regimes"]["default__momentum0"] = {"lr": 0.1}

    # default is adam: no momentum point around it; sgd's is taken instead
    def taken(config):
        config["regimes"]["sgd_lr1_steps800__momentum0"] = {"optimizer": "sgd", "lr": 0.1}

    Plan.from_config(config_with(clash))
    with pytest.raises(ValueError, match=r"'sgd_lr1_steps800__momentum0'.*rename that regime"):
        Plan.from_config(config_with(taken))


def test_estimate_projects_the_largest_round_two_until_its_checkpoint_has_run(tmp_path):
    """A dry run stops at round two's checkpoint: `estimate` lists the largest round two
    (every round-one regime on the front) apart, less what is trained already."""
    from gatedrnn.estimate.planned import round_two_after_front
    from gatedrnn.plan import model_file

    plan = Plan.from_config(DEFAULT)
    largest = plan.round_two_runs(plan.round_two_regimes)
    jobs = round_two_after_front([], [], tmp_path)
    assert [(j["regime"], f"{j['cell']}_{j['width']}", int(j["seed"])) for j in jobs] == [
        tuple(r) for r in largest
    ]
    assert len(round_two_after_front(["stage_protocol"], [], tmp_path)) == len(largest)
    assert round_two_after_front(["stage_study"], [], tmp_path) == []  # not a target that reaches it
    trained = tmp_path / model_file(largest[0], "summary.json")
    trained.parent.mkdir(parents=True)
    trained.write_text("{}")
    assert len(round_two_after_front([], [], tmp_path)) == len(largest) - 1
    (tmp_path / PROTOCOL_ROUND_TWO_PLAN).parent.mkdir(parents=True)
    (tmp_path / PROTOCOL_ROUND_TWO_PLAN).write_text("regime\n")  # the checkpoint ran: the dry run lists them
    assert round_two_after_front([], [], tmp_path) == []


def test_round_two_is_bounded_by_max_trainings():
    plan = Plan.from_config(DEFAULT)
    bound = DEFAULT["protocol"]["round_two"]["max_trainings"]
    # a front of two (sgd 1 x 800 on the small corpus, adam 0.0005) fits; one near it adds nothing
    points = round_two_points(front((SMALL, True, False), (ADAM, True, False), (NEAR, False, True)), DEFAULT)
    runs = plan.round_two_runs(points["regime"])
    assert (len(points), len(runs)) == (19, 38) and round_two_trainings(len(points), DEFAULT) == len(runs)
    assert len(runs) <= bound
    # every round-one regime on the front: the largest round two, refused in one line
    everything = front(*((p["regime"], True, False) for p in round_one_points(DEFAULT)))
    raised = copy.deepcopy(DEFAULT)
    raised["protocol"]["round_two"]["max_trainings"] = len(plan.round_two_runs(plan.round_two_regimes))
    largest = len(plan.round_two_runs(round_two_points(everything, raised)["regime"]))
    assert largest > bound
    with pytest.raises(ConfigError) as refused:
        round_two_points(everything, DEFAULT)
    message = str(refused.value)
    assert "\n" not in message
    assert (
        f"protocol.round_two.max_trainings is {bound}, but round one's front asks round two for {largest} "
        in message
    )
    assert "raise protocol.round_two.max_trainings, or trim protocol.round_two.lr_factors or " in message
    # the bound raised to it: planned
    raised["protocol"]["round_two"]["max_trainings"] = largest
    assert round_two_trainings(len(round_two_points(everything, raised)), raised) == largest
    # each point trains both models at every seed: the same front at three seeds is 114 trainings
    seeded = copy.deepcopy(DEFAULT)
    seeded["protocol"]["round_two"].update(seeds=[0, 1, 2], max_trainings=113)
    with pytest.raises(ConfigError, match=r"asks round two for 114 trainings \(19 points around 2 regimes"):
        round_two_points(front((SMALL, True, False), (ADAM, True, False)), seeded)


def test_the_checkpoint_refuses_a_round_too_large_before_it_writes_a_plan(tmp_path, capfd):
    """The rule's script, in process, as Snakemake runs it: one ERROR line, no table."""
    import runpy
    from types import SimpleNamespace

    import torch

    everything = front(*((p["regime"], True, False) for p in round_one_points(DEFAULT)))
    everything.to_csv(tmp_path / "front.csv", index=False)
    table, log = tmp_path / "protocol_round_two_plan.csv", tmp_path / "plan.log"
    config = {
        key: DEFAULT[key] for key in ("train", "regimes", "regime_sweep", "protocol")
    }  # the rule's params
    snakemake = SimpleNamespace(
        input=SimpleNamespace(front=str(tmp_path / "front.csv")),
        output=SimpleNamespace(table=str(table)),
        log=[str(log)],
        params=SimpleNamespace(config=config),
    )
    threads = torch.get_num_threads()
    try:
        with pytest.raises(SystemExit) as exited:
            runpy.run_path(str(REPO / "workflow/scripts/protocol_round_two_plan.py"),
                           init_globals={"snakemake": snakemake})  # fmt: skip
    finally:
        torch.set_num_threads(threads)
    assert exited.value.code == 1 and not table.exists()
    errors = [line for line in capfd.readouterr().err.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and "protocol.round_two.max_trainings is" in errors[0]
    assert "Traceback" not in log.read_text() and errors[0] in log.read_text()
