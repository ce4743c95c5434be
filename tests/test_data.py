"""Vocabulary, split and window sampling."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from gatedrnn.core.data import (
    Vocabulary,
    even_offsets,
    probe_windows,
    sample_windows,
    split_train_val,
    validation_windows,
)


def test_vocabulary_round_trip_and_order():
    vocab = Vocabulary.from_text("hello, world\n")
    assert vocab.chars == "".join(sorted(set("hello, world\n")))
    assert vocab.decode(vocab.encode("world")) == "world"
    with pytest.raises(ValueError, match="not in the vocabulary"):
        vocab.encode("z")


def test_contiguous_split():
    ids = torch.arange(100)
    train, val = split_train_val(ids, 0.9)
    assert train.tolist() == list(range(90)) and val.tolist() == list(range(90, 100))


def test_probe_windows_are_evenly_spaced_and_fixed():
    val = torch.arange(1000)
    probe = probe_windows(val, 32, 128)
    assert probe.shape == (32, 128)
    starts = probe[:, 0]
    assert starts[0] == 0 and starts[-1] == 1000 - 128
    gaps = starts[1:] - starts[:-1]
    assert gaps.max() - gaps.min() <= 1
    assert torch.equal(probe, probe_windows(val, 32, 128))
    assert torch.equal(probe[:, 1:] - probe[:, :-1], torch.ones(32, 127, dtype=torch.long))


def test_validation_windows_carry_the_shifted_target():
    windows = validation_windows(torch.arange(500), 4, 16)
    assert windows.shape == (4, 17)


def test_sampling_depends_only_on_the_generator():
    ids = torch.arange(10_000)
    a = sample_windows(ids, 32, 128, torch.Generator().manual_seed(3))
    torch.manual_seed(12345)  # the global RNG must not matter
    b = sample_windows(ids, 32, 128, torch.Generator().manual_seed(3))
    assert torch.equal(a, b)
    assert a.shape == (32, 129)
    assert torch.equal(a[:, 1:] - a[:, :-1], torch.ones(32, 128, dtype=torch.long))


def test_windows_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="does not fit"):
        even_offsets(10, 2, 11)
    with pytest.raises(ValueError, match="shorter than one window"):
        sample_windows(torch.arange(10), 2, 10, torch.Generator())


@settings(max_examples=200, deadline=None, derandomize=True)
@given(vocab_text=st.text(min_size=1, max_size=40), extra=st.text(max_size=5), data=st.data())
def test_encode_matches_a_per_character_lookup(vocab_text, extra, data):
    """The vectorised encode against the obvious dict lookup, on any Unicode text
    (astral characters included); a character outside the vocabulary is refused."""
    vocab = Vocabulary.from_text(vocab_text)
    text = data.draw(st.text(alphabet=st.sampled_from(vocab.chars), max_size=60))
    index = {c: i for i, c in enumerate(vocab.chars)}
    assert vocab.encode(text).tolist() == [index[c] for c in text]
    assert vocab.encode(text).dtype == torch.long
    unknown = [c for c in extra if c not in index]
    if unknown:
        with pytest.raises(ValueError, match="not in the vocabulary"):
            vocab.encode(text + extra)
