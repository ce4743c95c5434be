"""The answer to "which protocol did the study use", in words, generated from the
reference run's tables (:func:`gatedrnn.reference.reference_front`): under which
protocol the loss table reproduces (each number beside the study's, with
intervals), under which the gates come closest and how far they still are, whether
any protocol reproduces both, and the remaining difference (which gate, which
quantile, by how much); and the study's trained claims judged under the inferred
protocol beside the default. Every number is a cell of a table or a published
value, never typed.

A block *reproduces* when its distance is below what seed noise alone gives 95 % of
the time (:func:`gatedrnn.claims.distance.seed_noise_limit`). A regime whose distances
rest on fewer seeds than ``protocol.confirm.seeds`` (the front's ``confirmed`` False)
is never called the answer: it is named "not yet confirmed at N seeds", never in bold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from gatedrnn.claims.bands import format_value
from gatedrnn.claims.distance import SUMMARIES, block_distances, grid_rows, natural, seed_noise_limit, targets
from gatedrnn.claims.front import scored_on_any
from gatedrnn.claims.scoreboard import regime_verdicts
from gatedrnn.core import exact_math
from gatedrnn.report.protocol import AXIS_WORDS, distance_text, regime_label
from gatedrnn.report.results_page import fmt, markdown_table, replace_block

ANSWER_BEGIN = "<!-- BEGIN protocol answer (python -m gatedrnn.reference pages) -->"
ANSWER_END = "<!-- END protocol answer -->"
# Which row of the regime table a summary reads its value from, in the study's words.
LOSS_WORDS = {"lstm_loss": "LSTM", "gru_budget_loss": "budget GRU", "gru_minus_lstm": "GRU minus LSTM"}
Z95 = 1.959963984540054  # the normal distribution's 97.5th percentile


@dataclass(frozen=True)
class AnswerInputs:
    """What the answer is read from: the front (with the confirmed seeds), the claims,
    the claims' own tables, the models' names, the regime rows the front measured and
    how many seeds confirm a regime (``protocol.confirm.seeds``)."""

    front: pd.DataFrame
    claims: list
    tables: Mapping[str, pd.DataFrame]
    names: Mapping[str, str]
    regimes: pd.DataFrame
    confirm_seeds: int


def seeds_words(row, confirm_seeds: int) -> str:
    """``3 seeds``; ``1 seed, not yet confirmed at 3 seeds`` for a row not ``confirmed``."""
    seeds = int(row["seeds"])
    words = f"{seeds} seed{'s' * (seeds != 1)}"
    return words if bool(row["confirmed"]) else f"{words}, not yet confirmed at {confirm_seeds} seeds"


def named(row, confirm_seeds: int) -> str:
    """A regime as the answer names it: in bold once confirmed, else with its seeds."""
    label = regime_label(row)
    return f"**{label}**" if bool(row["confirmed"]) else f"{label} ({seeds_words(row, confirm_seeds)})"


def _limit(row, block: str) -> float:
    return seed_noise_limit(int(row[f"{block}_terms"]))


def _reproduces(row, block: str) -> bool:
    return not math.isnan(row[block]) and row[block] <= _limit(row, block)


def _loss_numbers(row, regimes: pd.DataFrame, found) -> str:
    """``LSTM 1.680 (± 0.0027) against the study's 1.678 (± 0.0029), ...``."""
    parts = []
    mine = regimes[regimes["regime"] == row["regime"]]
    for t in found:
        s = t.summary
        if s.block != "loss":
            continue
        cells = mine[mine["cell"] == s.cell]
        value, seeds = float(cells[s.column].iloc[0]), int(cells["seeds"].iloc[0])
        ours = Z95 * math.sqrt(t.run_variance / max(seeds, 1))
        theirs = Z95 * math.sqrt(t.study_variance / t.study_seeds)
        parts.append(f"{LOSS_WORDS[s.name]} {value:.4f} (± {ours:.2g}) against the study's {t.study:.4f} "
                     f"(± {theirs:.2g})")  # fmt: skip
    return ", ".join(parts)


def _largest_terms(rows: pd.DataFrame, found, n: int = 3) -> str:
    """The ``n`` gate terms farthest from the study, in the study's units and as z^2."""
    scored = block_terms(rows, found)
    scored = scored[scored["block"] == "gates"].sort_values("z2", ascending=False).head(n)
    by_name = {s.name: s for s in SUMMARIES}
    parts = []
    for term in scored.to_dict("records"):
        s = by_name[term["summary"]]
        value = float(rows.loc[rows["cell"] == s.cell, s.column].iloc[0])
        study = _back(term["study"], s.scale)
        parts.append(f"{s.name.replace('_', ' ')} {value:.3g} against the study's {study:.3g} "
                     f"({s.scale} {natural(value, s.scale):+.2f} against {term['study']:+.2f}, "
                     f"z\u00b2 {term['z2']:.3g})")  # fmt: skip
    return "; ".join(parts)


