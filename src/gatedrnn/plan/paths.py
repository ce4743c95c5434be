"""Where every file of the workflow lives: one trained run's files, the corpora, the
stage targets that do not depend on the config.

A run is one model of one seed under one regime (:class:`Run`); its files are named
by :func:`gatedrnn.core.conventions.run_name`. The same functions give the rules'
wildcard patterns: ``model_file(ANY_RUN, "model.pt")`` is
``results/models/{regime}/{cell}_{width}_s{seed}/model.pt``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from gatedrnn.core.conventions import run_name

CORPUS_STEM = "data/corpus"
CORPUS = f"{CORPUS_STEM}.txt"
CORPUS_PROVENANCE = f"{CORPUS_STEM}.json"

# The texts a regime can train on (its `dataset`, default "default"): the corpus
# of `corpus`, or the copy task of open_questions.long_memory.
DATASETS = {
    "default": {"corpus": CORPUS, "provenance": CORPUS_PROVENANCE},
    "long_memory": {
        "corpus": "data/long_memory/corpus.txt",
        "provenance": "data/long_memory/corpus.json",
    },
    # the corpus-size axis (protocol.small_corpus): the first characters of the corpus
    "small_corpus": {
        "corpus": "data/small_corpus/corpus.txt",
        "provenance": "data/small_corpus/corpus.json",
    },
}

# Round two's corpus sizes (protocol.round_two.small_corpus_chars): the corpus's first
# characters as the small corpus, one folder each (small_corpus_<chars>).
SIZED_SMALL_CORPUS = re.compile(r"small_corpus_(?P<chars>[1-9][0-9]*)")


def sized_small_corpus_files(chars: int | str) -> dict[str, str]:
    """{corpus, provenance} of the corpus's first ``chars`` characters (``"{chars}"``: the
    rule's pattern)."""
    folder = f"data/small_corpus_{chars}"
    return {"corpus": f"{folder}/corpus.txt", "provenance": f"{folder}/corpus.json"}


def dataset_files(name: str) -> dict[str, str]:
    """{corpus, provenance}: the files of a dataset (``DATASETS``, or a round-two size)."""
    if name in DATASETS:
        return DATASETS[name]
    if not (sized := SIZED_SMALL_CORPUS.fullmatch(name)):
        raise KeyError(f"no dataset {name!r}")
    return sized_small_corpus_files(sized["chars"])


# What the corpus source holds, member by member (the alphabet check's input).
CORPUS_INVENTORY = f"{CORPUS_STEM}_inventory.json"

LOGS = "results/logs"
# one small file per regime sweep model (seed_row_file), collected with the tables
SEED_ROWS = "results/regime_runs"
# The regime sweep's table; the claims ledger reads it when the sweep runs.
REGIME_SENSITIVITY = "results/tables/regime_sensitivity.csv"
# Which protocol did the study use (`protocol`): the regime sweep's optimizer points on
# the small corpus (the regime table's layout), every regime scored against the
# published numbers, the best regimes again over more seeds, and the figure.
CORPUS_SIZE = "results/tables/corpus_size.csv"
PROTOCOL_SCOREBOARD = "results/tables/protocol_scoreboard.csv"
PROTOCOL_CONFIRMATION = "results/tables/protocol_confirmation.csv"
# the confirmed regimes' regime-table rows (their seeds' means): round two reads them too
PROTOCOL_CONFIRMATION_REGIMES = "results/tables/protocol_confirmation_regimes.csv"
PROTOCOL_FIGURE = "results/figures/protocol_scoreboard.png"
# The protocol distance (gatedrnn.claims.front): every regime's loss and gate distance
# from its first seeds (the checkpoint's), and again with the confirmed regimes' seeds.
PROTOCOL_DISTANCE = "results/tables/protocol_distance.csv"
PROTOCOL_FRONT = "results/tables/protocol_front.csv"
# In the order the rules write them: the scoreboard and distances, the confirmation, the front.
PROTOCOL_TABLES = (PROTOCOL_SCOREBOARD, PROTOCOL_DISTANCE, PROTOCOL_CONFIRMATION, PROTOCOL_FRONT)
# Round two (gatedrnn.plan.round_two): the points the front asks for (a checkpoint), and
# every regime of both rounds measured again, round two's with their axis.
PROTOCOL_ROUND_TWO_PLAN = "results/tables/protocol_round_two_plan.csv"
PROTOCOL_ROUND_TWO = "results/tables/protocol_round_two.csv"
# round two's regime-table rows (its seeds' means), for its confirmation
PROTOCOL_ROUND_TWO_REGIMES = "results/tables/protocol_round_two_regimes.csv"
# Round two's confirmation: the regimes on the front of both rounds and near it at every
# seed of protocol.confirm.seeds (their rows), and both rounds measured again.
PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES = "results/tables/protocol_round_two_confirmation_regimes.csv"
PROTOCOL_ROUND_TWO_FRONT = "results/tables/protocol_round_two_front.csv"
# the front of both rounds, drawn as round one's (round two's points as squares)
PROTOCOL_ROUND_TWO_FIGURE = "results/figures/protocol_round_two_front.png"


class Run(NamedTuple):
    """One trained model: ``model`` is a model id (``gru_budget325``)."""

    regime: str
    model: str
    seed: int | str

    @property
    def name(self) -> str:
        """``<model id>_s<seed>``: the run's directory and file stem."""
        return run_name(self.model, self.seed)

    @property
    def path(self) -> str:
        """``<regime>/<model id>_s<seed>``: where the run's files sit under each results folder."""
        return f"{self.regime}/{self.name}"

    @classmethod
    def of(cls, wildcards) -> Run:
        """The run a rule job's ``regime``, ``cell``, ``width``, ``seed`` wildcards name."""
        return cls(wildcards.regime, f"{wildcards.cell}_{wildcards.width}", wildcards.seed)


