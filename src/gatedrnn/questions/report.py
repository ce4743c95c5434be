"""``results/open_questions.md``: each open question's answer in one sentence (or
one per model) with its numbers, from the per-question sentence builders."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gatedrnn.io.records import read_table
from gatedrnn.questions.cho_gru import cho_gru_sentences
from gatedrnn.questions.common import Log
from gatedrnn.questions.coupled_gates import coupled_gates_sentences
from gatedrnn.questions.long_memory_words import long_memory_sentences
from gatedrnn.questions.longer_training import longer_training_sentences
from gatedrnn.questions.model_normalisation import model_normalisation_sentences
from gatedrnn.questions.reset_gate_words import reset_gate_sentences
from gatedrnn.questions.split_by_width import split_by_width_sentences
from gatedrnn.questions.two_layers import two_layers_sentences

# table file stem -> (section title, sentence builder), in the report's order
REPORT_SECTIONS = {
    "open_reset_gate": ("What the reset gate does", reset_gate_sentences),
    "split_by_width": ("The structure/width split at other widths", split_by_width_sentences),
    "two_layers": ("Two stacked layers", two_layers_sentences),
    "longer_training": ("Training longer", longer_training_sentences),
    "cho_vs_pytorch_gru": ("The reset-before (Cho) GRU", cho_gru_sentences),
    "long_memory": ("A task that needs long memory", long_memory_sentences),
    "model_normalisation": ("What the normalisation changes", model_normalisation_sentences),
    "coupled_gates": ("Does tying the gates cost the LSTM anything?", coupled_gates_sentences),
}


def open_questions_report(tables: dict[str, pd.DataFrame], folder: str = "results/tables") -> str:
    """Markdown: each answer in one sentence (or one per model) with its numbers.

    ``tables`` maps a table's file stem (``open_reset_gate``, ``split_by_width``,
    ``two_layers``, ``longer_training``, ``cho_vs_pytorch_gru``, ``long_memory``,
    ``model_normalisation``, ``coupled_gates``)
    to its frame; missing tables (switched-off questions) are left out. ``folder``:
    where the tables lie, as the report names it (a run's, or ``reference/tables``).
    """
    lines = [
        "## Beyond the study",
        "",
        f"Losses are validation cross-entropy in nats/char (medians over seeds); tables under `{folder}/`.",
        "",
    ]
    for stem, (title, sentences) in REPORT_SECTIONS.items():
        if stem in tables:
            lines.append(f"- **{title}** (`{stem}.csv`). " + " ".join(sentences(tables[stem])))
    return "\n".join(lines) + "\n"


def write_open_questions_report(tables, out, log: Log, note: str = "") -> str:
    """Rule ``open_questions_report``: :func:`open_questions_report` of the CSV
    ``tables`` (keyed by file stem), to ``out``; ``note`` (a toy run's) under its title."""
    folders = {Path(path).parent.as_posix() for path in tables}
    folder = folders.pop() if len(folders) == 1 else "results/tables"
    text = open_questions_report({Path(path).stem: read_table(path) for path in tables}, folder)
    if note:
        title, rest = text.split("\n", 1) if "\n" in text else (text, "")
        text = f"{title}\n\n> **{note}**\n{rest}"
    Path(out).write_text(text)
    log(text)
    return text
