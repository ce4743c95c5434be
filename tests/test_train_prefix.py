"""Prefix sharing: a long run starts from the final state of the same protocol's shorter run.

The choice (gatedrnn.train.prefix.prefix_regime) is a pure function; the training
loop checks the state it is handed again (prefix_hash, prefix_state_problem). The
long run started from the short run's final state must end with the same bytes as
the long run trained from scratch: weights, history, and its own final state.
"""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest
import torch

from gatedrnn.core.data import Vocabulary, split_train_val
from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.checkpoints import FINAL_STATE_NAME, canonical_strings
from gatedrnn.train.config import TrainConfig, prefix_hash, prefix_state_problem
from gatedrnn.train.loop import train_model
from gatedrnn.train.pipeline import prefix_state_path, train_one
from gatedrnn.train.prefix import prefix_regime

torch.set_num_threads(1)

SHORT = TrainConfig(batch_size=4, seq_len=16, steps=40, eval_every=10, val_windows=4, embed_dim=8)
LONG = TrainConfig(**{**SHORT.__dict__, "steps": 160})
IDENTITY = {"test": "prefix"}


# --- the choice ------------------------------------------------------------------------


def protocol(**overrides):
    base = {"optimizer": "adam", "lr": 0.002, "steps": 800, "eval_every": 50, "layers": 1,
            "forget_bias": None, "dataset": "default"}  # fmt: skip
    return base | overrides


def test_the_longest_shorter_regime_of_the_same_protocol_is_the_prefix():
    regimes = {
        "default": protocol(),
        "steps_x2": protocol(steps=1600),
        "steps_x4": protocol(steps=3200),
        "steps_x8": protocol(steps=6400),
    }
    assert prefix_regime(regimes, "steps_x4") == "steps_x2"
    assert prefix_regime(regimes, "steps_x2") == "default"
    assert prefix_regime(regimes, "steps_x8") == "steps_x4"
    assert prefix_regime(regimes, "default") is None


@pytest.mark.parametrize(
    "other",
    [
        {"lr": 0.005},
        {"optimizer": "sgd"},
        {"layers": 2},
        {"forget_bias": 1.0},
        {"dataset": "long_memory"},
        {"eval_every": 40},
    ],
)
def test_a_regime_that_trains_otherwise_is_never_the_prefix(other):
    regimes = {"short": protocol(**other), "long": protocol(steps=3200)}
    assert prefix_regime(regimes, "long") is None


def test_a_missing_key_on_one_side_is_a_difference():
    regimes = {"short": {k: v for k, v in protocol().items() if k != "dataset"}, "long": protocol(steps=3200)}
    assert prefix_regime(regimes, "long") is None


def test_equal_or_longer_runs_are_not_prefixes():
    regimes = {"a": protocol(), "b": protocol(), "c": protocol(steps=3200)}
    assert prefix_regime(regimes, "a") is None
    assert prefix_regime(regimes, "b") is None


def test_a_shorter_run_off_the_validation_grid_is_not_a_prefix():
    """It validated at its last step, which the longer run does not: their states differ."""
    regimes = {"off_grid": protocol(steps=820), "on_grid": protocol(steps=800), "long": protocol(steps=3200)}
    assert prefix_regime(regimes, "long") == "on_grid"
    assert prefix_regime({"off_grid": protocol(steps=820), "long": protocol(steps=3200)}, "long") is None


def test_ties_go_to_the_first_name_whatever_the_dict_order():
    for names in (["b", "a", "long"], ["long", "a", "b"]):
        regimes = {name: protocol(steps=3200 if name == "long" else 800) for name in names}
        assert prefix_regime(regimes, "long") == "a"


def test_the_default_config_shares_every_3200_step_run():
    """config/config.yaml's regimes as the train rule sees them (train keys and dataset)."""
    import yaml
    from conftest import DEFAULT_CONFIG

    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    train = {k: v for k, v in config["train"].items() if k not in ("checkpoint_every", "device", "threads",
                                                                    "mem_mb", "runtime")}  # fmt: skip
    regimes = {name: train | overrides | {"dataset": overrides.get("dataset", "default")}
               for name, overrides in config["regimes"].items()}  # fmt: skip
    for optimizer, lrs in config["regime_sweep"]["optimizers"].items():
        for lr in lrs:
            for steps in config["regime_sweep"]["steps"]:
                point = {"optimizer": optimizer, "lr": lr, "steps": steps, "dataset": "default"}
                if train | point not in regimes.values():  # else a named regime trains it
                    regimes[f"{optimizer}_lr{lr:g}_steps{steps}"] = train | point
    long_runs = {name for name, cfg in regimes.items() if cfg["steps"] == 3200}
    assert len(long_runs) == 6  # steps_x4 and five sweep points
    assert prefix_regime(regimes, "steps_x4") == "default"
    assert all(regimes[prefix_regime(regimes, name)]["steps"] == 800 for name in long_runs)
    assert all(prefix_regime(regimes, name) is None for name in regimes if regimes[name]["steps"] == 800)