# Every run, as the rules' wildcards: {width} is already a width token (w325, budget325).
ANY_RUN = Run("{regime}", "{cell}_{width}", "{seed}")


def model_dir(run: Run) -> str:
    return f"results/models/{run.path}"


def model_file(run: Run, name: str) -> str:
    """One file of a trained model's directory (model.pt, history.csv, summary.json)."""
    return f"{model_dir(run)}/{name}"


def gate_file(run: Run, suffix: str = "npz") -> str:
    """A run's probe gates (``npz``) or their manual step check (``check.json``)."""
    return f"results/gates/{run.path}.{suffix}"


def seed_row_file(run: Run) -> str:
    """A regime sweep model's seed row: the statistics its point's table averages
    (:func:`gatedrnn.tables.regime_sweep.seed_row`), small enough to collect."""
    return f"{SEED_ROWS}/{run.path}.json"


def checkpoint_dir(run: Run) -> str:
    return f"results/checkpoints/{run.path}"


def run_files(runs: Iterable[Run], name: str) -> list[str]:
    """One file of every run: a model directory's `name`, its probe gates (``gates``) or
    its seed row (``seed_row``)."""
    if name == "gates":
        return [gate_file(run) for run in runs]
    if name == "seed_row":
        return [seed_row_file(run) for run in runs]
    return [model_file(run, name) for run in runs]


def log_file(name: str) -> str:
    """A rule's log: ``results/logs/<name>.log``."""
    return f"{LOGS}/{name}.log"


# The stage targets that are the same under every config.
TABLE_TARGETS = (
    "results/tables/matched_widths.csv",
    "results/tables/gru_vs_lstm.csv",
    "results/tables/gru_advantage_split.csv",
    "results/tables/val_loss_curves.csv",
    "results/figures/val_loss_curves.png",
)
CLOSED_FORM_TARGETS = (
    "results/tables/highway.csv",
    "results/tables/forget_bias_init.csv",
    "results/tables/cell_step_example.csv",
    "results/tables/param_counts.csv",
    "results/tables/gru_reset_placement.csv",
    "results/tables/gru_reset_placement_check.csv",
    "results/tables/grad_reach_init.csv",
    "results/figures/grad_reach_init.png",
    "results/figures/highway.png",
)
GATE_TARGETS = (
    "results/tables/manual_step_check.csv",
    "results/tables/lstm_gates.csv",
    "results/tables/lstm_forget_units.csv",
    "results/tables/lstm_cell_decay.csv",
    "results/tables/lstm_forget_by_char.csv",
    "results/tables/gru_gates.csv",
    "results/tables/lstm_coupling.csv",
    "results/tables/lstm_coupling_histogram.csv",
    "results/tables/unit_half_lives.csv",
    "results/tables/unit_gate_means.csv",
    "results/tables/hidden_perturbation_decay.csv",
    "results/tables/forget_bias_sweep.csv",
    "results/tables/forget_bias_memory_check.csv",
    "results/figures/lstm_cell_decay.png",
    "results/figures/gru_vs_lstm_gates.png",
    "results/figures/hidden_perturbation_decay.png",
    "results/figures/forget_bias_sweep.png",
)
# Every analysis of the grid's models by declared gates, when the grid holds a cell beyond
# the study's three (gatedrnn.tables.cells).
CELL_ANALYSES = "results/tables/cell_analyses.csv"
STUDY_CELLS = ("rnn", "gru", "lstm")
CLAIMS_TARGETS = ("results/claims.csv", "results/claims.md", "results/claims.html")
REGIME_SWEEP_FIGURE = "results/figures/regime_sensitivity.png"
# The protocol questions (issue #17): the alphabet the study's parameter counts imply.
ALPHABET_CHECK = "results/tables/alphabet_check.csv"

# Each open question's table and figure (open_questions.smk), in report order.
OPEN_QUESTION_TABLES = {
    "reset_gate": "results/tables/open_reset_gate.csv",
    "split_by_width": "results/tables/split_by_width.csv",
    "two_layers": "results/tables/two_layers.csv",
    "longer_training": "results/tables/longer_training.csv",
    "cho_gru": "results/tables/cho_vs_pytorch_gru.csv",
    "long_memory": "results/tables/long_memory.csv",
    "model_normalisation": "results/tables/model_normalisation.csv",
    "coupled_gates": "results/tables/coupled_gates.csv",
}
# G7: the tables the ledger reads from the comparison's models, made again from the
# models of the question's regime (today's old model) by the same rules.
MODEL_NORMALISATION_DIR = "results/model_normalisation/tables"
MODEL_NORMALISATION_TABLES = (
    "gru_vs_lstm.csv",
    "gru_advantage_split.csv",
    "lstm_gates.csv",
    "lstm_forget_units.csv",
    "lstm_forget_by_char.csv",
    "lstm_coupling.csv",
    "gru_gates.csv",
    "unit_half_lives.csv",
)
OPEN_QUESTION_FIGURES = {
    "split_by_width": "results/figures/split_by_width.png",
    "longer_training": "results/figures/longer_training.png",
}
OPEN_QUESTIONS_REPORT = "results/open_questions.md"
