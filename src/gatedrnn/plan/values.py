"""Checks on the config's raw values, before the schema sees them: NaN and infinity
(a NaN passes every bound of the schema, and its failure names another key).

The error type of every config check lives here, at the bottom of :mod:`gatedrnn.plan`'s
checks (:mod:`gatedrnn.plan.checks` re-exports it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping


class ConfigError(ValueError):
    """A config that breaks a stated constraint: the message lists every problem."""


def non_finite_numbers(config, key: str = "") -> list[str]:
    """``key is value`` for every NaN or infinite number of ``config``, however deep
    (regimes, the sweep's learning rates): YAML reads ``.nan`` and ``.inf`` as floats,
    and a NaN passes every bound of the schema (each comparison is false), an infinity
    every lower one."""
    if isinstance(config, Mapping):
        return [p for k, v in config.items() for p in non_finite_numbers(v, f"{key}.{k}" if key else str(k))]
    if isinstance(config, list | tuple):
        return [p for i, v in enumerate(config) for p in non_finite_numbers(v, f"{key}[{i}]")]
    if isinstance(config, float) and not math.isfinite(config):
        return [f"{key} is {config}"]
    return []


def refuse_non_finite(config, error: type[Exception] = ConfigError) -> None:
    """Refuse (``error``: the workflow's WorkflowError prints without a traceback) a
    config with a NaN or infinite number, naming each key."""
    problems = non_finite_numbers(config)
    if problems:
        raise error(
            f"Error validating config file: {'; '.join(problems)}: not a finite number; "
            "give every numeric key a finite value (.nan and .inf are YAML's NaN and infinity)"
        )
