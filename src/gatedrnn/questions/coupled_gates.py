"""G8. Does tying the gates cost the LSTM anything?

The study found that the trained LSTM does not set i = 1 - f, and asked whether the
tie the GRU has (one update gate for both) is what costs the LSTM. The coupled
input-forget gate LSTM (cell ``cifg``: i = 1 - f, three gate blocks; Greff et al.
2017) answers it with the tie as the only change: ``cifg_wR`` at the reference
LSTM's width and ``cifg_budgetR`` at its parameter budget, beside the grid's
reference LSTM ``lstm_wR`` and budget GRU ``gru_budgetR``, at the grid's seeds.

One table, ``results/tables/coupled_gates.csv``, a row per ``kind``:

- ``model``: each model (``role``) and seed, and a ``seed = median`` row per model: best
  validation loss and the keep gate's statistics on the probe set
  (:func:`gatedrnn.questions.common.keep_gate_stats`: mean, per-unit half-lives);
- ``split``: D4's structure/width split redone with the tie as the only change, on the
  medians over seeds (``loss_difference`` = variant - reference, positive: the variant
  is worse): ``tie`` = CIFG wR - LSTM wR, ``width`` = CIFG budget - CIFG wR, ``total`` =
  CIFG budget - LSTM wR (``share_of_total`` of these three), then the budget GRU against
  the LSTM (D4's gap) and against the CIFG at the same budget.
"""

from __future__ import annotations

import pandas as pd

from gatedrnn.questions.common import (
    MEDIAN,
    Log,
    fmt,
    keep_gate_stats,
    median_rows,
    read_summaries,
    seeds_in,
    signed,
    write_table,
)
from gatedrnn.tables.gates import load_run_gates

# the four models by role, in the table's order
ROLES = ("lstm", "cifg_same_width", "cifg_same_budget", "gru_same_budget")
# a unit holding half of a change for this many characters or more counts as long-lived
LONG_HALF_LIFE = 10.0
MODEL_VALUES = (
    "best_val_loss",
    "keep_gate_mean",
    "unit_mean_median",
    "half_life_min",
    "half_life_median",
    "half_life_max",
    "units_half_life_ge_long",
)
# (component, variant role, reference role), loss_difference = variant - reference
SPLIT = (
    ("tie", "cifg_same_width", "lstm"),
    ("width", "cifg_same_budget", "cifg_same_width"),
    ("total", "cifg_same_budget", "lstm"),
    ("gru_against_lstm", "gru_same_budget", "lstm"),
    ("gru_against_cifg", "gru_same_budget", "cifg_same_budget"),
)
SHARED = ("tie", "width", "total")  # the components whose shares of `total` are given


