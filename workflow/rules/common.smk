# Helpers shared by every rules file: config validation, model naming, inputs.

from snakemake.utils import min_version, validate

min_version("9.0")


validate(config, schema="../schemas/config.schema.yaml")

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


def regime_train_config(regime):
    """The `train` keys that shape a model, with the regime's overrides applied."""
    merged = {key: config["train"][key] for key in TRAIN_CONFIG_KEYS}
    merged.update(config["regimes"][regime])
    return merged


wildcard_constraints:
    regime="|".join(config["regimes"]),
    cell="rnn|gru|lstm",
    width="w[1-9][0-9]*|budget[1-9][0-9]*",
    seed="[0-9]+",