# --- the state -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus():
    text = synthetic_prose(6000, seed=5)
    vocab = Vocabulary.from_text(text)
    train, val = split_train_val(vocab.encode(text), 0.9)
    return len(vocab), train, val


def run(corpus, cfg, cell="lstm", **kwargs):
    vocab_size, train, val = corpus
    kwargs.setdefault("identity", IDENTITY)
    return train_model(cell=cell, hidden=12, seed=0, vocab_size=vocab_size, train_ids=train, val_ids=val,
                       cfg=cfg, device="cpu", log=kwargs.pop("log", lambda m: None), **kwargs)  # fmt: skip


def saved_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def final_without_origin(path) -> bytes:
    """A final state's bytes as saved, without its ``prefix_from`` (which differs by design)."""
    state = torch.load(path, weights_only=True)
    assert state.pop("prefix_from") in (None, SHORT.steps)
    return saved_bytes(canonical_strings(state))


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
def test_long_run_from_the_short_runs_final_state_is_bit_identical(corpus, tmp_path, cell):
    scratch = run(corpus, LONG, cell, final_state=tmp_path / "scratch_final.pt")
    short = run(corpus, SHORT, cell, final_state=tmp_path / "short_final.pt")
    log = []
    shared = run(corpus, LONG, cell, start_from=tmp_path / "short_final.pt", log=log.append,
                 final_state=tmp_path / "shared_final.pt")  # fmt: skip
    assert shared.prefix_from == SHORT.steps and shared.resumed_from is None
    assert any(line.startswith(f"started from {tmp_path / 'short_final.pt'} at step 40") for line in log)
    assert saved_bytes(shared.model.state_dict()) == saved_bytes(scratch.model.state_dict())
    assert str(shared.history) == str(scratch.history)  # str: nan == nan
    assert str(shared.history[: len(short.history)]) == str(short.history)
    assert (shared.best_val_loss, shared.best_step) == (scratch.best_val_loss, scratch.best_step)
    # the final states too (but the record of where each started): a longer run could start from either
    shared_final, scratch_final = (
        final_without_origin(tmp_path / f"{n}_final.pt") for n in ("shared", "scratch")
    )
    assert shared_final == scratch_final


def test_the_prefix_hash_ignores_steps_and_only_steps():
    assert prefix_hash(SHORT, IDENTITY) == prefix_hash(LONG, IDENTITY)
    assert prefix_hash(SHORT, IDENTITY) != prefix_hash(SHORT, {"test": "other"})
    for key, value in {"lr": 0.01, "eval_every": 20, "batch_size": 5, "optimizer": "sgd"}.items():
        assert prefix_hash(TrainConfig(**{**SHORT.__dict__, key: value}), IDENTITY) != prefix_hash(
            SHORT, IDENTITY
        )


def state(step, steps, cfg=SHORT):
    return {"prefix_hash": prefix_hash(cfg, IDENTITY), "step": step, "steps": steps}


@pytest.mark.parametrize(
    ("candidate", "cfg", "usable"),
    [
        (state(40, 40), LONG, True),  # the short run's final state: on the grid
        (state(20, 160, LONG), SHORT, True),  # a long run's checkpoint, inside the short run
        (state(40, 160, LONG), SHORT, True),  # on the grid at the short run's end
        (state(160, 160, LONG), SHORT, False),  # past the end
        (state(35, 35, TrainConfig(**{**SHORT.__dict__, "steps": 35})), LONG, False),  # validated at 35
        (state(35, 160, LONG), TrainConfig(**{**SHORT.__dict__, "steps": 35}), False),  # did not
        (state(35, 160, LONG), LONG, True),  # the run's own checkpoint
        ({**state(40, 40), "prefix_hash": "0" * 64}, LONG, False),  # another protocol or model
        ({"prefix_hash": prefix_hash(SHORT, IDENTITY), "step": 40}, LONG, False),  # an old checkpoint
    ],
)
def test_which_states_may_start_a_run(candidate, cfg, usable):
    problem = prefix_state_problem(candidate, cfg, prefix_hash(cfg, IDENTITY))
    assert (problem is None) == usable, problem


def test_a_state_of_another_protocol_is_refused_and_the_run_trains_from_scratch(corpus, tmp_path):
    other = TrainConfig(**{**SHORT.__dict__, "lr": 0.01})
    run(corpus, other, final_state=tmp_path / "other_final.pt")
    log = []
    with pytest.warns(UserWarning, match="cannot start this run: it belongs to another configuration"):
        result = run(corpus, LONG, start_from=tmp_path / "other_final.pt", log=log.append)
    assert result.prefix_from is None
    assert any(line.startswith("WARNING: state") for line in log)
    assert saved_bytes(result.model.state_dict()) == saved_bytes(run(corpus, LONG).model.state_dict())


