"""Which regime's run is another's first steps (a pure function; no torch).

Two regimes that set every training key alike but ``steps`` train the same model
identically step for step (the learning rate is constant: no schedule reads
``steps``), up to the shorter one's last step. So a 3,200-step run can start from
the 800-step run's final state instead of training those 800 steps again
(:func:`gatedrnn.train.loop.train_model`'s ``start_from``) and end with the same
bytes. One condition more: each run validates at its own last step and resets its
training-loss window there, so the shorter run's ``steps`` must lie on the
validation grid (a multiple of ``eval_every``) for its final state to be the
longer run's state at that step.

The train rule asks :func:`prefix_regime` for each regime (workflow/rules/train.smk);
the loop checks the state it is given again (``prefix_hash``, ``prefix_state_problem``),
so a wrong answer here costs time, never a wrong model.
"""

from __future__ import annotations

from collections.abc import Mapping

# The key that may differ between a run and its prefix; every other key must be equal.
LENGTH_KEY = "steps"


def prefix_regime(regimes: Mapping[str, Mapping], regime: str) -> str | None:
    """The regime whose run is ``regime``'s longest proper prefix, or None.

    ``regimes`` maps each regime name to everything that decides how its models
    train: the train config keys (``steps``, ``eval_every``, ``optimizer``, ``lr``,
    ...) and the dataset. Candidates train identically but for fewer ``steps``, a
    multiple of ``eval_every``; the one with the most steps wins (ties: the first
    name in sorted order, so the answer does not depend on the dict's order).
    """
    target = regimes[regime]
    steps = target[LENGTH_KEY]
    rest = {key: value for key, value in target.items() if key != LENGTH_KEY}
    best: tuple[int, str] | None = None
    for name in sorted(regimes):
        config = regimes[name]
        shorter = config[LENGTH_KEY]
        if name == regime or not shorter < steps:
            continue
        if {key: value for key, value in config.items() if key != LENGTH_KEY} != rest:
            continue
        if shorter % config["eval_every"]:
            continue
        if best is None or shorter > best[0]:
            best = (shorter, name)
    return None if best is None else best[1]
