"""``gatedrnn.load``: a finished run's trained model, by name or by path.

A run lives where the workflow writes it (:mod:`gatedrnn.train.pipeline`):
``<working directory>/results/models/<regime>/<model>_s<seed>/`` holds ``model.pt``
(the weights after the last step), ``summary.json`` (what was trained, and how) and
``history.csv``; ``results/checkpoints/<regime>/<model>_s<seed>/`` holds the run's
``final_state.pt`` (and, while it trains, ``checkpoint_step<k>.pt``). The model is
rebuilt by :func:`gatedrnn.train.loop.load_model`, which checks the summary is the
run its path names and the weights fit it.

Anything that is not a finished run of this workflow (nothing there, a run still
training, a diverged run, a folder of another kind, a file copied from another run)
is :class:`RunNotFound`, whose message is one line saying what to build.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import torch
import yaml

from gatedrnn.core.conventions import MODEL_FILE
from gatedrnn.core.data import Vocabulary
from gatedrnn.core.model import CharModel
from gatedrnn.io.files import read_json
from gatedrnn.io.reading import load_corpus
from gatedrnn.tables.probe_gates import probe_set
from gatedrnn.train.checkpoints import CHECKPOINT_NAME, FINAL_STATE_NAME, verify_archive
from gatedrnn.train.config import trained_vocabulary
from gatedrnn.train.loop import load_model

# A run's name: "<regime>/<model>_s<seed>" (a bare "<model>_s<seed>" is of regime default).
RUN_NAME = re.compile(r"^(?:(?P<regime>[A-Za-z0-9_.-]+)/)?(?P<run>[a-z][a-z_]*_(?:w|budget)\d+_s\d+)$")
# What to build when the run asked for names no run at all.
BUILD_ANY = "build a run with `snakemake --cores 1 results/models/<regime>/<model>_s<seed>/summary.json`"


class RunNotFound(LookupError):
    """No finished run of this workflow at the name or path given (missing, still
    training, diverged, foreign or copied from another run). The message is one line:
    what was looked for, why it is not a run, and the ``snakemake`` target that builds it."""


@dataclass
class TrainedModel:
    """One trained model of a finished run, as :func:`load` returns it.

    ``module``: the :class:`gatedrnn.core.model.CharModel` in eval mode, on the CPU;
    ``config``: the training config it was trained under (its summary's ``train_config``);
    ``vocabulary``: the characters it reads, in id order; ``summary``: its ``summary.json``;
    ``name``: ``<regime>/<model>_s<seed>``; ``directory``: its model directory;
    ``weights``: the file the weights came from; ``step``: the training step they are of.
    """

    module: CharModel
    config: dict
    vocabulary: str
    summary: dict
    name: str
    directory: Path
    weights: Path
    step: int
    _corpus: tuple[Path, Path] | None = field(default=None, repr=False)

    @property
    def cell(self) -> str:
        return self.summary["cell"]

    @property
    def width(self) -> int:
        return int(self.summary["width"])

    @property
    def seed(self) -> int:
        return int(self.summary["seed"])

    @property
    def regime(self) -> str:
        return self.summary["regime"]

    @property
    def working_directory(self) -> Path:
        """The folder the workflow ran in (``results/models/<regime>/<run>`` below it)."""
        return self.directory.parents[3]

    def probe(self, config) -> list[str]:
        """The probe set the workflow's gate tables (C2 to C5, D1, D2, D5) read for this
        model: ``probe.lines`` lines of ``probe.length`` characters of the validation split
        (``split.train_fraction``) of the corpus it trained on, the keys read from
        ``config`` (a config file's path, or the config as a dict)."""
        if not isinstance(config, dict):
            config = yaml.safe_load(Path(config).read_text(encoding="utf-8"))
        try:
            lines, length = config["probe"]["lines"], config["probe"]["length"]
            train_fraction = config["split"]["train_fraction"]
        except (KeyError, TypeError) as err:
            raise ValueError(f"the config has no {err}: give the workflow's (config/config.yaml)") from None
        corpus, provenance = self.corpus_files()
        vocabulary = trained_vocabulary(self.summary)
        _, texts = probe_set(corpus, provenance, train_fraction, lines, length, vocabulary)
        return texts

    def corpus_files(self) -> tuple[Path, Path]:
        """``(corpus.txt, corpus.json)`` of the text this model trained on: the corpus below
        the working directory's ``data/`` whose record has the summary's ``corpus_sha256``."""
        if self._corpus is None:
            self._corpus = find_corpus(self.working_directory, self.summary.get("corpus_sha256"), self.name)
        return self._corpus


def find_corpus(workdir: Path, sha256: str | None, name: str) -> tuple[Path, Path]:
    for record in sorted((workdir / "data").rglob("corpus.json")):
        text = record.with_name("corpus.txt")
        if text.is_file() and read_json(record, "corpus provenance record").get("corpus_sha256") == sha256:
            return text, record
    raise RunNotFound(
        f"{name} trained on the corpus with sha256 {sha256}, and no data/**/corpus.json in {workdir} "
        f"records it: build it with `snakemake --cores 1 {workdir_target(name)}`{run_in(workdir)}"
    )


def workdir_target(name: str) -> str:
    return f"results/models/{name}/summary.json"


def run_in(workdir: Path) -> str:
    """Where to run the command: nothing when it is the current directory."""
    return "" if Path(workdir).resolve() == Path.cwd().resolve() else f" in {workdir}"


def _models_root(results) -> Path:
    """``<results>/models``; ``results`` may also be the working directory holding ``results/``."""
    root = Path.cwd() / "results" if results is None else Path(results)
    if not (root / "models").is_dir() and (root / "results" / "models").is_dir():
        root = root / "results"
    return root / "models"


def _locate(run, results) -> tuple[Path, str, Path | None]:
    """``(model directory, run name, checkpoint file or None)`` of a name or a path."""
    path = Path(run)
    if path.exists():
        path = path.resolve()
        if path.is_file() and (CHECKPOINT_NAME.match(path.name) or path.name == FINAL_STATE_NAME):
            # results/checkpoints/<regime>/<run>/<file>: its summary is under results/models/
            directory = path.parents[3] / "models" / path.parent.parent.name / path.parent.name
            checkpoint = path
        else:
            directory, checkpoint = (path.parent if path.is_file() else path), None
            if directory.parent.parent.name == "checkpoints":  # a run's checkpoint folder
                checkpoint = directory / FINAL_STATE_NAME
                directory = directory.parents[2] / "models" / directory.parent.name / directory.name
        if not MODEL_FILE.match(directory.name) or directory.parent.parent.name != "models":
            raise RunNotFound(
                f"{run} is not a run of this workflow (a model is a folder results/models/<regime>/"
                "<model>_s<seed>, a file in it, or a checkpoint under results/checkpoints/<regime>/"
                f"<model>_s<seed>); {BUILD_ANY}"
            )
        return directory, f"{directory.parent.name}/{directory.name}", checkpoint
    match = RUN_NAME.match(str(run))
    if match is None:
        raise RunNotFound(
            f"{run!r} is neither a path that exists nor a run name <regime>/<model>_s<seed> "
            f'(such as "default/lstm_w325_s0"); {BUILD_ANY}'
        )
    name = f"{match['regime'] or 'default'}/{match['run']}"
    return _models_root(results) / name, name, None


def load(run: str | os.PathLike, results: str | os.PathLike | None = None) -> TrainedModel:
    """The trained model of a finished run.

    ``run``: a name ``"<regime>/<model>_s<seed>"`` (``"default/lstm_w325_s0"``), looked up
    under ``<results>/models/`` (``results``: the results folder, or the working directory
    holding it; default ``./results``), or a path: a model directory, a file in it
    (``model.pt``), or a checkpoint (``final_state.pt``, ``checkpoint_step<k>.pt``, or the
    run's checkpoint folder), whose weights are then loaded instead of ``model.pt``.

    Raises :class:`RunNotFound` (one line naming the ``snakemake`` target that builds it)
    when there is no finished, non-diverged run of this workflow there.
    """
    directory, name, checkpoint = _locate(run, results)
    directory = directory.absolute()
    workdir = directory.parents[3]  # <workdir>/results/models/<regime>/<run>
    build = f"build it with `snakemake --cores 1 {workdir_target(name)}`{run_in(workdir)}"
    if not (directory / "summary.json").is_file():
        what = "not finished (no summary.json)" if directory.is_dir() else "not there"
        raise RunNotFound(f"no trained model {name} in {directory.parent.parent}: the run is {what}; {build}")
    try:
        module, summary = load_model(directory)
    except (ValueError, RuntimeError) as err:  # diverged, copied from another run, damaged
        reason = str(err).strip().splitlines()[0]
        raise RunNotFound(f"{name} is not a trained model: {reason} ({build})") from None
    weights, step = directory / "model.pt", int(summary["train_config"]["steps"])
    if checkpoint is not None:
        state = _checkpoint_state(checkpoint, summary, name, build)
        module.load_state_dict(state["model"])
        weights, step = checkpoint, int(state["step"])
    vocabulary = trained_vocabulary(summary)
    model = TrainedModel(module.eval(), summary["train_config"], "", summary, name, directory, weights, step)
    if vocabulary == "corpus":
        model.vocabulary = load_corpus(*model.corpus_files(), vocabulary)[2].chars
    else:
        model.vocabulary = Vocabulary.named(vocabulary, "").chars
    if len(model.vocabulary) != summary["vocab_size"]:
        raise RunNotFound(
            f"{name} reads {summary['vocab_size']} characters, but its vocabulary "
            f"({vocabulary!r}) has {len(model.vocabulary)}: the corpus changed since; {build}"
        )
    return model


def _checkpoint_state(path: Path, summary: dict, name: str, build: str) -> dict:
    """A checkpoint's state, refused unless it is this run's (its config hash)."""
    try:
        verify_archive(path)
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:
        raise RunNotFound(f"{path} cannot be read ({type(err).__name__}: {err}); {build}") from None
    if state.get("config_hash") != summary.get("config_hash"):
        raise RunNotFound(
            f"{path} is not a checkpoint of {name} as its summary.json describes (config hash "
            f"{state.get('config_hash')} against {summary.get('config_hash')}); {build}"
        )
    return state