def coupled_gates_table(entries, models: dict[str, str]) -> pd.DataFrame:
    """The G8 table (see the module's docstring).

    ``entries``: ``(summary, gates)`` of every seed of the four models (``gates`` a
    :class:`gatedrnn.analysis.gates.ProbeGates` on the probe set); ``models``: the model
    id of each role of :data:`ROLES`. Refuses (ValueError) a role without summaries,
    and models whose seeds differ.
    """
    role_of = {model: role for role, model in models.items()}
    rows = []
    for summary, probe in entries:
        if summary["model"] not in role_of:
            known = ", ".join(models.values())
            raise ValueError(f"{summary['model']} is none of the question's models ({known})")
        stats = keep_gate_stats(summary["cell"], probe.gates, LONG_HALF_LIFE)
        rows.append(
            {
                "kind": "model",
                "role": role_of[summary["model"]],
                "model": summary["model"],
                "cell": summary["cell"],
                "width": int(summary["width"]),
                "params": int(summary["params"]),
                "seed": summary["seed"],
                "best_val_loss": summary["best_val_loss"],
                **{key: stats[key] for key in ("keep_gate", *MODEL_VALUES[1:])},
            }
        )
    frame = pd.DataFrame(rows)
    seeds = {role: set(frame.loc[frame["role"] == role, "seed"]) for role in ROLES}
    missing = [models[role] for role in ROLES if not seeds[role]]
    if missing:
        raise ValueError(f"coupled gates: no summaries for {', '.join(missing)}")
    if len({frozenset(s) for s in seeds.values()}) > 1:
        raise ValueError(f"coupled gates: the models were trained at different seeds ({seeds})")
    frame["_order"] = frame["role"].map(ROLES.index)
    frame = frame.sort_values(["_order", "seed"], kind="stable").drop(columns="_order")
    per_seed = frame.to_dict("records")
    medians = median_rows(per_seed, ("role",), MODEL_VALUES)
    by_role = {row["role"]: row for row in medians}
    model_rows = []
    for role in ROLES:
        model_rows += [row for row in per_seed if row["role"] == role] + [by_role[role]]
    total = by_role["cifg_same_budget"]["best_val_loss"] - by_role["lstm"]["best_val_loss"]
    split_rows = []
    for component, variant, reference in SPLIT:
        difference = by_role[variant]["best_val_loss"] - by_role[reference]["best_val_loss"]
        split_rows.append(
            {
                "kind": "split",
                "seed": MEDIAN,
                "component": component,
                "comparison": f"{models[variant]} - {models[reference]}",
                "loss_difference": difference,
                "share_of_total": difference / total if component in SHARED and total != 0 else float("nan"),
            }
        )
    table = pd.DataFrame(model_rows + split_rows)
    table["seed"] = table["seed"].astype(str)
    # whole numbers stay whole where the split rows leave them empty
    table[["width", "params"]] = table[["width", "params"]].astype("Int64")
    return table


def write_coupled_gates_table(summaries, gates, models: dict[str, str], out, log: Log) -> pd.DataFrame:
    """Rule ``coupled_gates``: read each run's summary and probe gates (the two lists
    run in step) and write :func:`coupled_gates_table` to ``out``."""
    entries = list(zip(read_summaries(summaries), map(load_run_gates, gates), strict=True))
    table = coupled_gates_table(entries, models)
    write_table(table, out, log)
    return table


def coupled_gates_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence: the tie's cost at the LSTM's width, the width its saved parameters
    buy, the budget GRU against both, and the keep gate's median half-life of each."""
    medians = table[(table["kind"] == "model") & (table["seed"].astype(str) == MEDIAN)].set_index("role")
    split = table[table["kind"] == "split"].set_index("component")
    lstm, tied, budget, gru = (medians.loc[role] for role in ROLES)
    lives = ", ".join(
        f"{row['model']} {fmt(row['half_life_median'], 2)}" for _, row in medians.loc[list(ROLES)].iterrows()
    )
    return [
        f"Tying the input gate to the forget gate (cifg, i = 1 - f), medians of "
        f"{seeds_in(table[table['kind'] == 'model'])} seed(s): at the LSTM's width "
        f"{tied['model']} reaches {fmt(tied['best_val_loss'])} against {lstm['model']}'s "
        f"{fmt(lstm['best_val_loss'])} (the tie's cost {signed(split.loc['tie', 'loss_difference'])}, "
        f"{int(tied['params'])} parameters against {int(lstm['params'])}); on the LSTM's budget "
        f"{budget['model']} (width {int(budget['width'])}) reaches {fmt(budget['best_val_loss'])} "
        f"(width {signed(split.loc['width', 'loss_difference'])}, tie and width together "
        f"{signed(split.loc['total', 'loss_difference'])}), and {gru['model']} "
        f"{fmt(gru['best_val_loss'])} ({signed(split.loc['gru_against_cifg', 'loss_difference'])} "
        f"against the budget CIFG, {signed(split.loc['gru_against_lstm', 'loss_difference'])} "
        f"against the LSTM). Median unit half-life of the keep gate (characters): {lives}."
    ]