def test_a_state_of_another_seed_is_refused(corpus, tmp_path):
    run(corpus, SHORT, final_state=tmp_path / "final.pt", identity={"test": "prefix", "seed": 1})
    with pytest.warns(UserWarning, match="another configuration"):
        result = run(corpus, LONG, start_from=tmp_path / "final.pt", identity={"test": "prefix", "seed": 0})
    assert result.prefix_from is None


def test_a_missing_or_damaged_state_costs_time_only(corpus, tmp_path):
    log = []
    missing = run(corpus, LONG, start_from=tmp_path / "nowhere.pt", log=log.append)
    assert missing.prefix_from is None and any("no state to start from" in line for line in log)
    run(corpus, SHORT, final_state=tmp_path / "final.pt")
    data = (tmp_path / "final.pt").read_bytes()
    (tmp_path / "final.pt").write_bytes(data[: len(data) // 2])
    with pytest.warns(UserWarning, match="unreadable"):
        damaged = run(corpus, LONG, start_from=tmp_path / "final.pt")
    assert damaged.prefix_from is None
    assert saved_bytes(damaged.model.state_dict()) == saved_bytes(missing.model.state_dict())


def test_the_runs_own_newer_checkpoint_wins_over_the_prefix(corpus, tmp_path):
    run(corpus, SHORT, final_state=tmp_path / "short_final.pt")
    ckpt = tmp_path / "ckpt"
    run(corpus, LONG, checkpoint_dir=ckpt, checkpoint_every=20, start_from=tmp_path / "short_final.pt",
        stop_after=90)  # fmt: skip
    resumed = run(
        corpus, LONG, checkpoint_dir=ckpt, checkpoint_every=20, start_from=tmp_path / "short_final.pt"
    )
    assert resumed.resumed_from == 80
    assert resumed.prefix_from == 40  # where the run started, carried by its checkpoints
    assert saved_bytes(resumed.model.state_dict()) == saved_bytes(run(corpus, LONG).model.state_dict())


# --- through the rule's code (gatedrnn.train.pipeline.train_one) -------------------------


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    write_corpus(CorpusSpec(source="synthetic", synthetic_chars=6000, synthetic_seed=0),
                 directory / "corpus.txt", directory / "corpus.json")  # fmt: skip
    return directory


def train_job(corpus_files, root, regime, cfg, prefix_summary=None):
    model_dir = root / "results/models" / regime / "gru_w12_s0"
    outputs = SimpleNamespace(model=str(model_dir / "model.pt"), history=str(model_dir / "history.csv"),
                              summary=str(model_dir / "summary.json"))  # fmt: skip
    summary = train_one(
        corpus_path=corpus_files / "corpus.txt", provenance_path=corpus_files / "corpus.json", cell="gru",
        width_token="w12", seed=0, regime=regime, train_config=dict(cfg.__dict__), train_fraction=0.9,
        checkpoint_dir=root / "results/checkpoints" / regime / "gru_w12_s0", checkpoint_every=20,
        device="cpu", threads=1, outputs=outputs, prefix_summary=prefix_summary, log=lambda m: None,
    )  # fmt: skip
    return model_dir, summary


def test_the_train_jobs_share_the_prefix_to_the_same_files(corpus_files, tmp_path):
    # the rule's prefix input is a list of none or one summary
    scratch_dir, scratch = train_job(corpus_files, tmp_path / "scratch", "steps_x4", LONG, prefix_summary=[])
    root = tmp_path / "shared"
    short_dir, short = train_job(corpus_files, root, "default", SHORT)
    final_state = prefix_state_path(root / "results/checkpoints/steps_x4/gru_w12_s0", "default")
    assert final_state == root / "results/checkpoints/default/gru_w12_s0" / FINAL_STATE_NAME
    assert final_state.is_file()
    assert [p.name for p in final_state.parent.iterdir()] == [FINAL_STATE_NAME]  # spent checkpoints gone
    long_dir, long = train_job(
        corpus_files, root, "steps_x4", LONG, prefix_summary=[str(short_dir / "summary.json")]
    )
    assert long["prefix_from"] == {"regime": "default", "step": 40}
    assert long["resumed_from_step"] is None and "prefix_from" not in scratch
    for name in ("model.pt", "history.csv"):
        assert (long_dir / name).read_bytes() == (scratch_dir / name).read_bytes(), name
    volatile = ("wall_seconds", "prefix_from")
    strip = lambda s: {k: v for k, v in s.items() if k not in volatile}  # noqa: E731
    assert strip(long) == strip(scratch)
    assert json.loads((long_dir / "summary.json").read_text())["prefix_from"]["step"] == 40
