"""Round two of the protocol search, planned by round one's front.

Round one (the regime sweep, the small corpus, the confirmation) ends in a front of
regimes (:mod:`gatedrnn.claims.front`, ``protocol_front.csv``). Round two trains the
sweep's two models at points around each regime on the front, along the axes of
``protocol.round_two`` (config/config.yaml gives each one's reason). A regime only
*near* the front (seed noise could put it there) is not explored around: whether it
belongs there is a question for more seeds, which round two's confirmation trains it at.

- ``lr_factors``: finer learning rates, the regime's rate times each factor;
- ``small_corpus_chars``: other corpus sizes (the corpus's first characters), around a
  regime on the small corpus;
- ``axes``: a `train` key (``clip_norm``, ``momentum``, ``weight_decay``) set to each
  of its values (``momentum`` only around an SGD regime: Adam has none).

A point is named ``<round-one regime>__<axis><value>`` (``sgd_lr1_steps800_small__lr0.5``),
so its name alone says how it trains: the workflow can train any point that a front
could ask for (:func:`possible_round_two_points`, known before the front is) and
round two trains those its front asks for (:func:`round_two_points`). A point that
trains like a regime of round one (the same `train` keys on the same text) is left
out: round one has it; two points that train alike are planned once, the first.

Its size follows the front (a front of every round-one regime asks for hundreds of
trainings): ``protocol.round_two.max_trainings`` bounds it, and a front that asks for
more is refused when the plan is made, before round two trains anything.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from gatedrnn.plan.regimes import (
    SMALL_CORPUS,
    TRAIN_CONFIG_KEYS,
    WINDOW_KEYS,
    all_regimes,
    corpus_size_points,
    sweep_points,
    train_config_with,
)
from gatedrnn.plan.values import ConfigError

# The `train` keys round two may set, one at a time.
AXES = ("clip_norm", "momentum", "weight_decay")
# Axes that only one optimizer reads.
OPTIMIZER_ONLY = {"momentum": "sgd"}
SEPARATOR = "__"
POINT_KEYS = ("optimizer", "lr", "steps", "batch_size", "seq_len", *AXES)
ROUND_TWO_COLUMNS = ["regime", "from_regime", "axis", "value", "dataset", *POINT_KEYS]
# Each point trains the regime sweep's two models (the reference LSTM, the budget-matched GRU).
MODELS_PER_POINT = 2
BOUND = "protocol.round_two.max_trainings"


def round_two_enabled(config: Mapping) -> bool:
    """Round two runs when the protocol stage does and its own switch is on."""
    protocol = config.get("protocol")
    return bool(protocol and protocol["enabled"] and protocol["round_two"]["enabled"])


def sized_small_corpus(chars: int) -> str:
    """The dataset of the corpus's first ``chars`` characters (a round-two corpus size)."""
    return f"{SMALL_CORPUS}_{chars}"


def value_text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def round_two_name(base: str, axis: str, value) -> str:
    return f"{base}{SEPARATOR}{axis}{value_text(value)}"


def finer_lr(lr: float, factor: float) -> float:
    """``lr * factor`` to 6 significant digits: 1.0 * 0.7 is 0.7, as a config writes it."""
    return float(f"{lr * factor:.6g}")


def round_one_points(config: Mapping) -> list[dict]:
    """Round one's regimes as points: the regime sweep's, then the small corpus's."""
    return sweep_points(config) + corpus_size_points(config)


def points_around(base: Mapping, config: Mapping) -> list[dict]:
    """Every point round two could train around the round-one point ``base``
    (``ROUND_TWO_COLUMNS``), axis by axis in config order; none left out yet."""
    plan, train = config["protocol"]["round_two"], config["train"]
    own = train_config_with(train, base)
    dataset = base.get("dataset", "default")

    def point(axis: str, value, **changes) -> dict:
        found = {"regime": round_two_name(base["regime"], axis, value), "from_regime": base["regime"]}
        found |= {"axis": axis, "value": value, "dataset": dataset}
        return found | {key: own[key] for key in POINT_KEYS} | changes

    points = [point("lr", lr, lr=lr) for lr in (finer_lr(own["lr"], f) for f in plan["lr_factors"])]
    if dataset == SMALL_CORPUS:  # its own size is the small corpus itself
        sizes = [c for c in plan["small_corpus_chars"] if c != config["protocol"]["small_corpus"]["chars"]]
        points += [point("chars", chars, dataset=sized_small_corpus(chars)) for chars in sizes]
    for axis, values in plan["axes"].items():
        if OPTIMIZER_ONLY.get(axis, own["optimizer"]) == own["optimizer"]:
            points += [point(axis, value, **{axis: value}) for value in values]
    return points


