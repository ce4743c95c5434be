"""The runs each open question reads (`open_questions` of the config).

Every question's runs are planned whether or not it is enabled (a user may still ask
for its table by name); the switch decides only whether its table is a target, and
whether its regimes are checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from gatedrnn.plan.paths import Run
from gatedrnn.plan.regimes import check_question_regime, default_corpus_counterpart


def runs_of(regime_models: Iterable[tuple[str, list[str]]], seeds: Iterable[int]) -> tuple[Run, ...]:
    """Every (regime, model id, seed), in one fixed order: regime, model, seed."""
    seeds = list(seeds)
    return tuple(
        Run(regime, model, seed) for regime, models in regime_models for model in models for seed in seeds
    )


@dataclass(frozen=True)
class QuestionRuns:
    """The runs of every open question, by what the question's rule reads."""

    # 1. The reset gate: the budget GRU with r pinned to 1; gru_noreset against gru.
    reset_pinned: tuple[Run, ...]
    reset_noreset: tuple[Run, ...]
    reset_gru: tuple[Run, ...]
    # 2. The structure/width split with the LSTM at other reference widths.
    split_by_width: tuple[Run, ...]
    # 3. The comparison's three models at one layer and under the two-layer regime.
    two_layers: tuple[Run, ...]
    # 4. The default protocol and the regime with more steps.
    longer_training: tuple[Run, ...]
    # 5. The Cho GRU against nn.GRU: {cho_gru model id: gru model id} and their runs.
    cho_pairs: dict[str, str]
    cho_gru: tuple[Run, ...]
    # 6. The copy task: forget-bias regimes train the LSTM only; each regime's corpus
    # counterpart (same overrides on the corpus, or None) and its runs.
    long_memory: tuple[Run, ...]
    long_memory_counterparts: dict[str, str | None]
    long_memory_counterpart_runs: tuple[Run, ...]
    # 7. The comparison's three models under the old model's regime, at the grid's seeds
    # (the study's model: the grid's own runs).
    model_normalisation: tuple[Run, ...] = ()
    # 8. The tied-gate LSTM (cifg) at the reference LSTM's width and budget, beside the
    # grid's reference LSTM and budget GRU, at the grid's seeds; the cifg runs alone.
    coupled_gates: tuple[Run, ...] = ()
    coupled_gates_cifg: tuple[Run, ...] = ()

    def of(self, question: str) -> tuple[Run, ...]:
        """Every run one question's rule reads (its trained models, counterparts included)."""
        return {
            "reset_gate": self.reset_pinned + self.reset_noreset + self.reset_gru,
            "split_by_width": self.split_by_width,
            "two_layers": self.two_layers,
            "longer_training": self.longer_training,
            "cho_gru": self.cho_gru,
            "long_memory": self.long_memory + self.long_memory_counterpart_runs,
            "model_normalisation": self.model_normalisation,
            "coupled_gates": self.coupled_gates,
        }[question]


