"""SIGTERM (a scheduler's time limit) loses nothing: the step in progress completes, is
checkpointed, the job exits 143; the rerun resumes from that step and ends bit-identical.

The main test sends a real SIGTERM to a real training process (the train rule's code,
gatedrnn.train.pipeline.train_one, at tiny size) at a seeded step: the process prints
each step's log line and, at step k, waits for the signal, so the signal lands inside
step k whatever the machine's speed. The rest runs in this process: the previous
handler is back after training, and nothing is installed where it cannot work.
(tests/test_faults_kill.py sends SIGTERM to a training job under Snakemake.)
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

from gatedrnn.core.data import Vocabulary, split_train_val
from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.checkpoints import FINAL_STATE_NAME, list_checkpoints
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.interrupt import SIGTERM_EXIT_STATUS, TrainingInterrupted, deferred_sigterm
from gatedrnn.train.loop import train_model

torch.set_num_threads(1)

STEPS = 12
TERM_AT = random.Random(20).randrange(1, STEPS)  # the seeded step the signal lands in

CHILD = """
import os, signal, sys, time
from types import SimpleNamespace
import torch
from gatedrnn.train.interrupt import SIGTERM_EXIT_STATUS, TrainingInterrupted
from gatedrnn.train.pipeline import train_one
torch.set_num_threads(1)
corpus, root, term_at = sys.argv[1], sys.argv[2], int(sys.argv[3])

def log(message):
    print(message, flush=True)
    if term_at and message.startswith(f"step {term_at} "):
        print("READY-FOR-SIGTERM", flush=True)
        handler = signal.getsignal(signal.SIGTERM)  # the training loop's flag
        deadline = time.monotonic() + 60
        while not handler.received and time.monotonic() < deadline:
            time.sleep(0.01)

model = os.path.join(root, "model")
outputs = SimpleNamespace(model=os.path.join(model, "model.pt"), history=os.path.join(model, "history.csv"),
                          summary=os.path.join(model, "summary.json"))
cfg = dict(optimizer="adam", lr=0.01, momentum=0.9, batch_size=4, seq_len=16, steps=STEPS, clip_norm=1.0,
           eval_every=1, val_windows=4, embed_dim=8, layers=1, forget_bias=None)
try:
    train_one(corpus_path=os.path.join(corpus, "corpus.txt"), provenance_path=os.path.join(corpus, "corpus.json"),
              cell="lstm", width_token="w12", seed=0, regime="default", train_config=cfg, train_fraction=0.9,
              checkpoint_dir=os.path.join(root, "ckpt"), checkpoint_every=1000, device="cpu", threads=1,
              outputs=outputs, log=log)
except TrainingInterrupted as err:
    print(f"ERROR: {err}", flush=True)
    sys.exit(SIGTERM_EXIT_STATUS)
