"""What must fit in what: the windows a run reads against the splits of its text.

Pure Python (no torch), so the plan of runs (:mod:`gatedrnn.plan.checks`) checks a
text whose length the config fixes (the synthetic corpus, the copy task) when the
config is loaded, and the training job (:mod:`gatedrnn.train.checks`) checks a
downloaded corpus, whose length is known only once it exists, before it trains:
the same arithmetic, the same messages (the key, its value, the limit, the fix).

The arithmetic is that of :mod:`gatedrnn.core.data`: the contiguous split cuts at
``int(characters * train_fraction)``; a training window is ``seq_len + 1`` ids drawn
at a random start of the training split; the validation windows (``seq_len + 1``
ids) and the probe lines (``probe.length`` ids) sit at evenly spaced starts of the
validation split, distinct as long as there are at least as many possible starts.
"""

from __future__ import annotations

# The perturbation measures (C4, E1, E3; gatedrnn.analysis.stats): one character of
# each probe line changed at CHANGE_POSITION and followed DECAY_STEPS steps. Equal to
# gatedrnn.analysis.stats's constants (tests/test_config_constraints.py checks).
CHANGE_POSITION = 64
DECAY_STEPS = 32
PROBE_MIN_LENGTH = CHANGE_POSITION + DECAY_STEPS + 1


def split_lengths(characters: int, train_fraction: float) -> tuple[int, int]:
    """(training, validation) characters of :func:`gatedrnn.core.data.split_train_val`."""
    cut = int(characters * train_fraction)
    return cut, characters - cut


def probe_length_problem(length: int) -> str | None:
    """The perturbation measures need probe lines of at least ``PROBE_MIN_LENGTH``."""
    if length >= PROBE_MIN_LENGTH:
        return None
    return (
        f"probe.length is {length}, below {PROBE_MIN_LENGTH}: the perturbation measures (C4, E1, E3) "
        f"change character {CHANGE_POSITION} of each probe line and follow it {DECAY_STEPS} steps, "
        f"which needs lines of at least {PROBE_MIN_LENGTH} characters; set probe.length to "
        f"{PROBE_MIN_LENGTH} or more (the study's 128)"
    )


def window_problems(
    text: str,
    characters: int,
    train_fraction: float,
    *,
    seq_len: int | None = None,
    val_windows: int | None = None,
    probe_lines: int | None = None,
    probe_length: int | None = None,
    keys: dict[str, str] | None = None,
) -> list[str]:
    """What does not fit in the splits of ``text`` (a description: what it is and which
    key sets its length) of ``characters`` characters: a training window and the
    validation windows of ``seq_len`` (when given), the probe lines (when given).
    ``keys`` names the config key of ``seq_len``, ``val_windows`` and ``probe_lines``
    (default ``train.seq_len``, ``train.val_windows``, ``probe.lines``)."""
    keys = {"seq_len": "train.seq_len", "val_windows": "train.val_windows", "probe_lines": "probe.lines"} | (
        keys or {}
    )
    train, val = split_lengths(characters, train_fraction)
    split = f"split.train_fraction {train_fraction:g}"
    longer = "or use a longer text"
    problems = []
    if seq_len is not None:
        window = seq_len + 1
        if train < window:
            problems.append(
                f"{keys['seq_len']} is {seq_len}: a training window of seq_len + 1 = {window} characters "
                f"does not fit in the {train} training characters ({split}) of {text}; shorten "
                f"{keys['seq_len']} {longer}"
            )
        if val < window:
            problems.append(
                f"{keys['seq_len']} is {seq_len}: a validation window of seq_len + 1 = {window} characters "
                f"does not fit in the {val} validation characters ({split}) of {text}; shorten "
                f"{keys['seq_len']}, lower split.train_fraction {longer}"
            )
        elif val_windows is not None and val_windows > val - seq_len:
            problems.append(
                f"{keys['val_windows']} is {val_windows}, but the {val} validation characters ({split}) "
                f"of {text} hold only {val - seq_len} distinct windows of seq_len + 1 = {window} "
                f"characters; set {keys['val_windows']} to at most {val - seq_len} {longer}"
            )
    if probe_length is not None:
        if val < probe_length:
            problems.append(
                f"probe.length is {probe_length}, longer than the {val} validation characters ({split}) "
                f"of {text}: no probe line fits; shorten probe.length (to no less than "
                f"{PROBE_MIN_LENGTH}), lower split.train_fraction {longer}"
            )
        elif probe_lines is not None and probe_lines > val - probe_length + 1:
            problems.append(
                f"{keys['probe_lines']} is {probe_lines}, but the {val} validation characters ({split}) "
                f"of {text} hold only {val - probe_length + 1} distinct probe lines of probe.length "
                f"{probe_length}; set {keys['probe_lines']} to at most {val - probe_length + 1} {longer}"
            )
    return problems


def vocabulary_problem(vocab_size: int, text: str) -> str | None:
    """The perturbation measures change a character to the next of the vocabulary."""
    if vocab_size >= 2:
        return None
    return (
        f"{text} has {vocab_size} distinct character(s): the perturbation measures (C4, E1, E3) change "
        "a probe character to the next one of the vocabulary, which needs at least 2; use a corpus "
        "with more than one distinct character"
    )
