"""The plan of runs: a validated config turned into every run, file name and target.

Pure Python (no Snakemake, no torch), so the plan is unit-tested without a dry run
(tests/test_plan.py); the rules files only call it:

    PLAN = Plan.from_config(config)
    PLAN.grid_files("summary.json", models=PLAN.comparison)
    PLAN.targets["gates"]

Model names come from :mod:`gatedrnn.core.conventions`, file paths from
:mod:`gatedrnn.plan.paths`, regimes from :mod:`gatedrnn.plan.regimes`, and the runs of
the open questions from :mod:`gatedrnn.plan.questions`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from gatedrnn.core import conventions
from gatedrnn.plan.cells import cell_analyses_targets, cell_names, cell_path
from gatedrnn.plan.checks import ConfigError, check_plan, refuse_non_finite
from gatedrnn.plan.paths import (
    ALPHABET_CHECK,
    ANY_RUN,
    CLAIMS_TARGETS,
    CLOSED_FORM_TARGETS,
    CORPUS,
    CORPUS_INVENTORY,
    CORPUS_PROVENANCE,
    CORPUS_SIZE,
    CORPUS_STEM,
    DATASETS,
    GATE_TARGETS,
    OPEN_QUESTION_FIGURES,
    OPEN_QUESTION_TABLES,
    OPEN_QUESTIONS_REPORT,
    PROTOCOL_CONFIRMATION,
    PROTOCOL_FIGURE,
    PROTOCOL_ROUND_TWO,
    PROTOCOL_ROUND_TWO_FIGURE,
    PROTOCOL_ROUND_TWO_FRONT,
    PROTOCOL_ROUND_TWO_PLAN,
    PROTOCOL_SCOREBOARD,
    PROTOCOL_TABLES,
    REGIME_SENSITIVITY,
    REGIME_SWEEP_FIGURE,
    TABLE_TARGETS,
    Run,
    checkpoint_dir,
    dataset_files,
    gate_file,
    log_file,
    model_dir,
    model_file,
    run_files,
)
from gatedrnn.plan.protocol_runs import ProtocolRuns
from gatedrnn.plan.published import published_tables
from gatedrnn.plan.questions import QuestionRuns, enabled_questions, question_runs
from gatedrnn.plan.regimes import (
    TRAIN_CONFIG_KEYS,
    all_regimes,
    check_forget_bias_sweep,
    corpus_size_points,
    dataset_of,
    sweep_points,
    train_config_with,
)
from gatedrnn.plan.resources import train_mem_mb
from gatedrnn.train.prefix import prefix_regime

__all__ = [
    "ALPHABET_CHECK",
    "ANY_RUN",
    "CORPUS",
    "CORPUS_SIZE",
    "PROTOCOL_CONFIRMATION",
    "PROTOCOL_FIGURE",
    "PROTOCOL_ROUND_TWO",
    "PROTOCOL_ROUND_TWO_FIGURE",
    "PROTOCOL_ROUND_TWO_FRONT",
    "PROTOCOL_ROUND_TWO_PLAN",
    "PROTOCOL_SCOREBOARD",
    "CORPUS_INVENTORY",
    "CORPUS_PROVENANCE",
    "CORPUS_STEM",
    "DATASETS",
    "ConfigError",
    "REGIME_SENSITIVITY",
    "TRAIN_CONFIG_KEYS",
    "Plan",
    "QuestionRuns",
    "Run",
    "checkpoint_dir",
    "gate_file",
    "log_file",
    "model_dir",
    "model_file",
    "published_tables",
    "run_files",
]

Model = tuple[str, int | str]  # (cell, width): width an integer or "budget"


@dataclass(frozen=True, eq=False)
class Plan(ProtocolRuns):
    """Every run and file of one config. Build it with :meth:`from_config`."""

    config: Mapping
    # Every regime a model can train under: the configured ones, then the sweep's new points.
    regimes: Mapping[str, Mapping]
    # The regime sweep's (optimizer, lr, steps) points: {regime, optimizer, lr, steps}.
    sweep_points: tuple[dict, ...]
    # The same optimizer points on the small corpus (protocol.small_corpus), with `dataset`.
    corpus_size_points: tuple[dict, ...] = ()

    @classmethod
    def from_config(cls, config: Mapping) -> Plan:
        """The plan of a schema-valid config. Refuses (ValueError, saying the fix) a sweep
        point whose name is taken, a forget-bias sweep regime that is undefined or not on
        the corpus, an enabled open question whose regime is undefined or on the wrong
        dataset, and a copy distance longer than the windows; then (ConfigError, every
        problem at once) whatever else breaks a constraint the documentation states
        (:mod:`gatedrnn.plan.checks`). A NaN or infinite number is refused first."""
        refuse_non_finite(config)
        points = sweep_points(config)
        size_points = corpus_size_points(config)
        regimes = all_regimes(config, points + size_points)
        check_forget_bias_sweep(config)
        plan = cls(config, regimes, tuple(points), tuple(size_points))
        plan.questions  # noqa: B018 (plans, and checks, the open questions now, not at first use)
        plan.round_two_regimes  # noqa: B018 (and round two's names)
        check_plan(plan)
        return plan

    @cached_property
    def questions(self) -> QuestionRuns:
        """The runs each open question reads."""
        return question_runs(
            self.config,
            model_id=self.model_id,
            comparison=[self.model_id(*m) for m in self.comparison],
            train_config=self.train_config,
        )

    # --------------------------------------------------------------- models and names

    @property
    def reference_width(self) -> int:
        return self.config["grid"]["reference_width"]

    @property
    def seeds(self) -> list[int]:
        return self.config["grid"]["seeds"]

    @property
    def grid(self) -> list[Model]:
        return [(m["cell"], m["width"]) for m in self.config["grid"]["models"]]

    # The three models of the GRU-against-LSTM comparison (D3, D4), and E1's RNN.
    @property
    def reference_lstm(self) -> Model:
        return ("lstm", self.reference_width)

    @property
    def width_matched_gru(self) -> Model:
        return ("gru", self.reference_width)

    budget_matched_gru: ClassVar[Model] = ("gru", "budget")
    budget_matched_rnn: ClassVar[Model] = ("rnn", "budget")

    @property
    def comparison(self) -> list[Model]:
        return [self.reference_lstm, self.budget_matched_gru, self.width_matched_gru]

    @property
    def decay_models(self) -> list[Model]:
        """E1's three cells: the reference LSTM and the budget-matched GRU and RNN."""
        return [self.reference_lstm, self.budget_matched_gru, self.budget_matched_rnn]

    @property
    def sweep_models(self) -> list[Model]:
        """The regime sweep's two models."""
        return [self.reference_lstm, self.budget_matched_gru]

    def model_id(self, cell: str, width: int | str, reference: int | None = None) -> str:
        """``<cell>_<width token>``; width "budget" is matched to the LSTM at `reference`
        (default grid.reference_width)."""
        return conventions.model_id(cell, width, self.reference_width if reference is None else reference)

    def cell_path(self, name: str) -> str:
        """A plug-in's import path for its file name's cell ``name``; a built-in's name."""
        return cell_path(self.config, name)

    @property
    def comparison_ids(self) -> dict[str, str]:
        """The comparison's three model ids by role (D3, D4; the two-layer question)."""
        return {
            "reference_lstm": self.model_id(*self.reference_lstm),
            "width_matched_gru": self.model_id(*self.width_matched_gru),
            "budget_matched_gru": self.model_id(*self.budget_matched_gru),
        }

    @property
    def claim_models(self) -> dict[str, str]:
        """What published.yaml's {placeholders} stand for under this config."""
        return {**self.comparison_ids, "budget_matched_rnn": self.model_id(*self.budget_matched_rnn)}

    # ------------------------------------------------------------------ runs and files

    def runs(self, models: Iterable[Model], regime: str = "default", seeds=None) -> tuple[Run, ...]:
        """Every (model, seed) under one regime, model-major."""
        seeds = self.seeds if seeds is None else seeds
        return tuple(Run(regime, self.model_id(*model), seed) for model in models for seed in seeds)

    def model_dir(self, regime: str, cell: str, width: int | str, seed: int) -> str:
        return model_dir(Run(regime, self.model_id(cell, width), seed))

    def grid_files(self, name: str, models=None, regime: str = "default", seeds=None) -> list[str]:
        """One file (model.pt, history.csv, summary.json) of every (model, seed); the grid's by default."""
        return run_files(self.runs(self.grid if models is None else models, regime, seeds), name)

    def gate_files(self, models, suffix: str = "npz", regime: str = "default", seeds=None) -> list[str]:
        """The saved probe gates (or manual-step checks, ``check.json``) of every (model, seed)."""
        return [gate_file(run, suffix) for run in self.runs(models, regime, seeds)]

    @property
    def forget_bias_sweep_runs(self) -> tuple[Run, ...]:
        """E3: the reference LSTM under every regime of the forget-bias sweep, regime-major."""
        sweep = self.config["forget_bias_sweep"]
        return tuple(
            run
            for regime in sweep["regimes"]
            for run in self.runs([self.reference_lstm], regime, sweep["seeds"])
        )

    def sweep_files(self, name: str) -> list[str]:
        """One file of every model of the forget-bias sweep (regime x seed)."""
        return run_files(self.forget_bias_sweep_runs, name)

    @property
    def forget_biases(self) -> dict[str, float | None]:
        """The initial forget bias of each forget-bias sweep regime (None: PyTorch's default)."""
        return {r: self.train_config(r)["forget_bias"] for r in self.config["forget_bias_sweep"]["regimes"]}

    @property
    def regime_sweep_runs(self) -> tuple[Run, ...]:
        """Every model of the regime sweep: point, then model, then seed."""
        seeds = self.config["regime_sweep"]["seeds"]
        return tuple(
            run for point in self.sweep_points for run in self.runs(self.sweep_models, point["regime"], seeds)
        )

    def regime_sweep_files(self, name: str) -> list[str]:
        """One file of every model of the regime sweep: a model directory's `name`, or its gates."""
        return run_files(self.regime_sweep_runs, name)

    @property
    def training_runs(self) -> tuple[Run, ...]:
        """Every run `rule all` trains, each once, in first-needed order: the grid, the
        comparison and E1's models, the forget-bias sweep, the regime sweep, and the
        enabled open questions."""
        needed = [
            self.runs(self.grid),
            self.runs(self.comparison),
            self.runs(self.decay_models),
            self.forget_bias_sweep_runs,
            self.regime_sweep_runs,
            *(self.questions.of(question) for question in self.enabled_questions),
            self.corpus_size_runs,
        ]
        return tuple(dict.fromkeys(run for runs in needed for run in runs))

    @property
    def gate_runs(self) -> tuple[Run, ...]:
        """Every run whose probe gates `rule all` reads: the grid (C1), the reference LSTM
        and the budget-matched GRU (C2-D5), the regime sweep, longer training (G4), the old
        model's LSTM and budget GRU (G7), and the tied-gate LSTMs (G8)."""
        needed = [self.runs(self.grid), self.runs(self.sweep_models), self.regime_sweep_runs]
        for question in ("longer_training", "coupled_gates"):  # in a fixed order
            needed += [self.questions.of(question)] if question in self.enabled_questions else []
        if "model_normalisation" in self.enabled_questions:
            regime = self.config["open_questions"]["model_normalisation"]["regime"]
            needed.append(self.runs(self.sweep_models, regime))
        needed.append(self.corpus_size_runs)
        return tuple(dict.fromkeys(run for runs in needed for run in runs))

    # ---------------------------------------------------------------------- regimes

    def overrides(self, regime: str) -> Mapping:
        """A regime's overrides of `train` (and dataset): round one's, or round two's."""
        return self.regimes[regime] if regime in self.regimes else self.round_two_regimes[regime]

    def train_config(self, regime: str) -> dict:
        """The `train` keys that shape a model, with the regime's overrides applied."""
        return train_config_with(self.config["train"], self.overrides(regime))

    def dataset(self, regime: str) -> str:
        return dataset_of(self.overrides(regime))

    def corpus(self, regime: str) -> dict[str, str]:
        """{corpus, provenance}: the text files a regime's models train on."""
        return dataset_files(self.dataset(regime))

    def train_mem_mb(self, run: Run, provenance: Mapping, limit: tuple[int, str] | None = None) -> int:
        """The memory (MB) a training job asks of the scheduler (gatedrnn.plan.resources),
        on the corpus its regime trains on (``provenance``: that corpus.json); refused
        above ``limit`` (MB, what sets it)."""
        cell, token = run.model.rsplit("_", 1)  # cells may hold "_" (gru_noreset)
        cell, configured = self.cell_path(cell), self.config["train"]["mem_mb"]
        return train_mem_mb(configured, cell, token, self.train_config(run.regime), provenance, limit)

    def prefix_regime(self, regime: str) -> str | None:
        """The regime whose run is this regime's first steps (gatedrnn.train.prefix), among
        round one's regimes: a round-two regime's shorter sibling may not be planned."""
        names = [*self.regimes, *([regime] if regime not in self.regimes else [])]
        trains = {name: self.train_config(name) | {"dataset": self.dataset(name)} for name in names}
        return prefix_regime(trains, regime)

    def prefix_files(self, run: Run) -> list[str]:
        """The summary of the run a job starts from (none or one): the same model and seed
        under :meth:`prefix_regime`; the job reads that run's final state."""
        shorter = self.prefix_regime(run.regime)
        return [] if shorter is None else [model_file(Run(shorter, run.model, run.seed), "summary.json")]

    @property
    def wildcard_constraints(self) -> dict[str, str]:
        """What each wildcard of a run's files may be: a planned regime, a cell, a width
        token (w325, budget325), a seed."""
        return {
            "regime": "|".join(re.escape(name) for name in [*self.regimes, *self.round_two_regimes]),
            "cell": "|".join(cell_names(self.config)),
            "width": "w[1-9][0-9]*|budget[1-9][0-9]*",
            "seed": "[0-9]+",
            "chars": "[1-9][0-9]*",  # a round-two corpus size
        }

    # ---------------------------------------------------------------------- targets

    @property
    def enabled_questions(self) -> list[str]:
        return enabled_questions(self.config)

    @property
    def open_question_tables(self) -> list[str]:
        """The enabled questions' tables, in report order."""
        enabled = self.enabled_questions
        return [table for question, table in OPEN_QUESTION_TABLES.items() if question in enabled]

    @property
    def targets(self) -> dict[str, list[str]]:
        """What `rule all` asks of each stage under this config."""
        enabled = self.enabled_questions
        questions = self.open_question_tables + [
            figure for question, figure in OPEN_QUESTION_FIGURES.items() if question in enabled
        ]
        return {
            "tables": list(TABLE_TARGETS),
            "closed_form": list(CLOSED_FORM_TARGETS),
            "gates": list(GATE_TARGETS) + cell_analyses_targets(self.grid),
            "claims": list(CLAIMS_TARGETS),
            "open_questions": questions + [OPEN_QUESTIONS_REPORT] if questions else [],
            "regime_sweep": [REGIME_SENSITIVITY, REGIME_SWEEP_FIGURE] if self.sweep_points else [],
            "protocol": self.protocol_targets,
        }

    @property
    def protocol_targets(self) -> list[str]:
        """Which protocol reproduces the study (`protocol`): its tables (PROTOCOL_TABLES), the figure."""
        if not self.protocol_enabled:
            return []
        round_two = [
            PROTOCOL_ROUND_TWO_PLAN,
            PROTOCOL_ROUND_TWO,
            PROTOCOL_ROUND_TWO_FRONT,
            PROTOCOL_ROUND_TWO_FIGURE,
        ]
        round_two = round_two if self.round_two_enabled else []
        return [ALPHABET_CHECK, CORPUS_SIZE, *PROTOCOL_TABLES, PROTOCOL_FIGURE, *round_two]

    def claims_tables(self, published: str, new_findings: str) -> list[str]:
        """The tables the claims ledger reads: every table published.yaml names, and
        those of the enabled questions' new findings."""
        return sorted(
            set(published_tables(published)) | set(published_tables(new_findings, self.enabled_questions))
        )
