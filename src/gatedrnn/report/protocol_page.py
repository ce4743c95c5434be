"""The section "What the reference run found" of docs/protocol-scoreboard.md (and the
same on docs/results.md), rendered from the committed reference run's tables alone: the
scoreboard of regimes, the small corpus, the alphabet the study's parameter counts
imply, and the check of E3's forget-bias inversion. Each part is written once its
table is in ``reference/tables/``; every number is a cell of it (or the published
value of a claim in ``workflow/resources/published.yaml``), never typed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from gatedrnn.claims import load_claims
from gatedrnn.report.protocol import regime_label
from gatedrnn.report.provenance import stage_machine
from gatedrnn.report.published_view import INVERSION_HEADING
from gatedrnn.report.results_page import fmt, markdown_table, replace_block

PROTOCOL_BEGIN = "<!-- BEGIN protocol section (python -m gatedrnn.reference pages) -->"
PROTOCOL_END = "<!-- END protocol section -->"
TO_COME = "not in the reference run yet (`snakemake --cores 2 stage_protocol`, then collect)"

# The published values the small corpus is set against (claim ids of workflow/resources/published.yaml).
FORGET_MEAN = "C2.lstm_gates.forget.mean"
GRU_LOSS, LSTM_LOSS = "D3.gru_vs_lstm.gru_budget.median", "D3.gru_vs_lstm.lstm.median"


def _table(reference: Path, name: str) -> pd.DataFrame | None:
    path = reference / "tables" / name
    return pd.read_csv(path) if path.exists() else None


def published_values(workflow: Path) -> dict[str, float]:
    claims = load_claims(workflow / "workflow" / "resources" / "published.yaml")
    wanted = [c for c in claims if c.id in (FORGET_MEAN, GRU_LOSS, LSTM_LOSS)]
    # a list of the study's seeds: their median, the number its table printed
    return {c.id: float(np.median(c.published)) for c in wanted}


def scoreboard_part(reference: Path) -> list[str]:
    board = _table(reference, "protocol_scoreboard.csv")
    if board is None:
        return [f"The scoreboard of regimes is {TO_COME}."]
    board = board.sort_values("rank")
    best = board.iloc[0]
    top = board.head(5).assign(regime=[regime_label(r) for r in board.head(5).to_dict("records")])
    columns = ["rank", "regime", "agreements", "claims_judged", "values_reproduced", "findings_hold",
               "values_differ", "findings_fail", "band_distance"]  # fmt: skip
    lines = [
        f"Every regime of the regime sweep and of the small corpus ({len(board)} in all) judged on the "
        f"study's {int(best['claims_judged'])} trained claims that have a regime view, as the ledger judges "
        f"them (`reference/tables/protocol_scoreboard.csv`). Counted this way (which counts some numbers "
        f"twice; the protocol distance of docs/protocol-scoreboard.md measures each once), the most "
        f"agreements are under "
        f"**{regime_label(best)}**: {int(best['agreements'])} agree (values reproduced and findings "
        f"holding), band distance {fmt(best['band_distance'])} (1 is a band's edge). The top five:",
        "",
        markdown_table(top[columns]),
        "",
    ]
    both = board[board["reproduces_loss"].astype(bool) & board["reproduces_gates"].astype(bool)]
    if both.empty:
        loss = int(board["reproduces_loss"].astype(bool).sum())
        gates = int(board["reproduces_gates"].astype(bool).sum())
        lines.append(
            f"**No regime reproduces both the loss table and the gate statistics**: {loss} of {len(board)} "
            f"reproduce every loss value, {gates} every gate value."
        )
    else:
        names = ", ".join(regime_label(r) for r in both.to_dict("records"))
        lines.append(f"Regimes that reproduce both the loss table and the gate statistics: {names}.")
    confirmation = _table(reference, "protocol_confirmation.csv")
    if confirmation is None:
        lines += ["", f"The best regimes over more seeds are {TO_COME}."]
    else:
        rows = "; ".join(
            f"{regime_label(r)}: {int(r['agreements'])} agree, band distance {fmt(r['band_distance'])}"
            for r in confirmation.sort_values("rank").to_dict("records")
        )
        seeds = int(confirmation["seeds"].min())
        lines += [
            "",
            f"Trained again at {seeds} seeds (`reference/tables/protocol_confirmation.csv`): {rows}."
            + machine_note(reference, "tables/protocol_confirmation.csv", "tables/regime_sensitivity.csv"),
        ]
    return lines


def machine_note(reference: Path, table: str, against: str) -> str:
    """A sentence when two tables of the reference were made on different CPU models
    (the manifest's stage of each), whose trained floats differ in their last digits."""
    path = reference / "manifest.json"
    if not path.exists():
        return ""
    manifest = json.loads(path.read_text())
    owners = manifest.get("files", {})
    if table not in owners or against not in owners:
        return ""
    mine, theirs = (stage_machine(manifest, owners[t])["cpu"] for t in (table, against))
    if mine == theirs:
        return ""
    return (
        f" Those seeds were trained on {mine}, the scoreboard's single seeds on {theirs}, so even "
        'the seed both share differs in its last digits (reference/README.md, "Another CPU model").'
    )


def corpus_size_part(reference: Path, published: dict[str, float]) -> list[str]:
    small = _table(reference, "corpus_size.csv")
    if small is None:
        return [f"The small corpus's runs are {TO_COME}."]
    full = _table(reference, "regime_sensitivity.csv")
    rows = []
    for row in small.to_dict("records"):
        match = None
        if full is not None:
            same = full[(full["cell"] == row["cell"]) & (full["optimizer"] == row["optimizer"])
                        & (full["lr"] == row["lr"]) & (full["steps"] == row["steps"])]  # fmt: skip
            for key in ("batch_size", "seq_len"):  # the window axes' points train at other windows
                if key in full.columns and key in row:
                    same = same[same[key] == row[key]]
            match = same.iloc[0] if len(same) else None
        rows.append({
            "regime": regime_label(row), "cell": row["cell"],
            "best_step": row["best_step"], "steps": row["steps"],
            "best_val_loss": row["best_val_loss"], "gate_mean": row["gate_mean"],
            "gate_mean_full_corpus": match["gate_mean"] if match is not None else math.nan,
            "gru_minus_lstm": row["gru_minus_lstm"],
            "gru_minus_lstm_full_corpus": match["gru_minus_lstm"] if match is not None else math.nan,
        })  # fmt: skip
    frame = pd.DataFrame(rows)
    turned = frame[frame["best_step"] < frame["steps"]]
    lines = [
        "The regime sweep's optimizer points trained on the small corpus "
        "(`reference/tables/corpus_size.csv`) "
        + (
            "beside the same point on the whole corpus (`regime_sensitivity.csv`). "
            if full is not None
            else "(the whole corpus's columns are filled from stage regimes' `regime_sensitivity.csv`, "
            "not in the reference run yet). "
        )
        + "Validation loss bottomed out "
        + (
            "before the last step in "
            + ", ".join(
                f"{r['regime']} {r['cell']} (step {int(r['best_step'])})" for r in turned.to_dict("records")
            )
            if len(turned)
            else "in none of them: every run was still improving at its last step"
        )
        + ".",
    ]
    if FORGET_MEAN in published and GRU_LOSS in published and LSTM_LOSS in published:
        target, gap = published[FORGET_MEAN], published[GRU_LOSS] - published[LSTM_LOSS]
        lines[0] += (
            f" The study's LSTM forget-gate mean is {fmt(target)} and its GRU-minus-LSTM gap {fmt(gap)}."
        )
        lstm = frame[(frame["cell"] == "lstm") & frame["gate_mean_full_corpus"].notna()]
        if len(lstm):
            closer = int(
                ((lstm["gate_mean"] - target).abs() < (lstm["gate_mean_full_corpus"] - target).abs()).sum()
            )
            wider = frame[(frame["cell"] == "lstm") & frame["gru_minus_lstm_full_corpus"].notna()]
            nearer = int(
                (
                    (wider["gru_minus_lstm"] - gap).abs() < (wider["gru_minus_lstm_full_corpus"] - gap).abs()
                ).sum()
            )
            lines[0] += (
                f" On the small corpus the forget-gate mean moves toward the published value at {closer} of "
                f"{len(lstm)} optimizer points, and the GRU-minus-LSTM gap at {nearer} of {len(wider)}."
            )
    return lines + ["", markdown_table(frame)]


def alphabet_part(reference: Path) -> list[str]:
    table = _table(reference, "alphabet_check.csv")
    if table is None:
        return [f"The alphabet check is {TO_COME}."]
    counts = table[table["kind"] == "published"]
    candidates = table[table["kind"] == "candidate"]
    configured = table[table["kind"] == "configured"]
    closest = candidates[candidates["closest"].astype(str) == "True"]
    implied = counts["implied_vocab"].astype(float)
    one_whole = implied.max() - implied.min() < 1e-6 and abs(implied.iloc[0] - round(implied.iloc[0])) < 1e-6
    span = (
        f"each imply {round(implied.iloc[0])} characters"
        if one_whole
        else f"imply {fmt(implied.min())} to {fmt(implied.max())} characters, not one whole number"
    )
    lines = [
        f"The study's printed parameter counts, solved with the model's own formula for the vocabulary "
        f"(`reference/tables/alphabet_check.csv`), {span}",
    ]
    if len(configured):
        lines[0] += f"; this corpus has {int(configured.iloc[0]['vocab_size'])}"
    if len(closest):
        best = closest.iloc[0]
        lines[0] += (
            f". Of the package's file choices the closest is {best['name']} (`{best['pattern']}`, "
            f"{int(best['vocab_size'])} characters, {int(best['characters']):,} long)"
        )
    lines[0] += "."
    fit = table[table["kind"] == "joint_fit"]
    if len(fit):
        row = fit.iloc[0]
        missed = int(row["params_difference"])
        # a least-squares fit: round off its float noise (k = -3e-13 reads as a finding)
        vocab, extra = (round(float(row[key]), 6) + 0.0 for key in ("implied_vocab", "extra_per_unit"))
        lines[0] += (
            " Fitted together, with k parameters per hidden unit beyond this project's model, the "
            "counts "
            f"give V = {fmt(vocab)} and k = {fmt(extra)}; the "
            f"integers V = {int(row['nearest_vocab'])}, k = {math.floor(float(row['extra_per_unit']) + 0.5)} "
            + ("match every count exactly." if missed == 0 else f"miss a count by {missed:,} at most.")
        )
    columns = ["model", "width", "published_params", "implied_vocab", "nearest_vocab", "params_difference"]
    return lines + ["", markdown_table(counts[columns])] + model_part(table)


def model_part(table) -> list[str]:
    """What the counts fix (the derivation rows) and whether the configured model has every
    count; nothing for a table written before the check had them (issue 27)."""
    derivation = table[table["kind"] == "derivation"]
    model = table[table["kind"] == "configured_model"]
    if not len(model) or not len(derivation):
        return []
    row = model.iloc[0]
    reproduces = str(row["reproduces"]) == "True"
    verdict = (
        "reproduces every published count to the parameter"
        if reproduces
        else f"misses a published count by {int(row['configured_difference']):,}"
    )
    value = dict(zip(derivation["name"], derivation["value"].astype(float), strict=True))
    sentence = (
        f"Solved with PyTorch-style cells alone, the counts leave {fmt(value['solutions'])} whole "
        f"solution(s): E = {fmt(value['embed_dim'])}, {fmt(value['biases_per_gate_block'])} bias "
        f"vectors per gate block, V = {fmt(value['vocab_size'])} and "
        f"{fmt(value['per_unit_params'])} parameters per hidden unit beyond the cell. The configured "
        f"model, {row['name']}, {verdict}."
    )
    frame = derivation[["name", "value", "configured_value", "how"]]
    return ["", sentence, "", markdown_table(frame)]


def forget_bias_part(reference: Path) -> list[str]:
    table = _table(reference, "forget_bias_memory_check.csv")
    if table is None:
        return [f"The check of E3's forget-bias inversion is {TO_COME}."]
    columns = ["state_half_life", "c_half_life", "f_mean", "f_open_unit_share", "c_saturated_share",
               "c_to_h_gain_mean", "best_val_loss"]  # fmt: skip
    # a half-life the window never reaches (NaN in the table) counts as longer than any other
    halves = ["state_half_life", "c_half_life"]
    medians = table.assign(**{c: table[c].fillna(math.inf) for c in halves})
    medians = medians.groupby("forget_bias")[columns].median().reset_index()
    low, high = medians.iloc[0], medians.iloc[-1]

    def half(value: float) -> str:
        return "never halving" if value == math.inf else fmt(value)

    def trend(column: str) -> str:
        return "lengthens" if high[column] > low[column] else "shortens"

    agreement = float(table["h_half_life_minus_existing"].abs().max())
    # the recomputation is float64 against the table's float32: agreement to well under a character
    verdict = "so the measure is right" if agreement < 1e-3 else "so the two measurements DISAGREE"
    states = (
        f"From b = {fmt(low['forget_bias'])} to b = {fmt(high['forget_bias'])} the cell state's half-life "
        f"{trend('c_half_life')} (median {half(low['c_half_life'])} to "
        f"{half(high['c_half_life'])} characters) "
        f"while the hidden state's {trend('state_half_life')} ({half(low['state_half_life'])} to "
        f"{half(high['state_half_life'])})"
    )
    if trend("c_half_life") == "lengthens" and trend("state_half_life") == "shortens":
        states += (
            ": the trained forget gates stay open, the cells grow until tanh saturates "
            f"(c_saturated_share {fmt(low['c_saturated_share'])} to {fmt(high['c_saturated_share'])}), "
            "and h, "
            "which reads tanh(c), no longer shows what c holds (docs/forget-bias-check.md)"
        )
    return [
        "E3 says opening the forget gate at initialisation extends how long the state holds a change. The "
        "hidden-state half-life recomputed from the LSTM equations written out in float64 "
        f"(`reference/tables/forget_bias_memory_check.csv`) agrees with E3's table to {fmt(agreement)} "
        f"characters, {verdict}. {states}. Medians over seeds (never: the change does not halve within "
        "the window):",
        "",
        markdown_table(medians.astype(object).where(medians != math.inf, "never")),
    ]


def render_protocol_section(reference: str | Path, workflow: str | Path = ".") -> str:
    """The section, between its markers (docs/protocol-scoreboard.md) or bare (``docs/results.md``)."""
    reference, workflow = Path(reference), Path(workflow)
    published = published_values(workflow)
    lines = [
        "The study published neither its optimizer, nor its learning rate, nor its corpus file. Each part "
        "below is generated from the reference run's tables by `python -m gatedrnn.reference pages`.",
        "",
        "### Regimes scored against the study",
        "",
        *scoreboard_part(reference),
        "",
        "### A smaller corpus",
        "",
        *corpus_size_part(reference, published),
        "",
        "### The alphabet",
        "",
        *alphabet_part(reference),
        "",
        f"### {INVERSION_HEADING}",
        "",
        *forget_bias_part(reference),
    ]
    return "\n".join(lines).rstrip() + "\n"


def replace_protocol_section(page: str, section: str, where: str = "docs/protocol-scoreboard.md") -> str:
    return replace_block(
        page, PROTOCOL_BEGIN, PROTOCOL_END, f"{PROTOCOL_BEGIN}\n{section}{PROTOCOL_END}", where
    )