def block_terms(rows: pd.DataFrame, found) -> pd.DataFrame:
    from gatedrnn.claims.distance import terms

    return terms(rows, found)


def _back(value: float, scale: str) -> float:
    if scale == "logit":
        return float(1 / (1 + exact_math.exp(-value)))
    if scale == "log":
        return float(exact_math.exp(value))
    return value


def answer_lines(inputs: AnswerInputs) -> list[str]:
    """The answer's sentences (the README's and docs/protocol-scoreboard.md's opening)."""
    front, claims, tables, names, regimes = (inputs.front, inputs.claims, inputs.tables, inputs.names,
                                             inputs.regimes)  # fmt: skip
    found, confirm = targets(claims, tables, names), inputs.confirm_seeds
    closest = front.loc[front["loss"].idxmin()]
    label = regime_label(closest)
    limit = _limit(closest, "loss")
    verb = "reproduces" if _reproduces(closest, "loss") else "comes closest to"
    if bool(closest["confirmed"]):
        chosen = (
            f"the protocol closest to the study's loss table is **{label}** ({seeds_words(closest, confirm)})"
        )
    else:  # not the answer until its seeds are
        chosen = f"the closest to the study's loss table so far is {label} ({seeds_words(closest, confirm)})"
    lines = [
        f"**The loss table.** Of {len(front)} regimes, {chosen}, which {verb} it: loss distance "
        f"{distance_text(closest, 'loss')} (mean z\u00b2 of {int(closest['loss_terms'])} terms; seed noise "
        f"alone stays below {limit:.3g} 95 % of the time). {_loss_numbers(closest, regimes, found)} "
        "(95 % intervals from each side's seed spread).",
    ]
    others = front[(front["on_front"] | front["near_front"]) & (front["regime"] != closest["regime"])]
    if len(others):
        near = "; ".join(f"{regime_label(r)}, {distance_text(r, 'loss')} ({seeds_words(r, confirm)})"
                         for r in others.to_dict("records"))  # fmt: skip
        lines[-1] += f" Within its interval of the front: {near}."
    lost = front[~scored_on_any(front)]
    if len(lost):
        labels = "; ".join(f"{regime_label(r)}, where {r['loss_unscored'].split(': ', 1)[-1]}"
                           for r in lost.to_dict("records"))  # fmt: skip
        lines[-1] += (f" {len(lost)} of the {len(front)} are scored on neither block and left off the front: "
                      f"{labels}.")  # fmt: skip
    if "round" in front.columns and (front["round"] == 2).any():
        lines[-1] += " " + _round_two_words(front, confirm)
    lines += ["", *_gate_lines(front, claims, tables, names, found, regimes, confirm)]
    return lines


def _round_two_words(front: pd.DataFrame, confirm: int) -> str:
    """What round two (the points around round one's front) added: how many points on
    which axes, how many are on the front of both rounds or near it, and how many of
    those rest on the confirmation's seeds."""
    second = front[front["round"] == 2]
    words = {"lr": "learning rate", "chars": "corpus size", **AXIS_WORDS}
    axes = ", ".join(dict.fromkeys(words.get(str(a), str(a).replace("_", " ")) for a in second["axis"]))
    chosen = front[front["on_front"].astype(bool) | front["near_front"].astype(bool)]
    confirmed = int(chosen["confirmed"].astype(bool).sum())
    return (f"The regimes are both rounds': round two tried {len(second)} points around round one's front "
            f"(one axis at a time: {axes}); {int((chosen['round'] == 2).sum())} of the {len(chosen)} regimes "
            f"on the front of both rounds or near it are round two's, and {confirmed} of the {len(chosen)} "
            f"rest on the confirmation's {confirm} seeds.")  # fmt: skip


