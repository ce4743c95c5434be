# Helpers shared by every rules file: config validation, model naming, inputs.

import re

from snakemake.utils import min_version, validate

min_version("9.0")


validate(config, schema="../schemas/config.schema.yaml")


def refuse_float_integers(config, schema_path):
    """JSON Schema counts 40.0 as an integer; range(), tensor shapes and file names
    (s0.0) do not. Refuse a decimal point wherever the schema asks for an integer."""
    import jsonschema
    import yaml
    from snakemake.exceptions import WorkflowError

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", lambda _, value: type(value) is int)
    strict = jsonschema.validators.extend(base, type_checker=checker)
    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    for error in strict(schema).iter_errors(config):
        key = ".".join(str(part) for part in error.absolute_path)
        raise WorkflowError(
            f"Error validating config file: {key} is {error.instance!r}, not an integer; "
            "write integer settings without a decimal point (40, not 40.0)."
        )


refuse_float_integers(config, f"{workflow.basedir}/workflow/schemas/config.schema.yaml")

TRAIN_CONFIG_KEYS = (
    "optimizer",
    "lr",
    "momentum",
    "batch_size",
    "seq_len",
    "steps",
    "clip_norm",
    "eval_every",
    "val_windows",
    "embed_dim",
    "layers",
    "forget_bias",
)

REFERENCE_WIDTH = config["grid"]["reference_width"]
SEEDS = config["grid"]["seeds"]
CORPUS = "data/corpus.txt"
CORPUS_PROVENANCE = "data/corpus.json"


def width_token(width):
    """Config width to file-name token: 325 -> 'w325'; 'budget' -> 'budget<reference>'."""
    if width == "budget":
        return f"budget{REFERENCE_WIDTH}"
    return f"w{width}"


def model_id(cell, width):
    return f"{cell}_{width_token(width)}"


def model_dir(regime, cell, width, seed):
    return f"results/models/{regime}/{model_id(cell, width)}_s{seed}"


GRID = [(m["cell"], m["width"]) for m in config["grid"]["models"]]

# The three models of the GRU-against-LSTM comparison (D3, D4).
REFERENCE_LSTM = ("lstm", REFERENCE_WIDTH)
WIDTH_MATCHED_GRU = ("gru", REFERENCE_WIDTH)
BUDGET_MATCHED_GRU = ("gru", "budget")
COMPARISON = [REFERENCE_LSTM, BUDGET_MATCHED_GRU, WIDTH_MATCHED_GRU]


def grid_files(name, models=GRID, regime="default", seeds=SEEDS):
    """One file (model.pt, history.csv, summary.json) of every (model, seed)."""
    return [
        f"{model_dir(regime, cell, width, seed)}/{name}"
        for cell, width in models
        for seed in seeds
    ]


# Every regime a model can train under: the config's named regimes, and the
# points of the regime sweep (regime_sweep.smk adds those it does not find here).
REGIMES = dict(config["regimes"])


def train_config_with(overrides):
    """The `train` keys that shape a model, with `overrides` applied."""
    merged = {key: config["train"][key] for key in TRAIN_CONFIG_KEYS}
    merged.update({k: v for k, v in overrides.items() if k in TRAIN_CONFIG_KEYS})
    return merged


def regime_train_config(regime):
    """The `train` keys that shape a model, with the regime's overrides applied."""
    return train_config_with(REGIMES[regime])


# The texts a regime can train on (its `dataset`, default "default"): the corpus
# of `corpus`, or the copy task of open_questions.long_memory (open_questions.smk).
DATASETS = {
    "default": {"corpus": CORPUS, "provenance": CORPUS_PROVENANCE},
    "long_memory": {
        "corpus": "data/long_memory/corpus.txt",
        "provenance": "data/long_memory/corpus.json",
    },
}


def sweep_regime_name(optimizer, lr, steps):
    """The regime of one sweep point: a configured regime that trains the same way on
    the corpus (adam at train.lr for train.steps is `default`), else a new name."""
    wanted = train_config_with({"optimizer": optimizer, "lr": lr, "steps": steps})
    for name, overrides in REGIMES.items():
        if (
            overrides.get("dataset", "default") == "default"
            and train_config_with(overrides) == wanted
        ):
            return name
    return f"{optimizer}_lr{lr:g}_steps{steps}"


