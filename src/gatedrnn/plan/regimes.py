"""Training regimes: the config's named regimes, the points of the regime sweep, and
the `train` settings each regime trains with.

A regime is a dict of overrides of `train` keys (and optionally `dataset`). The regime
sweep adds one regime per (optimizer, learning rate, steps) point, and one per (windows
per batch, characters per window) point at the protocol's optimizer, learning rate and
steps, unless a configured regime already trains that way on the corpus (adam at
train.lr for train.steps, 32 windows of 128 characters, is `default`).
"""

from __future__ import annotations

from collections.abc import Mapping

# The `train` keys that shape a model (the others say where and how fast it runs).
TRAIN_CONFIG_KEYS = (
    "optimizer",
    "lr",
    "momentum",
    "batch_size",
    "seq_len",
    "steps",
    "clip_norm",
    "weight_decay",
    "eval_every",
    "val_windows",
    "embed_dim",
    "layers",
    "forget_bias",
    "readout_norm",
    "vocabulary",
)


def train_config_with(train: Mapping, overrides: Mapping) -> dict:
    """The `train` keys that shape a model, with `overrides` applied (other keys ignored)."""
    merged = {key: train[key] for key in TRAIN_CONFIG_KEYS}
    merged.update({k: v for k, v in overrides.items() if k in TRAIN_CONFIG_KEYS})
    return merged


def dataset_of(overrides: Mapping) -> str:
    """The dataset a regime trains on: "default" (the corpus) unless it names another."""
    return overrides.get("dataset", "default")


# The keys a sweep point sets; every point carries all five (the window axes' points
# at the protocol's optimizer, learning rate and steps; the optimizer points at its windows).
POINT_KEYS = ("optimizer", "lr", "steps", "batch_size", "seq_len")
WINDOW_KEYS = ("batch_size", "seq_len")


def sweep_regime_name(config: Mapping, overrides: Mapping, new_name: str) -> str:
    """The regime of one sweep point (``overrides`` of `train` keys): a configured regime
    that trains the same way on the corpus (adam at train.lr for train.steps is
    `default`), else ``new_name``."""
    train = config["train"]
    wanted = train_config_with(train, overrides)
    for name, configured in config["regimes"].items():
        if dataset_of(configured) == "default" and train_config_with(train, configured) == wanted:
            return name
    return new_name


def optimizer_point_name(optimizer: str, lr: float, steps: int) -> str:
    return f"{optimizer}_lr{lr:g}_steps{steps}"


def window_point_name(batch_size: int, seq_len: int) -> str:
    return f"batch{batch_size}_seq{seq_len}"


def sweep_points(config: Mapping) -> list[dict]:
    """Every point of `regime_sweep`, in config order, as ``{regime, optimizer, lr, steps,
    batch_size, seq_len}``; none when the sweep is switched off. First the (optimizer,
    learning rate, steps) points at train.batch_size x train.seq_len, then every
    (batch_size, seq_len) pair of ``batch_sizes`` x ``seq_lens`` at train.optimizer,
    train.lr and train.steps (the protocol's pair is the `default` regime); a point both
    axes reach is listed once.

    Refuses two points that would share a regime name, and a point whose name a
    configured regime holds but trains differently."""
    sweep = config["regime_sweep"]
    if not sweep["enabled"]:
        return []
    train, regimes = config["train"], config["regimes"]
    wanted = [
        ({"optimizer": optimizer, "lr": lr, "steps": steps}, optimizer_point_name(optimizer, lr, steps))
        for optimizer, lrs in sweep["optimizers"].items()
        for lr in lrs
        for steps in sweep["steps"]
    ] + [
        (
            {
                "optimizer": train["optimizer"],
                "lr": train["lr"],
                "steps": train["steps"],
                "batch_size": batch_size,
                "seq_len": seq_len,
            },
            window_point_name(batch_size, seq_len),
        )  # fmt: skip
        for batch_size in sweep["batch_sizes"]
        for seq_len in sweep["seq_lens"]
    ]
    points: list[dict] = []
    for overrides, new_name in wanted:
        name = sweep_regime_name(config, overrides, new_name)
        point = {key: overrides.get(key, train[key]) for key in POINT_KEYS}
        if {"regime": name, **point} in points:
            continue  # both axes reach it (the protocol's point): one regime, one row
        if any(p["regime"] == name for p in points) or (
            name in regimes and train_config_with(train, regimes[name]) != train_config_with(train, point)
        ):
            raise ValueError(
                f"regime_sweep: the point ({point_text(point)}) would be named {name!r}, which another "
                "point or a differently trained regime under `regimes` already uses; drop the duplicate "
                "learning rate, batch size or window length, or rename that regime"
            )
        points.append({"regime": name, **point})
    return points