def _gate_lines(front, claims, tables, names, found, regimes, confirm: int) -> list[str]:
    scored = front[front["gates"].notna()]
    if len(scored):
        best = scored.loc[scored["gates"].idxmin()]
        rows = regimes[regimes["regime"] == best["regime"]]
        both = scored[[_reproduces(r, "loss") and _reproduces(r, "gates") for r in scored.to_dict("records")]]
        winners = ", ".join(named(r, confirm) for r in both.to_dict("records"))
        front_rows = front[front["on_front"]]
        listed = "; ".join(f"{regime_label(r)}: loss {distance_text(r, 'loss')}, gates "
                           f"{distance_text(r, 'gates')} ({seeds_words(r, confirm)})"
                           for r in front_rows.to_dict("records"))  # fmt: skip
        best_both = front[front["best"]]
        lines = [
            f"**The gates.** The gates come closest under {named(best, confirm)}: gate distance "
            f"{distance_text(best, 'gates')} (seed noise alone: below {_limit(best, 'gates'):.3g}). "
            f"The largest differences: {_largest_terms(rows, found)}.",
            "",
            f"**Both.** The front: {listed}."
            + (f" Best on both: {named(best_both.iloc[0], confirm)}." if len(best_both) else
               " No regime is closest on both blocks.")
            + (f" Reproducing both within seed noise: {winners}." if len(both) else
               " No protocol reproduces both the loss table and the gates."),
        ]  # fmt: skip
        return lines
    reason = front["gates_unscored"].iloc[0]
    grid = grid_rows(claims, tables, names, "default")
    default = block_distances(grid, found).iloc[0]
    point = front[front["regime"] == "default"]
    protocol = regime_label(point.iloc[0]) if len(point) else "default"
    default_loss = "reproduces" if _reproduces(default, "loss") else "does not reproduce"
    return [
        f"**The gates.** No regime's gate block can be scored on these tables: {reason} (the regime "
        "tables record every gate's quantiles from the next retraining on). The default protocol "
        f"({protocol}, the grid's {int(grid['seeds'].min())} seeds) is scored from the grid's own gate "
        f"tables: gate distance {distance_text(default, 'gates')} (seed noise alone: below "
        f"{_limit(default, 'gates'):.3g}), loss distance {distance_text(default, 'loss')}. The largest gate "
        f"differences: {_largest_terms(grid, found)}.",
        "",
        "**Both.** Whether any protocol reproduces both the loss table and the gates cannot be judged "
        f"until the regime tables carry the gate quantiles; the default protocol {default_loss} the loss "
        "table and is far from the study's gates.",
    ]


def ledger_side_by_side(inputs: AnswerInputs) -> list[str]:
    """The study's trained claims with a regime view judged under the default protocol
    and under the inferred one (the regime closest on the loss), side by side."""
    front, claims, tables, names, regimes = (inputs.front, inputs.claims, inputs.tables, inputs.names,
                                             inputs.regimes)  # fmt: skip
    inferred = front.loc[front["loss"].idxmin(), "regime"]
    chosen = regimes[regimes["regime"].isin(["default", inferred])]
    verdicts = regime_verdicts(claims, tables, names, chosen)
    by_id = {c.id: c for c in claims}
    table = verdicts.pivot(index="id", columns="regime", values=["value", "verdict"])
    order = list(dict.fromkeys(verdicts["id"]))
    label = regime_label(front[front["regime"] == inferred].iloc[0])
    rows = pd.DataFrame(
        {
            "claim": order,
            "study": [format_value(by_id[i].published) for i in order],  # the study's seeds: a range
            "default": [f"{fmt(table.loc[i, ('value', 'default')])} ({table.loc[i, ('verdict', 'default')]})"
                        for i in order],
            label: [f"{fmt(table.loc[i, ('value', inferred)])} ({table.loc[i, ('verdict', inferred)]})"
                    for i in order],
        }
    )  # fmt: skip
    agree = {r: int(verdicts[verdicts["regime"] == r]["verdict"].isin(["within", "exact", "holds"]).sum())
             for r in ("default", inferred)}  # fmt: skip
    seeds = seeds_words(front[front["regime"] == inferred].iloc[0], inputs.confirm_seeds)
    return [
        f"**The claims ledger under the inferred protocol.** The study's {len(order)} trained claims that "
        f"have a regime view, judged as the ledger judges them on the regime tables' rows (the default "
        f"protocol's first seed; {label} at {seeds}): {agree['default']} agree "
        "under "
        f"the default protocol, {agree[inferred]} under {label}.",
        "",
        markdown_table(rows),
    ]


def render_answer(inputs: AnswerInputs | None, ledger: bool = False) -> str:
    """The answer block (``ledger``: with the claims judged side by side); ``inputs``
    None while the reference lacks the tables it reads."""
    if inputs is None:
        return "The answer needs the regime tables: not in the reference run yet.\n"
    lines = answer_lines(inputs)
    if ledger:
        lines += ["", *ledger_side_by_side(inputs)]
    return "\n".join(lines).rstrip() + "\n"


def replace_answer(text: str, section: str, where: str = "") -> str:
    return replace_block(text, ANSWER_BEGIN, ANSWER_END, f"{ANSWER_BEGIN}\n{section}{ANSWER_END}", where)