# The regime sweep (issue: which regime do the trained-gate findings depend on):
# every (optimizer, learning rate, steps) point, in config order.
REGIME_SWEEP = config["regime_sweep"]
SWEEP_POINTS = []
if REGIME_SWEEP["enabled"]:
    for _optimizer, _lrs in REGIME_SWEEP["optimizers"].items():
        for _lr in _lrs:
            for _steps in REGIME_SWEEP["steps"]:
                _name = sweep_regime_name(_optimizer, _lr, _steps)
                _overrides = {"optimizer": _optimizer, "lr": _lr, "steps": _steps}
                if any(p["regime"] == _name for p in SWEEP_POINTS) or (
                    _name in config["regimes"]
                    and train_config_with(config["regimes"][_name])
                    != train_config_with(_overrides)
                ):
                    raise ValueError(
                        f"regime_sweep: the point ({_optimizer}, lr {_lr}, {_steps} steps) "
                        f"would be named {_name!r}, which another point or a differently "
                        "trained regime under `regimes` already uses; drop the duplicate "
                        "learning rate or rename that regime"
                    )
                REGIMES.setdefault(_name, _overrides)
                SWEEP_POINTS.append(
                    {
                        "regime": _name,
                        "optimizer": _optimizer,
                        "lr": _lr,
                        "steps": _steps,
                    }
                )


# The sweep's table (regime_sweep.smk); the claims ledger reads it when the sweep runs.
REGIME_SENSITIVITY = "results/tables/regime_sensitivity.csv"


def regime_dataset(regime):
    return REGIMES[regime].get("dataset", "default")


def regime_corpus(regime):
    """{corpus, provenance}: the text files a regime's models train on."""
    return DATASETS[regime_dataset(regime)]


# E3: the reference LSTM under every regime of the sweep; "default" is b = 0
# (the grid's own LSTM, PyTorch's default initialisation).
FORGET_BIAS_SWEEP = config["forget_bias_sweep"]
for _regime in FORGET_BIAS_SWEEP["regimes"]:
    if _regime not in config["regimes"]:
        raise ValueError(
            f"forget_bias_sweep.regimes names {_regime!r}, which is not under `regimes`; "
            "define it there (e.g. forget_bias_1: {forget_bias: 1.0})"
        )
    if regime_dataset(_regime) != "default":
        raise ValueError(
            f"forget_bias_sweep.regimes names {_regime!r}, which trains on "
            f"{regime_dataset(_regime)!r}; the sweep's models train on the corpus"
        )

# E1's three cells: the reference LSTM and the budget-matched GRU and RNN.
BUDGET_MATCHED_RNN = ("rnn", "budget")
DECAY_MODELS = [REFERENCE_LSTM, BUDGET_MATCHED_GRU, BUDGET_MATCHED_RNN]


def gate_files(models, suffix="npz", regime="default", seeds=SEEDS):
    """The saved probe gates (or manual-step checks) of every (model, seed)."""
    return [
        f"results/gates/{regime}/{model_id(cell, width)}_s{seed}.{suffix}"
        for cell, width in models
        for seed in seeds
    ]


def sweep_files(name):
    """One file of every model of the forget-bias sweep (regime x seed)."""
    return [
        f"{model_dir(regime, *REFERENCE_LSTM, seed)}/{name}"
        for regime in FORGET_BIAS_SWEEP["regimes"]
        for seed in FORGET_BIAS_SWEEP["seeds"]
    ]


# The regime sweep's two models (regime_sweep.smk).
SWEEP_MODELS = [REFERENCE_LSTM, BUDGET_MATCHED_GRU]


def regime_sweep_files(name):
    """One file of every model of the sweep: a model directory's `name`, or its gates."""
    files = []
    for point in SWEEP_POINTS:
        for cell, width in SWEEP_MODELS:
            for seed in REGIME_SWEEP["seeds"]:
                if name == "gates":
                    files.append(
                        f"results/gates/{point['regime']}/{model_id(cell, width)}_s{seed}.npz"
                    )
                else:
                    files.append(
                        f"{model_dir(point['regime'], cell, width, seed)}/{name}"
                    )
    return files


wildcard_constraints:
    regime="|".join(re.escape(name) for name in REGIMES),
    cell="rnn|gru|lstm|gru_noreset|cho_gru",
    width="w[1-9][0-9]*|budget[1-9][0-9]*",
    seed="[0-9]+",
