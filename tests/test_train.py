"""The training loop: reproducible, resumable bit for bit, divergence caught."""

import math
import re

import pytest
import torch

from gatedrnn.core.data import Vocabulary, split_train_val
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.checkpoints import list_checkpoints
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import TrainingDiverged, format_duration, train_model

CFG = TrainConfig(batch_size=4, seq_len=16, steps=12, eval_every=4, val_windows=4, embed_dim=8)


@pytest.fixture(scope="module")
def corpus():
    text = synthetic_prose(6000, seed=1)
    vocab = Vocabulary.from_text(text)
    train, val = split_train_val(vocab.encode(text), 0.9)
    return len(vocab), train, val


def run(corpus, cell="lstm", cfg=CFG, **kwargs):
    vocab_size, train, val = corpus
    kwargs.setdefault("log", lambda message: None)
    return train_model(
        cell=cell, hidden=12, seed=0, vocab_size=vocab_size, train_ids=train, val_ids=val,
        cfg=cfg, device="cpu", **kwargs,
    )  # fmt: skip


def same_weights(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
def test_same_seed_same_model(corpus, cell):
    a, b = run(corpus, cell), run(corpus, cell)
    assert same_weights(a.model, b.model)
    assert a.history == b.history or all(
        (math.isnan(x["train_loss"]) and math.isnan(y["train_loss"])) or x == y
        for x, y in zip(a.history, b.history, strict=True)
    )


def test_history_and_best(corpus):
    result = run(corpus)
    assert [row["step"] for row in result.history] == [0, 4, 8, 12]
    best = min(result.history, key=lambda r: r["val_loss"])
    assert (result.best_val_loss, result.best_step) == (best["val_loss"], best["step"])
    assert result.history[-1]["val_loss"] < result.history[0]["val_loss"]


@pytest.mark.parametrize("kill_after", [3, 5, 8, 11])
def test_resume_after_a_kill_is_bit_identical(corpus, tmp_path, kill_after):
    uninterrupted = run(corpus)
    ckpt = tmp_path / "ckpt"
    run(corpus, checkpoint_dir=ckpt, checkpoint_every=2, identity={"x": 1}, stop_after=kill_after)
    resumed = run(corpus, checkpoint_dir=ckpt, checkpoint_every=2, identity={"x": 1})
    assert resumed.resumed_from == kill_after - kill_after % 2
    assert same_weights(uninterrupted.model, resumed.model)
    assert str(resumed.history) == str(uninterrupted.history)


def test_checkpoint_of_another_config_is_not_resumed(corpus, tmp_path):
    ckpt = tmp_path / "ckpt"
    run(corpus, checkpoint_dir=ckpt, checkpoint_every=2, identity={"seed": 0}, stop_after=6)
    assert list_checkpoints(ckpt)
    with pytest.warns(UserWarning, match="another configuration"):
        result = run(corpus, checkpoint_dir=ckpt, checkpoint_every=2, identity={"seed": 1})
    assert result.resumed_from is None


def test_corrupted_checkpoint_falls_back_to_the_previous_one(corpus, tmp_path):
    ckpt = tmp_path / "ckpt"
    run(corpus, checkpoint_dir=ckpt, checkpoint_every=2, stop_after=6)
    newest_step, newest = list_checkpoints(ckpt)[0]
    newest.write_bytes(newest.read_bytes()[:100])  # truncated mid-write
    with pytest.warns(UserWarning, match="unreadable"):
        result = run(corpus, checkpoint_dir=ckpt, checkpoint_every=2)
    assert result.resumed_from == newest_step - 2
    assert same_weights(result.model, run(corpus).model)


def test_divergence_names_the_step_and_the_loss(corpus):
    cfg = TrainConfig(optimizer="sgd", lr=1e12, momentum=0.0, clip_norm=1e30, batch_size=4,
                      seq_len=16, steps=50, eval_every=10, val_windows=2, embed_dim=8)  # fmt: skip
    with pytest.raises(TrainingDiverged, match=r"diverged at step \d+: loss is \S+ nats/char"):
        run(corpus, cfg=cfg)


def test_divergence_recorded_keeps_the_weights_that_diverged(corpus):
    """on_divergence="record": the run stops at the step whose loss trips the check; the
    model holds the weights that loss came from (the previous step's), not updated by it."""
    cfg = TrainConfig(optimizer="sgd", lr=40.0, batch_size=4, seq_len=16, steps=30, eval_every=2,
                      val_windows=2, embed_dim=8)  # fmt: skip
    lines = []
    result = run(corpus, cfg=cfg, on_divergence="record", log=lines.append)
    step = result.diverged_at_step
    assert step is not None and step > 2 and result.diverged_loss > 4 * math.log(corpus[0])
    assert any(line.startswith(f"WARNING: training diverged at step {step}: loss is") for line in lines)
    assert math.isnan(result.best_val_loss) and result.best_step == -1
    assert [row["step"] for row in result.history] == list(range(0, step, 2))
    before = run(corpus, cfg=cfg, stop_after=step - 1)
    assert same_weights(result.model, before.model)
    with pytest.raises(ValueError, match="on_divergence"):
        run(corpus, cfg=cfg, on_divergence="ignore")


def test_log_lines_carry_the_rate_and_the_time_left(corpus):
    lines = []
    run(corpus, log=lines.append)
    evals = [line for line in lines if line.startswith("step ") and "train_loss" in line]
    assert len(evals) == 3
    for line in evals:
        assert re.search(r"\(\d+\.\d\d steps/s, eta (\d+s|\d+m\d\ds|\d+h\d\dm)\)$", line), line
    assert evals[-1].endswith(", eta 0s)")  # nothing left after the last step


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0s"), (0.4, "0s"), (42.6, "43s"), (60, "1m00s"), (192, "3m12s"), (3599, "59m59s"), (3600, "1h00m"),
     (7530, "2h05m"), (float("inf"), "?"), (float("nan"), "?")],
)  # fmt: skip
def test_durations_for_log_lines(seconds, shown):
    assert format_duration(seconds) == shown


