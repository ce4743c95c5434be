"""Round two of the protocol search, planned by round one's front.

Round one (the regime sweep, the small corpus, the confirmation) ends in a front of
regimes (:mod:`gatedrnn.claims.front`). Round two trains points around each regime on
the front or near it, along the axes ``protocol.round_two`` names, each with a one-line
reason in the config:

- ``lr_factors``: finer learning rates, the front point's rate times each factor;
- ``small_corpus_chars``: other corpus sizes, for a front point on the small corpus;
- ``axes``: a `train` key (``clip_norm``, ``momentum``, ``weight_decay``, ...) set to
  each of its ``values`` at the front point, where the value differs from the point's
  own (``momentum`` only for SGD: Adam has none).

:func:`round_two_points` is pure: the same front and config give the same points, in
the front's order, each named ``<front regime>__<key><value>`` and listed once.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

ROUND_TWO_COLUMNS = ["regime", "from_regime", "axis", "value", "optimizer", "lr", "steps", "batch_size",
                     "seq_len", "dataset", "small_corpus_chars", "overrides", "why"]  # fmt: skip
# Axes that only an optimizer uses (the others shape every model).
OPTIMIZER_ONLY = {"momentum": "sgd"}


def _value_text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def round_two_points(front: pd.DataFrame, config: Mapping) -> pd.DataFrame:
    """The points round two trains (``ROUND_TWO_COLUMNS``), from the regimes on
    ``front`` or near it (a ``protocol_front.csv``) and ``config``'s
    ``protocol.round_two``; ``overrides``: the `train` keys the point changes."""
    plan = config["protocol"]["round_two"]
    train = config["train"]
    chosen = front[front["on_front"].astype(bool) | front["near_front"].astype(bool)]
    rows: list[dict] = []
    seen: set[tuple] = set()

    def add(base: Mapping, axis: str, value, overrides: dict, why: str, chars=None) -> None:
        point = {k: base[k] for k in ("optimizer", "lr", "steps", "batch_size", "seq_len", "dataset")}
        point.update({k: v for k, v in overrides.items() if k in point})
        key = (tuple(sorted(point.items())), tuple(sorted(overrides.items())), chars)
        if key in seen:
            return
        seen.add(key)
        rows.append({"regime": f"{base['regime']}__{axis}{_value_text(value)}", "from_regime": base["regime"],
                     "axis": axis, "value": value, **point, "small_corpus_chars": chars,
                     "overrides": ", ".join(f"{k}={_value_text(v)}" for k, v in overrides.items()),
                     "why": why})  # fmt: skip

    for base in chosen.to_dict("records"):
        for factor in plan["lr_factors"]:
            add(base, "lr", float(base["lr"]) * factor, {"lr": float(base["lr"]) * factor}, plan["lr_why"])
        if base.get("dataset", "default") != "default":
            for chars in plan["small_corpus_chars"]:
                add(base, "chars", chars, {}, plan["chars_why"], chars=chars)
        for key, axis in plan["axes"].items():
            if key in OPTIMIZER_ONLY and base["optimizer"] != OPTIMIZER_ONLY[key]:
                continue
            for value in axis["values"]:
                if value != train.get(key):
                    add(base, key, value, {key: value}, axis["why"])
    return pd.DataFrame(rows, columns=ROUND_TWO_COLUMNS)
