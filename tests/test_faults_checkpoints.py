"""Checkpoint faults at the unit level (gatedrnn.train.loop.train_model).

A run stopped at a seeded random step (``stop_after``, a simulated kill) and resumed
must end with the same bytes as an uninterrupted run; so must a run whose newest
checkpoint was truncated, bit-flipped or left half-written by a kill during the save.
A bad checkpoint is reported (a warning, and a WARNING line in the log), discarded,
and training restarts from the previous good one, never a bare traceback.
"""

from __future__ import annotations

import io
import random
import warnings
from pathlib import Path

import pytest
import torch
from faults.damage import flip_a_tensor_byte

from gatedrnn.core.data import Vocabulary, split_train_val
from gatedrnn.io.files import atomic_torch_save
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.checkpoints import list_checkpoints
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import train_model

torch.set_num_threads(1)  # tiny models; more threads only contend on a shared machine

CFG = TrainConfig(batch_size=4, seq_len=16, steps=12, eval_every=4, val_windows=4, embed_dim=8)
EVERY = 2  # checkpoint_every
IDENTITY = {"test": "faults"}
RNG = random.Random(1129)
KILL_POINTS = sorted(RNG.sample(range(1, CFG.steps), 4))


@pytest.fixture(scope="module")
def corpus():
    text = synthetic_prose(6000, seed=3)
    vocab = Vocabulary.from_text(text)
    train, val = split_train_val(vocab.encode(text), 0.9)
    return len(vocab), train, val


def run(corpus, cell="lstm", checkpoint_dir=None, log=None, **kwargs):
    vocab_size, train, val = corpus
    lines = [] if log is None else log
    result = train_model(
        cell=cell, hidden=12, seed=0, vocab_size=vocab_size, train_ids=train, val_ids=val, cfg=CFG,
        checkpoint_dir=checkpoint_dir, checkpoint_every=EVERY, identity=IDENTITY, device="cpu",
        log=lines.append, **kwargs,
    )  # fmt: skip
    return result


def saved_bytes(result) -> bytes:
    """model.pt as the pipeline writes it (atomic_torch_save), as bytes."""
    buffer = io.BytesIO()
    torch.save(result.model.state_dict(), buffer)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def uninterrupted(corpus):
    return {cell: run(corpus, cell) for cell in ("rnn", "gru", "lstm")}


def assert_same_run(result, reference):
    assert saved_bytes(result) == saved_bytes(reference)
    assert str(result.history) == str(reference.history)  # str: nan == nan
    assert (result.best_val_loss, result.best_step) == (reference.best_val_loss, reference.best_step)


def interrupted(corpus, tmp_path, kill_after, cell="lstm") -> Path:
    ckpt = tmp_path / "ckpt"
    run(corpus, cell, checkpoint_dir=ckpt, stop_after=kill_after)
    return ckpt


# --- kills -----------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
@pytest.mark.parametrize("kill_after", KILL_POINTS)
def test_killed_at_a_random_step_resumes_byte_identical(corpus, uninterrupted, tmp_path, cell, kill_after,
                                                        fault_ledger):  # fmt: skip
    name = fault_ledger.injected(f"unit: {cell} stopped after step {kill_after}, resumed")
    ckpt = interrupted(corpus, tmp_path, kill_after, cell)
    log = []
    resumed = run(corpus, cell, checkpoint_dir=ckpt, log=log)
    expected_from = kill_after - kill_after % EVERY or None
    assert resumed.resumed_from == expected_from
    if expected_from:
        assert f"resumed from checkpoint at step {expected_from}" in log
    assert_same_run(resumed, uninterrupted[cell])
    fault_ledger.survived(name)


def test_pipeline_writes_byte_identical_model_files(corpus, uninterrupted, tmp_path):
    """model.pt is written with atomic_torch_save: same state, same file bytes."""
    resumed = run(corpus, checkpoint_dir=interrupted(corpus, tmp_path, KILL_POINTS[-1]))
    atomic_torch_save(resumed.model.state_dict(), tmp_path / "a.pt")
    atomic_torch_save(uninterrupted["lstm"].model.state_dict(), tmp_path / "b.pt")
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "b.pt").read_bytes()
    assert not list(tmp_path.glob(".*.tmp*"))


# --- a kill while a checkpoint is being written ------------------------------------