def test_forget_bias_regime(corpus):
    cfg = TrainConfig(**{**CFG.__dict__, "forget_bias": 3.0, "steps": 1})
    model = run(corpus, cfg=cfg).model
    assert model.rnn.bias_ih_l0[12:24].mean() > 2.5  # still near 3 after one small step


def test_bad_config_values():
    with pytest.raises(ValueError, match="optimizer"):
        TrainConfig(optimizer="rmsprop")
    with pytest.raises(ValueError, match="steps"):
        TrainConfig(steps=0)


RESUME_SCRIPT = """
import hashlib, io, shutil, sys, torch
from gatedrnn.core.data import Vocabulary, split_train_val
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.loop import train_model
from gatedrnn.train.config import TrainConfig
torch.set_num_threads(1)  # train.threads: 2 threads are not bit-reproducible here
phase, ckpt = sys.argv[1], sys.argv[2]
text = synthetic_prose(200_000, seed=0)
vocab = Vocabulary.from_text(text)
train, val = split_train_val(vocab.encode(text), 0.9)
kwargs = dict(cell="lstm", hidden=325, seed=0, vocab_size=len(vocab), train_ids=train, val_ids=val,
              cfg=TrainConfig(steps=8, eval_every=4, val_windows=8), device="cpu", log=lambda m: None)
if phase == "kill":
    train_model(checkpoint_dir=ckpt, checkpoint_every=3, stop_after=7, **kwargs)
    sys.exit()
if phase == "resume":
    result = train_model(checkpoint_dir=ckpt, checkpoint_every=3, **kwargs)
else:
    result = train_model(**kwargs)
buffer = io.BytesIO()
torch.save(result.model.state_dict(), buffer)
print(result.resumed_from, hashlib.sha256(buffer.getvalue()).hexdigest())
"""


def test_resume_is_bit_identical_at_full_size(tmp_path):
    """The study's LSTM width (325) and batch (32 x 128), each phase a fresh process as
    after a real kill: at this size CPU kernels take paths that small models never do,
    and the resumed run must still end with the same bytes."""
    import subprocess
    import sys

    def phase(name):
        proc = subprocess.run(
            [sys.executable, "-c", RESUME_SCRIPT, name, str(tmp_path / "ckpt")],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()

    _, uninterrupted = phase("full")
    phase("kill")
    resumed_from, resumed = phase("resume")
    assert resumed_from == "6"  # the kill came after step 7: the last checkpoint, step 6
    assert resumed == uninterrupted