def question_runs(
    config: Mapping,
    model_id: Callable[..., str],
    comparison: list[str],
    train_config: Callable[[str], dict],
) -> QuestionRuns:
    """The runs of every open question. `model_id(cell, width[, reference])` names a
    model; `comparison` is the comparison's three model ids; `train_config(regime)` is
    a regime's `train` settings. Refuses an enabled question whose regime is undefined
    or on the wrong dataset, and a copy distance no window holds."""
    questions = config["open_questions"]

    reset = questions["reset_gate"]
    reset_pinned = runs_of([("default", [model_id("gru", "budget")])], reset["seeds"])
    reset_noreset = runs_of(
        [("default", [model_id("gru_noreset", w) for w in reset["widths"]])], reset["seeds"]
    )
    reset_gru = runs_of([("default", [model_id("gru", w) for w in reset["widths"]])], reset["seeds"])

    split = questions["split_by_width"]
    split_runs = runs_of(
        [
            ("default", [model_id("lstm", r, r), model_id("gru", r, r), model_id("gru", "budget", r)])
            for r in split["reference_widths"]
        ],
        split["seeds"],
    )

    two = questions["two_layers"]
    two_regime = check_question_regime(config, "two_layers", two["regime"])
    two_runs = runs_of([("default", comparison), (two_regime, comparison)], two["seeds"])

    longer = questions["longer_training"]
    longer_ids = [model_id(m["cell"], m["width"]) for m in longer["models"]]
    longer_regime = check_question_regime(config, "longer_training", longer["regime"])
    longer_runs = runs_of([("default", longer_ids), (longer_regime, longer_ids)], longer["seeds"])

    cho = questions["cho_gru"]
    cho_pairs = {model_id("cho_gru", w): model_id("gru", w) for w in cho["widths"]}
    cho_runs = runs_of([("default", list(cho_pairs) + list(cho_pairs.values()))], cho["seeds"])

    memory = questions["long_memory"]
    memory_runs = []
    for regime in memory["regimes"]:
        check_question_regime(config, "long_memory", regime, dataset="long_memory")
        # a switched-off question may name a regime the config no longer defines
        lstm_only = regime in config["regimes"] and train_config(regime)["forget_bias"] is not None
        memory_runs += [
            Run(regime, model_id(m["cell"], m["width"]), seed)
            for m in memory["models"]
            if m["cell"] == "lstm" or not lstm_only
            for seed in memory["seeds"]
        ]
    counterparts = {
        regime: default_corpus_counterpart(config, regime) if regime in config["regimes"] else None
        for regime in memory["regimes"]
    }
    counterpart_runs = tuple(
        Run(counterparts[run.regime], run.model, run.seed)
        for run in memory_runs
        if counterparts[run.regime] is not None
    )
    if memory["enabled"]:
        check_copy_distance(config, train_config)

    normalisation = questions["model_normalisation"]
    old_regime = check_question_regime(config, "model_normalisation", normalisation["regime"])
    normalisation_runs = runs_of([(old_regime, comparison)], config["grid"]["seeds"])

    # the grid's reference LSTM and budget GRU are reused, not trained again
    reference = config["grid"]["reference_width"]
    cifg_runs = runs_of(
        [("default", [model_id("cifg", reference), model_id("cifg", "budget")])], config["grid"]["seeds"]
    )
    untied_runs = runs_of(
        [("default", [model_id("lstm", reference), model_id("gru", "budget")])], config["grid"]["seeds"]
    )

    return QuestionRuns(
        reset_pinned=reset_pinned,
        reset_noreset=reset_noreset,
        reset_gru=reset_gru,
        split_by_width=split_runs,
        two_layers=two_runs,
        longer_training=longer_runs,
        cho_pairs=cho_pairs,
        cho_gru=cho_runs,
        long_memory=tuple(memory_runs),
        long_memory_counterparts=counterparts,
        long_memory_counterpart_runs=counterpart_runs,
        model_normalisation=normalisation_runs,
        coupled_gates=untied_runs + cifg_runs,
        coupled_gates_cifg=cifg_runs,
    )


def check_copy_distance(config: Mapping, train_config: Callable[[str], dict]) -> None:
    """The copy task's dependency fits in every window its regimes read."""
    memory = config["open_questions"]["long_memory"]
    for regime in memory["regimes"]:
        window = min(train_config(regime)["seq_len"], config["probe"]["length"])
        if memory["distance"] >= window:
            raise ValueError(
                f"open_questions.long_memory.distance is {memory['distance']}, but regime "
                f"{regime!r} reads windows of {window} characters (train.seq_len, probe.length): "
                "no dependency fits in a window; shorten the distance or lengthen the window"
            )


def enabled_questions(config: Mapping) -> list[str]:
    """The open questions switched on, in config order."""
    return [
        question
        for question, settings in config["open_questions"].items()
        if isinstance(settings, dict) and settings.get("enabled")
    ]