def test_leftover_temp_file_of_a_killed_save_is_ignored(corpus, uninterrupted, tmp_path, fault_ledger):
    """os.replace never happened: a partial .checkpoint_stepN.pt.tmpPID sits beside the
    good checkpoints. It is not a checkpoint name, so it is never loaded."""
    name = fault_ledger.injected("unit: leftover temp file of a save killed mid-write")
    ckpt = interrupted(corpus, tmp_path, 7)
    newest_step, newest = list_checkpoints(ckpt)[0]
    leftover = ckpt / f".checkpoint_step{newest_step + EVERY}.pt.tmp4242"
    leftover.write_bytes(newest.read_bytes()[: newest.stat().st_size // 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about: the temp file is not a checkpoint
        resumed = run(corpus, checkpoint_dir=ckpt)
    assert resumed.resumed_from == newest_step
    assert_same_run(resumed, uninterrupted["lstm"])
    fault_ledger.survived(name)


def test_a_failing_save_leaves_the_previous_checkpoint_and_no_temp_file(tmp_path, monkeypatch, fault_ledger):
    """An error inside torch.save (disk full, say) after some bytes went out."""
    name = fault_ledger.injected("unit: torch.save fails half-way through a checkpoint")
    target = tmp_path / "checkpoint_step4.pt"
    atomic_torch_save({"step": 4}, target)
    before = target.read_bytes()
    real_save = torch.save

    def failing_save(obj, fh, *args, **kwargs):
        real_save(obj, fh, *args, **kwargs)
        fh.truncate(fh.tell() // 2)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", failing_save)
    with pytest.raises(OSError, match="No space left"):
        atomic_torch_save({"step": 4, "more": torch.zeros(1000)}, target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint_step4.pt"]
    fault_ledger.survived(name)


# --- damaged checkpoints --------------------------------------------------------------


def truncate_to(fraction):
    def damage(path: Path, rng: random.Random) -> None:
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * fraction)])

    return damage


DAMAGE = {
    "empty file": truncate_to(0.0),
    "truncated to 1%": truncate_to(0.01),
    "truncated to half": truncate_to(0.5),
    "last byte missing": lambda path, rng: path.write_bytes(path.read_bytes()[:-1]),
    "one bit flipped in a tensor": flip_a_tensor_byte,
    "random garbage": lambda path, rng: path.write_bytes(rng.randbytes(path.stat().st_size)),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_newest_checkpoint_falls_back_to_the_previous(corpus, uninterrupted, tmp_path, damage,
                                                              fault_ledger):  # fmt: skip
    name = fault_ledger.injected(f"unit: newest checkpoint damaged ({damage})")
    ckpt = interrupted(corpus, tmp_path, 9)
    (newest_step, newest), (previous_step, _) = list_checkpoints(ckpt)[:2]
    DAMAGE[damage](newest, random.Random(damage))
    log = []
    with pytest.warns(UserWarning, match="unreadable"):
        resumed = run(corpus, checkpoint_dir=ckpt, log=log)
    assert any(line.startswith(f"WARNING: checkpoint {newest}") and "discarding it" in line for line in log)
    assert resumed.resumed_from == previous_step < newest_step
    assert_same_run(resumed, uninterrupted["lstm"])
    fault_ledger.survived(name)


def test_every_checkpoint_damaged_restarts_from_scratch(corpus, uninterrupted, tmp_path, fault_ledger):
    name = fault_ledger.injected("unit: every checkpoint damaged")
    ckpt = interrupted(corpus, tmp_path, 11)
    rng = random.Random(5)
    for _, path in list_checkpoints(ckpt):
        flip_a_tensor_byte(path, rng)
    with pytest.warns(UserWarning, match="unreadable"):
        resumed = run(corpus, checkpoint_dir=ckpt)
    assert resumed.resumed_from is None
    assert_same_run(resumed, uninterrupted["lstm"])
    fault_ledger.survived(name)


def test_checkpoint_copied_under_another_step_is_not_resumed(corpus, uninterrupted, tmp_path, fault_ledger):
    """A checkpoint whose name and content disagree (a stray copy) is skipped."""
    name = fault_ledger.injected("unit: checkpoint renamed to a later step")
    ckpt = interrupted(corpus, tmp_path, 6)
    newest_step, newest = list_checkpoints(ckpt)[0]
    (ckpt / f"checkpoint_step{newest_step + 4}.pt").write_bytes(newest.read_bytes())
    with pytest.warns(UserWarning, match="another configuration"):
        resumed = run(corpus, checkpoint_dir=ckpt)
    assert resumed.resumed_from == newest_step
    assert_same_run(resumed, uninterrupted["lstm"])
    fault_ledger.survived(name)
