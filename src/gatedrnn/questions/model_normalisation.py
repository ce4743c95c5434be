"""G7. What the normalisation changes: the study's model against today's old one.

The study's parameter counts pin its model (``Embedding(100, 128) -> cell ->
LayerNorm(H) -> Linear(H, 100)``, docs/experiments.md); every trained table this
workflow made before trained ``Embedding(V, 128) -> cell -> Linear(H, V)`` on the
corpus's own V. The comparison's three models (the reference LSTM, the GRU at the
same width, the GRU on the same budget) are trained under both, at the grid's
seeds, and the tables the ledger reads from those models are made from either set
of runs by the same rules (the old model's under ``results/model_normalisation/tables/``).

One table, ``results/tables/model_normalisation.csv``, a row per ``kind`` (``ledger_table``:
the ledger table it reads):

- ``value``: one number of a ledger table under both models (``study_model``,
  ``old_model``; ``difference`` = old minus study): the comparison's median best
  validation losses (D3), the LSTM's gate means (C2), the GRU's (D1), the D4 split;
- ``verdict``: one published claim that reads only the overlaid tables, judged on
  each model's tables as the ledger judges it (``study_verdict``, ``old_verdict``,
  ``changed``), with its reproduced value under each;
- ``summary``: ``verdicts_changed``, how many of those verdicts change (in
  ``old_model``; ``study_model`` holds how many were judged).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from gatedrnn.questions.common import fmt, signed

GRU_VS_LSTM = "gru_vs_lstm.csv"
SPLIT = "gru_advantage_split.csv"
LSTM_GATES = "lstm_gates.csv"
GRU_GATES = "gru_gates.csv"
COLUMNS = [
    "kind",
    "ledger_table",
    "quantity",
    "model",
    "study_model",
    "old_model",
    "difference",
    "study_verdict",
    "old_verdict",
    "changed",
]


def value_rows(study: Mapping[str, pd.DataFrame], old: Mapping[str, pd.DataFrame]) -> list[dict]:
    """The losses (D3 medians), the gate means (C2, D1; the seeds' mean) and the D4
    split, read alike from each model's tables (keyed by file name)."""
    rows = []

    def add(table: str, quantity: str, model: str, pick) -> None:
        a, b = pick(study[table]), pick(old[table])
        rows.append(
            {
                "kind": "value",
                "ledger_table": table,
                "quantity": quantity,
                "model": model,
                "study_model": a,
                "old_model": b,
                "difference": b - a,
            }  # fmt: skip
        )

    def median_loss(frame: pd.DataFrame, model: str) -> float:
        return float(frame.set_index("model").loc[model, "median"])

    def gate_mean(frame: pd.DataFrame, model: str, gate: str) -> float:
        return float(frame.loc[(frame["model"] == model) & (frame["gate"] == gate), "mean"].mean())

    def split_value(frame: pd.DataFrame, component: str, column: str) -> float:
        return float(frame.set_index("component").loc[component, column])

    for model in study[GRU_VS_LSTM]["model"]:
        add(GRU_VS_LSTM, "median_best_val_loss", model, lambda t, m=model: median_loss(t, m))
    for table in (LSTM_GATES, GRU_GATES):
        gates = study[table]
        for model in dict.fromkeys(gates["model"]):
            for gate in dict.fromkeys(gates.loc[gates["model"] == model, "gate"]):
                add(table, f"{gate}_mean", model, lambda t, m=model, g=gate: gate_mean(t, m, g))
    for component in study[SPLIT]["component"]:
        for column in ("loss_difference", "share_of_total"):
            add(SPLIT, f"{component}_{column}", "", lambda t, c=component, k=column: split_value(t, c, k))
    return rows


def normalisation_table(
    study: Mapping[str, pd.DataFrame], old: Mapping[str, pd.DataFrame], verdicts: pd.DataFrame
) -> pd.DataFrame:
    """The question's table (module docstring). ``verdicts``: one row per claim,
    ``id, table, study_value, old_value, study_verdict, old_verdict``
    (:func:`gatedrnn.claims.overlay.verdicts_on_both`)."""
    rows = value_rows(study, old)
    for claim in verdicts.to_dict("records"):
        rows.append(
            {
                "kind": "verdict",
                "ledger_table": claim["table"],
                "quantity": claim["id"],
                "model": "",
                "study_model": claim["study_value"],
                "old_model": claim["old_value"],
                "difference": claim["old_value"] - claim["study_value"],
                "study_verdict": claim["study_verdict"],
                "old_verdict": claim["old_verdict"],
                "changed": claim["study_verdict"] != claim["old_verdict"],
            }
        )
    changed = int(sum(row.get("changed") is True for row in rows))
    rows.append(
        {
            "kind": "summary",
            "ledger_table": "",
            "quantity": "verdicts_changed",
            "model": "",
            "study_model": float(len(verdicts)),
            "old_model": float(changed),
        }  # fmt: skip
    )
    return pd.DataFrame(rows).reindex(columns=COLUMNS)


def model_normalisation_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence: the losses, the LSTM's forget mean and the D4 structure share
    under both models, and which verdicts change."""
    values = table[table["kind"] == "value"]

    def pair(table_name: str, quantity: str, model: str | None = None) -> str:
        row = values[(values["ledger_table"] == table_name) & (values["quantity"] == quantity)]
        if model is not None:
            row = row[row["model"] == model]
        if row.empty:
            return "n/a"
        row = row.iloc[0]
        return f"{fmt(row['study_model'])} / {fmt(row['old_model'])} ({signed(row['difference'])})"

    losses = values[values["ledger_table"] == GRU_VS_LSTM]
    loss_text = ", ".join(f"{m} {pair(GRU_VS_LSTM, 'median_best_val_loss', m)}" for m in losses["model"])
    lstm = values.loc[values["ledger_table"] == LSTM_GATES, "model"]
    gru = values.loc[values["ledger_table"] == GRU_GATES, "model"]
    gates_text = f"LSTM forget mean {pair(LSTM_GATES, 'forget_mean', lstm.iloc[0] if len(lstm) else '')}"
    gates_text += f", GRU update mean {pair(GRU_GATES, 'update_mean', gru.iloc[0] if len(gru) else '')}"
    summary = table[(table["kind"] == "summary") & (table["quantity"] == "verdicts_changed")].iloc[0]
    changed = table[(table["kind"] == "verdict") & (table["changed"].astype(str) == "True")]
    changes = [
        f"{r['quantity']} {r['study_verdict']} -> {r['old_verdict']}" for r in changed.to_dict("records")
    ]
    change_text = "; ".join(changes) if changes else "none"
    return [
        "The study's model (LayerNorm before the read-out, the 100 printable symbols) against "
        "today's old one (no normalisation, the corpus's own alphabet), study / old (old minus "
        f"study): median best validation loss {loss_text}; {gates_text}; D4 structure share "
        f"{pair(SPLIT, 'structure_share_of_total')}. Of the {int(summary['study_model'])} published "
        f"verdicts that read these tables, {int(summary['old_model'])} change when the old model's "
        f"tables stand in ({change_text})."
    ]