def _training(train: Mapping, point: Mapping) -> tuple:
    """What decides a point's models: its `train` keys and its text."""
    keys = train_config_with(train, point)
    return tuple(keys[k] for k in TRAIN_CONFIG_KEYS), point.get("dataset", "default")


def _round_one_trainings(config: Mapping) -> set[tuple]:
    regimes = all_regimes(config, round_one_points(config))
    return {_training(config["train"], overrides) for overrides in regimes.values()}


def possible_round_two_points(config: Mapping) -> list[dict]:
    """Every point any front could ask for (every round-one regime on the front), in
    round one's order; none when round two is off. Refuses a name that a configured
    regime already holds."""
    if not round_two_enabled(config):
        return []
    first = _round_one_trainings(config)
    points = [p for base in round_one_points(config) for p in points_around(base, config)
              if _training(config["train"], p) not in first]  # fmt: skip
    for point in points:
        if point["regime"] in config["regimes"]:
            raise ValueError(
                f"protocol.round_two: the point {point['regime']!r} ({point['axis']} {point['value']} around "
                f"{point['from_regime']!r}) has the name of a regime under `regimes`; rename that regime"
            )
    return points


def front_regimes(front: pd.DataFrame) -> list[str]:
    """The regimes of ``front`` (a ``protocol_front.csv``) on the front, in its order (a
    regime near it is confirmed at more seeds, not explored around: module docstring)."""
    chosen = front[front["on_front"].astype(bool)]
    return list(dict.fromkeys(chosen["regime"]))


def round_two_trainings(points: int, config: Mapping) -> int:
    """The trainings of a round two of ``points`` points: each model at each seed."""
    return points * MODELS_PER_POINT * len(config["protocol"]["round_two"]["seeds"])


def refuse_too_many(points: pd.DataFrame, config: Mapping) -> None:
    """Refuse (ConfigError, one line) a round two of more trainings than ``max_trainings``."""
    bound = config["protocol"]["round_two"]["max_trainings"]
    planned = round_two_trainings(len(points), config)
    if planned > bound:
        around = len(dict.fromkeys(points["from_regime"]))
        seeds = len(config["protocol"]["round_two"]["seeds"])
        raise ConfigError(
            f"{BOUND} is {bound}, but round one's front asks round two for {planned} trainings "
            f"({len(points)} points around {around} regimes, {MODELS_PER_POINT} models at {seeds} "
            f"seed{'s' * (seeds != 1)}); raise {BOUND}, or trim protocol.round_two.lr_factors or "
            "protocol.round_two.axes, and rerun"
        )


def round_two_points(front: pd.DataFrame, config: Mapping) -> pd.DataFrame:
    """The points round two trains (``ROUND_TWO_COLUMNS``): around every regime of
    ``front`` on the front, in the front's order. Refuses a front regime
    that is not a round-one regime of ``config`` (a front from another config), and a
    round of more trainings than ``protocol.round_two.max_trainings``."""
    by_name = {point["regime"]: point for point in round_one_points(config)}
    bases = front_regimes(front) if round_two_enabled(config) else []
    if unknown := [regime for regime in bases if regime not in by_name]:
        raise ValueError(
            f"the front names {', '.join(map(repr, unknown))}, not a regime of the regime sweep or the small "
            "corpus under this config: the front is another config's; rerun round one (stage_protocol)"
        )
    seen = _round_one_trainings(config)
    rows = []
    for point in (p for regime in bases for p in points_around(by_name[regime], config)):
        training = _training(config["train"], point)
        if training not in seen:
            seen.add(training)
            rows.append(point)
    points = pd.DataFrame(rows, columns=ROUND_TWO_COLUMNS)
    refuse_too_many(points, config)
    return points


def round_two_overrides(point: Mapping, train: Mapping) -> dict:
    """A point as a regime (overrides of `train`, and its dataset): as the sweep's."""
    overrides = {key: point[key] for key in ("optimizer", "lr", "steps")}
    overrides |= {key: point[key] for key in WINDOW_KEYS if point[key] != train[key]}
    if point["axis"] in AXES:
        overrides[point["axis"]] = point["value"]
    if point["dataset"] != "default":
        overrides["dataset"] = point["dataset"]
    return overrides


def round_two_datasets(config: Mapping) -> list[str]:
    """The corpus sizes round two may train on, as datasets."""
    if not round_two_enabled(config):
        return []
    return [sized_small_corpus(chars) for chars in config["protocol"]["round_two"]["small_corpus_chars"]]
