"""The forget-bias sweep's constraints (registered in :data:`gatedrnn.plan.checks.CHECKS`)."""

from __future__ import annotations

from collections.abc import Iterable

from gatedrnn.plan.checks import check
from gatedrnn.plan.regimes import TRAIN_CONFIG_KEYS


@check("forget_bias_sweep: one regime per b")
def forget_bias_sweep_distinct(plan) -> Iterable[str]:
    by_b: dict[float, list[str]] = {}
    for regime in plan.config["forget_bias_sweep"]["regimes"]:
        if regime in plan.config["regimes"]:  # an undefined one is refused while planning
            bias = plan.train_config(regime)["forget_bias"]
            by_b.setdefault(0.0 if bias is None else float(bias), []).append(regime)
    for b, regimes in by_b.items():
        if len(regimes) > 1:
            yield (
                f"forget_bias_sweep.regimes lists {', '.join(repr(r) for r in regimes)}, all at forget "
                f"bias b = {b:g} (null counts as b = 0, PyTorch's default): the sweep's table and "
                "figure have one b per regime; keep one of them"
            )


@check("forget_bias_sweep: its regimes change forget_bias only")
def forget_bias_sweep_bias_only(plan) -> Iterable[str]:
    """E3 credits every difference between the sweep's runs to the bias: a regime that
    also changes lr (or anything else) would be credited to b in forget_bias_sweep.csv,
    as the longer-training and normalisation questions' regimes are held to steps and
    the model alone."""
    train = plan.config["train"]
    for regime in plan.config["forget_bias_sweep"]["regimes"]:
        if regime not in plan.config["regimes"]:  # an undefined one is refused while planning
            continue
        swept = plan.train_config(regime)
        others = sorted(key for key in TRAIN_CONFIG_KEYS if key != "forget_bias" and swept[key] != train[key])
        if others:
            yield (
                f"forget_bias_sweep.regimes lists {regime!r}, which also changes {', '.join(others)}: the "
                "sweep credits every difference between its runs to the forget bias; remove "
                f"{', '.join(f'regimes.{regime}.{k}' for k in others)} (or drop {regime!r} from the sweep)"
            )
