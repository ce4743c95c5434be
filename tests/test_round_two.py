"""Round two of the protocol search (gatedrnn.plan.round_two): its points follow from
round one's front, each axis around each front regime, with the config's reasons."""

from __future__ import annotations

import pandas as pd

from gatedrnn.plan.round_two import round_two_points

CONFIG = {
    "train": {"clip_norm": 1.0, "momentum": 0.9, "weight_decay": 0.0},
    "protocol": {
        "round_two": {
            "lr_factors": [0.5, 2.0],
            "lr_why": "finer rates",
            "small_corpus_chars": [550000, 2200000],
            "chars_why": "passes over the text",
            "axes": {
                "clip_norm": {"values": [0.25, 1.0, 5.0], "why": "clipping"},
                "momentum": {"values": [0.0], "why": "plain SGD"},
                "weight_decay": {"values": [0.0001], "why": "decay"},
            },
        }
    },
}


def front_row(regime, optimizer, lr, dataset="default", on=True, near=False):
    point = {"steps": 800, "batch_size": 32, "seq_len": 128, "dataset": dataset}
    return {"regime": regime, "optimizer": optimizer, "lr": lr, **point, "on_front": on, "near_front": near}


def test_points_follow_the_front():
    front = pd.DataFrame([
        front_row("sgd_lr1_steps800_small", "sgd", 1.0, "small_corpus"),
        front_row("adam_lr0.0005_steps800", "adam", 0.0005, near=True, on=False),
        front_row("sgd_lr0.1_steps800", "sgd", 0.1, on=False),  # neither on the front nor near: nothing
    ])  # fmt: skip
    points = round_two_points(front, CONFIG)
    assert set(points["from_regime"]) == {"sgd_lr1_steps800_small", "adam_lr0.0005_steps800"}
    sgd = points[points["from_regime"] == "sgd_lr1_steps800_small"].set_index("regime")
    # finer learning rates around the point, on its own corpus
    assert sgd.loc["sgd_lr1_steps800_small__lr0.5", "lr"] == 0.5
    assert sgd.loc["sgd_lr1_steps800_small__lr2", "dataset"] == "small_corpus"
    # corpus sizes only around a small-corpus point; every axis value other than train's
    assert set(sgd.loc[sgd["axis"] == "chars", "small_corpus_chars"]) == {550000, 2200000}
    assert set(sgd.loc[sgd["axis"] == "clip_norm", "value"]) == {0.25, 5.0}
    assert sgd.loc["sgd_lr1_steps800_small__momentum0", "overrides"] == "momentum=0"
    assert sgd.loc["sgd_lr1_steps800_small__weight_decay0.0001", "why"] == "decay"
    adam = points[points["from_regime"] == "adam_lr0.0005_steps800"]
    assert "momentum" not in set(adam["axis"]) and "chars" not in set(adam["axis"])
    assert len(points) == len(set(points["regime"]))
    # pure: the same front gives the same table
    pd.testing.assert_frame_equal(points, round_two_points(front, CONFIG))