def point_text(point: Mapping) -> str:
    """``adam, lr 0.002, 800 steps, 32 x 128 characters``."""
    return (
        f"{point['optimizer']}, lr {point['lr']}, {point['steps']} steps, "
        f"{point['batch_size']} x {point['seq_len']} characters"
    )


# The corpus-size axis (protocol.small_corpus): the regime sweep's optimizer points
# trained on a prefix of the corpus (gatedrnn.io.variants), as regimes named
# <optimizer>_lr<lr>_steps<steps>_small.
SMALL_CORPUS = "small_corpus"


def corpus_size_points(config: Mapping) -> list[dict]:
    """Every (optimizer, learning rate, steps) point of the corpus-size axis, in config
    order, as ``{regime, optimizer, lr, steps, batch_size, seq_len, dataset}``: the regime
    sweep's optimizer
    points at ``protocol.small_corpus.steps`` (train's windows) on the small corpus; none when
    ``protocol`` is switched off. Refuses a name a configured regime already holds."""
    protocol = config.get("protocol")
    if not protocol or not protocol["enabled"]:
        return []
    points: list[dict] = []
    for optimizer, lrs in config["regime_sweep"]["optimizers"].items():
        for lr in lrs:
            for steps in protocol["small_corpus"]["steps"]:
                name = f"{optimizer}_lr{lr:g}_steps{steps}_small"
                if name in config["regimes"]:
                    raise ValueError(
                        f"protocol.small_corpus: the point ({optimizer}, lr {lr}, {steps} steps) on the "
                        f"small corpus is named {name!r}, which a regime under `regimes` already uses; "
                        "rename that regime"
                    )
                points.append(
                    {
                        "regime": name,
                        "optimizer": optimizer,
                        "lr": lr,
                        "steps": steps,
                        **{key: config["train"][key] for key in WINDOW_KEYS},
                        "dataset": SMALL_CORPUS,
                    }
                )
    return points


def all_regimes(config: Mapping, points: list[dict]) -> dict[str, dict]:
    """Every regime a model can train under: the configured ones (config order), then
    the sweep points that are not configured regimes (sweep order). A point's
    ``dataset`` other than the corpus becomes the regime's ``dataset``; its windows
    become overrides where they are not train's."""
    regimes = dict(config["regimes"])
    train = config["train"]
    for point in points:
        overrides = {k: point[k] for k in ("optimizer", "lr", "steps")}
        overrides |= {k: point[k] for k in WINDOW_KEYS if k in point and point[k] != train[k]}
        if point.get("dataset", "default") != "default":
            overrides["dataset"] = point["dataset"]
        regimes.setdefault(point["regime"], overrides)
    return regimes


def check_forget_bias_sweep(config: Mapping) -> None:
    """Every regime of `forget_bias_sweep` is configured and trains on the corpus."""
    for regime in config["forget_bias_sweep"]["regimes"]:
        if regime not in config["regimes"]:
            raise ValueError(
                f"forget_bias_sweep.regimes names {regime!r}, which is not under `regimes`; "
                "define it there (e.g. forget_bias_1: {forget_bias: 1.0})"
            )
        dataset = dataset_of(config["regimes"][regime])
        if dataset != "default":
            raise ValueError(
                f"forget_bias_sweep.regimes names {regime!r}, which trains on "
                f"{dataset!r}; the sweep's models train on the corpus"
            )


def check_question_regime(config: Mapping, question: str, regime: str, dataset: str = "default") -> str:
    """`regime`, unless the (enabled) question names an undefined regime or one on
    another dataset: then refuse the config."""
    if not config["open_questions"][question]["enabled"]:
        return regime
    if regime not in config["regimes"]:
        raise ValueError(f"open_questions.{question} names regime {regime!r}, which is not under `regimes`")
    found = dataset_of(config["regimes"][regime])
    if found != dataset:
        raise ValueError(
            f"open_questions.{question}: regime {regime!r} trains on dataset "
            f"{found!r}; it must set dataset: {dataset}"
        )
    return regime


def default_corpus_counterpart(config: Mapping, regime: str) -> str | None:
    """The configured corpus regime with the same training overrides as `regime`, or None."""
    overrides = {k: v for k, v in config["regimes"][regime].items() if k != "dataset"}
    for other, other_overrides in config["regimes"].items():
        if dataset_of(other_overrides) == "default" and other_overrides == overrides:
            return other
    return None