""".replace("STEPS", str(STEPS))  # noqa: E501


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    write_corpus(CorpusSpec(source="synthetic", synthetic_chars=6000, synthetic_seed=0),
                 directory / "corpus.txt", directory / "corpus.json")  # fmt: skip
    return directory


def child(corpus_files, root: Path, term_at: int = 0) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(corpus_files), str(root), str(term_at)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def finish(proc) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=600)
    return proc.returncode, out


def comparable(summary_path: Path) -> dict:
    summary = json.loads(summary_path.read_text())
    return {k: v for k, v in summary.items() if k not in ("wall_seconds", "resumed_from_step")}


def test_real_sigterm_at_a_seeded_step_then_rerun_is_bit_identical(corpus_files, tmp_path, fault_ledger):
    name = fault_ledger.injected(f"unit: SIGTERM to a training process in step {TERM_AT} of {STEPS}, rerun")
    rc, out = finish(child(corpus_files, tmp_path / "uninterrupted"))
    assert rc == 0, out

    root = tmp_path / "terminated"
    proc = child(corpus_files, root, TERM_AT)
    before = []
    for line in proc.stdout:
        before.append(line)
        if line.strip() == "READY-FOR-SIGTERM":
            proc.send_signal(signal.SIGTERM)
            break
    else:
        pytest.fail(f"the child never reached step {TERM_AT}:\n{''.join(before)}")
    rc, out = finish(proc)
    assert rc == SIGTERM_EXIT_STATUS == 143, out
    checkpoint = root / "ckpt" / f"checkpoint_step{TERM_AT}.pt"
    assert (
        f"SIGTERM received: stopped after step {TERM_AT} of {STEPS} and saved checkpoint {checkpoint}" in out
    )
    assert "Traceback" not in out
    assert [step for step, _ in list_checkpoints(root / "ckpt")] == [TERM_AT]  # checkpoint_every is 1000
    assert not (root / "model").exists() or not any((root / "model").iterdir())
    assert f"step {TERM_AT + 1} " not in out  # nothing trained past the step the signal landed in

    rc, out = finish(child(corpus_files, root))
    assert rc == 0, out
    assert f"resumed from checkpoint at step {TERM_AT}" in out
    assert json.loads((root / "model/summary.json").read_text())["resumed_from_step"] == TERM_AT
    for file in ("model.pt", "history.csv"):
        assert (root / "model" / file).read_bytes() == (tmp_path / "uninterrupted/model" / file).read_bytes()
    assert comparable(root / "model/summary.json") == comparable(
        tmp_path / "uninterrupted/model/summary.json"
    )
    final = (root / "ckpt" / FINAL_STATE_NAME).read_bytes()
    assert final == (tmp_path / "uninterrupted/ckpt" / FINAL_STATE_NAME).read_bytes()
    assert list_checkpoints(root / "ckpt") == []  # spent
    fault_ledger.survived(name)


# --- in this process ----------------------------------------------------------------


CFG = TrainConfig(batch_size=4, seq_len=16, steps=8, eval_every=2, val_windows=4, embed_dim=8)


@pytest.fixture(scope="module")
def corpus():
    text = synthetic_prose(6000, seed=2)
    vocab = Vocabulary.from_text(text)
    train, val = split_train_val(vocab.encode(text), 0.9)
    return len(vocab), train, val


def run(corpus, log=lambda message: None, **kwargs):
    vocab_size, train, val = corpus
    return train_model(cell="gru", hidden=12, seed=0, vocab_size=vocab_size, train_ids=train, val_ids=val,
                       cfg=CFG, device="cpu", log=log, **kwargs)  # fmt: skip


def sigterm_at(step):
    """A log callback that sends this process a real SIGTERM at ``step``'s log line."""
    import os

    def log(message):
        if message.startswith(f"step {step} "):
            os.kill(os.getpid(), signal.SIGTERM)

    return log


@pytest.fixture
def own_handler():
    """A SIGTERM handler of the test's own, restored afterwards."""
    calls = []

    def handler(signum, frame):
        calls.append(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    yield handler, calls
    signal.signal(signal.SIGTERM, previous)


def test_the_previous_handler_is_back_after_training_and_after_an_interruption(corpus, tmp_path, own_handler):
    handler, calls = own_handler
    run(corpus, checkpoint_dir=tmp_path / "a")
    assert signal.getsignal(signal.SIGTERM) is handler
    with pytest.raises(TrainingInterrupted, match="stopped after step 4 of 8") as stopped:
        run(corpus, checkpoint_dir=tmp_path / "b", log=sigterm_at(4))
    assert stopped.value.step == 4
    assert signal.getsignal(signal.SIGTERM) is handler
    assert calls == []  # the training loop had it, not the previous handler


def test_sigterm_in_the_last_step_checkpoints_it_and_the_rerun_only_writes(corpus, tmp_path):
    uninterrupted = run(corpus)
    with pytest.raises(TrainingInterrupted, match=f"stopped after step {CFG.steps} of {CFG.steps}"):
        run(corpus, checkpoint_dir=tmp_path, log=sigterm_at(CFG.steps))
    resumed = run(corpus, checkpoint_dir=tmp_path)
    assert resumed.resumed_from == CFG.steps
    sa, sb = resumed.model.state_dict(), uninterrupted.model.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert str(resumed.history) == str(uninterrupted.history)


def test_sigterm_at_a_checkpoint_step_writes_it_once(corpus, tmp_path):
    with pytest.raises(TrainingInterrupted):
        run(corpus, checkpoint_dir=tmp_path, checkpoint_every=2, log=sigterm_at(4))
    assert [step for step, _ in list_checkpoints(tmp_path)] == [4, 2]


def test_without_a_checkpoint_directory_nothing_is_installed(corpus, own_handler):
    handler, _ = own_handler
    seen = []
    run(corpus, log=lambda message: seen.append(signal.getsignal(signal.SIGTERM)))
    assert seen and all(h is handler for h in seen)


def test_outside_the_main_thread_nothing_is_installed(own_handler):
    handler, _ = own_handler
    seen = []

    def body():
        with deferred_sigterm() as flag:
            seen.append((flag, signal.getsignal(signal.SIGTERM)))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [(None, handler)]
