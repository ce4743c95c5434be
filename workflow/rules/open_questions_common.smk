# Helpers of open_questions.smk: the questions' switches, targets, and the
# (regime, model, seed) runs each answer reads.

OPEN_QUESTIONS = config["open_questions"]
LONG_MEMORY = OPEN_QUESTIONS["long_memory"]

OPEN_QUESTION_TABLES = {
    "reset_gate": "results/tables/open_reset_gate.csv",
    "split_by_width": "results/tables/split_by_width.csv",
    "two_layers": "results/tables/two_layers.csv",
    "longer_training": "results/tables/longer_training.csv",
    "cho_gru": "results/tables/cho_vs_pytorch_gru.csv",
    "long_memory": "results/tables/long_memory.csv",
}
OPEN_QUESTION_TARGETS = [
    table
    for question, table in OPEN_QUESTION_TABLES.items()
    if OPEN_QUESTIONS[question]["enabled"]
]
OPEN_QUESTION_FIGURES = {
    "split_by_width": "results/figures/split_by_width.png",
    "longer_training": "results/figures/longer_training.png",
}
OPEN_QUESTION_TARGETS += [
    figure
    for question, figure in OPEN_QUESTION_FIGURES.items()
    if OPEN_QUESTIONS[question]["enabled"]
]
if OPEN_QUESTION_TARGETS:
    OPEN_QUESTION_TARGETS.append("results/open_questions.md")
OPEN_QUESTIONS_CATEGORY = "G. Beyond the study"


def oq_model_id(cell, width, reference=REFERENCE_WIDTH):
    """`<cell>_<token>`; width "budget" is matched to the LSTM at `reference`."""
    token = f"budget{reference}" if width == "budget" else f"w{width}"
    return f"{cell}_{token}"


def oq_runs(regime_models, seeds):
    """(regime, model id, seed) of every run, in one fixed order (regime, model, seed)."""
    return [
        (regime, model, seed)
        for regime, models in regime_models
        for model in models
        for seed in seeds
    ]


def oq_files(runs, name):
    """One file of every run: a model directory's `name`, or `gates` / `gates_check`."""
    if name == "gates":
        return [f"results/gates/{r}/{m}_s{s}.npz" for r, m, s in runs]
    return [f"results/models/{r}/{m}_s{s}/{name}" for r, m, s in runs]


def oq_regime(question, regime, dataset="default"):
    """Refuse a config whose (enabled) question names an undefined regime or one on
    another dataset."""
    if not OPEN_QUESTIONS[question]["enabled"]:
        return regime
    if regime not in config["regimes"]:
        raise ValueError(
            f"open_questions.{question} names regime {regime!r}, which is not under `regimes`"
        )
    if regime_dataset(regime) != dataset:
        raise ValueError(
            f"open_questions.{question}: regime {regime!r} trains on dataset "
            f"{regime_dataset(regime)!r}; it must set dataset: {dataset}"
        )
    return regime


def default_corpus_counterpart(regime):
    """The default-corpus regime with the same training overrides as `regime`, or None."""
    overrides = {k: v for k, v in config["regimes"][regime].items() if k != "dataset"}
    for other, other_overrides in config["regimes"].items():
        if regime_dataset(other) == "default" and other_overrides == overrides:
            return other
    return None


# 1. The reset gate: the budget GRU with r pinned to 1, and gru_noreset trained.
RESET = OPEN_QUESTIONS["reset_gate"]
RESET_PINNED_RUNS = oq_runs(
    [("default", [model_id(*BUDGET_MATCHED_GRU)])], RESET["seeds"]
)
RESET_NORESET_RUNS = oq_runs(
    [("default", [oq_model_id("gru_noreset", w) for w in RESET["widths"]])],
    RESET["seeds"],
)
RESET_GRU_RUNS = oq_runs(
    [("default", [oq_model_id("gru", w) for w in RESET["widths"]])], RESET["seeds"]
)

# 2. The structure/width split with the LSTM at other reference widths.
SPLIT = OPEN_QUESTIONS["split_by_width"]
SPLIT_RUNS = oq_runs(
    [
        ("default", [f"lstm_w{r}", f"gru_w{r}", f"gru_budget{r}"])
        for r in SPLIT["reference_widths"]
    ],
    SPLIT["seeds"],
)

# 3. Two stacked layers: the comparison's three models, one layer and the regime's layers.
TWO_LAYERS = OPEN_QUESTIONS["two_layers"]
COMPARISON_IDS = [model_id(*m) for m in COMPARISON]
TWO_LAYER_RUNS = oq_runs(
    [
        ("default", COMPARISON_IDS),
        (oq_regime("two_layers", TWO_LAYERS["regime"]), COMPARISON_IDS),
    ],
    TWO_LAYERS["seeds"],
)

# 4. Longer training: the default protocol and the regime with more steps.
LONGER = OPEN_QUESTIONS["longer_training"]
LONGER_IDS = [oq_model_id(m["cell"], m["width"]) for m in LONGER["models"]]
LONGER_RUNS = oq_runs(
    [
        ("default", LONGER_IDS),
        (oq_regime("longer_training", LONGER["regime"]), LONGER_IDS),
    ],
    LONGER["seeds"],
)

# 5. The reset-before ("Cho") GRU against nn.GRU at each width.
CHO = OPEN_QUESTIONS["cho_gru"]
CHO_PAIRS = {oq_model_id("cho_gru", w): oq_model_id("gru", w) for w in CHO["widths"]}
CHO_RUNS = oq_runs(
    [("default", list(CHO_PAIRS) + list(CHO_PAIRS.values()))], CHO["seeds"]
)

# 6. Long memory: the copy task; forget-bias regimes train the LSTM only.
LONG_MEMORY_RUNS = [
    (regime, oq_model_id(m["cell"], m["width"]), seed)
    for regime in LONG_MEMORY["regimes"]
    if oq_regime("long_memory", regime, dataset="long_memory")
    for m in LONG_MEMORY["models"]
    if m["cell"] == "lstm" or regime_train_config(regime)["forget_bias"] is None
    for seed in LONG_MEMORY["seeds"]
]
LONG_MEMORY_COUNTERPARTS = {
    regime: default_corpus_counterpart(regime) for regime in LONG_MEMORY["regimes"]
}
LONG_MEMORY_COUNTERPART_RUNS = [
    (LONG_MEMORY_COUNTERPARTS[regime], model, seed)
    for regime, model, seed in LONG_MEMORY_RUNS
    if LONG_MEMORY_COUNTERPARTS[regime] is not None
]

if LONG_MEMORY["enabled"]:
    for _regime in LONG_MEMORY["regimes"]:
        _window = min(
            regime_train_config(_regime)["seq_len"], config["probe"]["length"]
        )
        if LONG_MEMORY["distance"] >= _window:
            raise ValueError(
                f"open_questions.long_memory.distance is {LONG_MEMORY['distance']}, but regime "
                f"{_regime!r} reads windows of {_window} characters (train.seq_len, probe.length): "
                "no dependency fits in a window; shorten the distance or lengthen the window"
            )
