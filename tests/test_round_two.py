"""Round two of the protocol search (gatedrnn.plan.round_two): its points follow from
round one's front, each axis around each front regime, named so that the name alone
says how it trains; the plan knows every regime a front could ask for."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG

from gatedrnn.plan import PROTOCOL_ROUND_TWO, PROTOCOL_ROUND_TWO_PLAN, Plan
from gatedrnn.plan.round_two import possible_round_two_points, round_two_points

DEFAULT = yaml.safe_load(DEFAULT_CONFIG.read_text())
SMALL, ADAM, FAR = "sgd_lr1_steps800_small", "adam_lr0.0005_steps800", "sgd_lr0.1_steps800"


def config_with(mutate=None) -> dict:
    config = copy.deepcopy(DEFAULT)
    config["protocol"]["round_two"] = {
        "enabled": True,
        "seeds": [0, 1],
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


FRONT = front((SMALL, True, False), (ADAM, False, True), (FAR, False, False))


def test_points_follow_the_front():
    points = round_two_points(FRONT, config_with())
    # neither on the front nor near it: nothing around it
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
    assert plan.targets["protocol"][-2:] == [PROTOCOL_ROUND_TWO_PLAN, PROTOCOL_ROUND_TWO]


def test_the_default_config_plans_round_two():
    plan = Plan.from_config(DEFAULT)
    assert plan.round_two_enabled and plan.targets["protocol"][-2:] == [
        PROTOCOL_ROUND_TWO_PLAN,
        PROTOCOL_ROUND_TWO,
    ]
    assert all("__" in name for name in plan.round_two_regimes)


@pytest.mark.parametrize("switch", ["round_two", "protocol"])
def test_round_two_switched_off_plans_nothing(switch):
    def off(config):
        (config["protocol"]["round_two"] if switch == "round_two" else config["protocol"])["enabled"] = False

    plan = Plan.from_config(config_with(off))
    assert plan.round_two_regimes == {} and PROTOCOL_ROUND_TWO not in plan.targets["protocol"]
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
