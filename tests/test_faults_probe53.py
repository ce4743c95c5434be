"""The round-two probe's own cases (issue #53): members of the issue's classes that no
test tried before, each kept with what became of it.

``OUTCOME`` of each case: ``refused`` (already refused clearly), ``handled`` (accepted,
and rightly: the run does what the config says), ``fixed`` (accepted wrongly or refused
poorly until issue #53). Config cases go through what workflow/rules/common.smk runs
(the schema, the plan, the memory check) in-process; a few go through the real command
line. Each takes well under a second but those.
"""

# ruff: noqa: E501  (tables of cases, one case a line)

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, run_snakemake
from faults.runs import smoke_config, write_config
from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config, validate

from gatedrnn.io.records import read_table
from gatedrnn.plan import Plan
from gatedrnn.plan.config_files import typed_overrides
from gatedrnn.plan.resources import generated_text_problems

SCHEMA_PATH = REPO / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())
REFUSED, HANDLED, FIXED = "refused", "handled", "fixed"


def at(path, value):
    def change(config):
        for key in path[:-1]:
            config = config[key]
        config[path[-1]] = value

    return change


def checked(change) -> str:
    """What common.smk says of the smoke config with ``change``: "" if it plans, else the
    refusal's message."""
    config = smoke_config()
    if callable(change):
        change(config)
    else:
        update_config(config, copy.deepcopy(change))
    try:
        validate(config, str(SCHEMA_PATH), set_default=False)
        plan = Plan.from_config(config)
    except (WorkflowError, ValueError) as err:
        return str(err)
    return "; ".join(generated_text_problems(plan, (64_000, "this machine's memory")))


OQ = "open_questions"
CONFIG_CASES = [
    # (name, outcome, change, what the refusal says; "" where the config plans)
    ("grid.models empty", REFUSED, at(("grid", "models"), []), "On instance['grid']['models']"),
    ("grid.seeds empty", REFUSED, at(("grid", "seeds"), []), "On instance['grid']['seeds']"),
    ("grid.seeds negative", REFUSED, at(("grid", "seeds"), [-1]), "On instance['grid']['seeds'][0]"),
    (
        "a seed of 2**32",
        FIXED,
        {"regime_sweep": {"seeds": [2**32]}},
        "On instance['regime_sweep']['seeds'][0]",
    ),
    ("long_memory.seed 2**63", FIXED, {OQ: {"long_memory": {"seed": 2**63}}}, "['long_memory']['seed']"),
    (
        "grid width 0",
        REFUSED,
        at(("grid", "models"), [{"cell": "lstm", "width": 0}]),
        "['models'][0]['width']",
    ),
    ("grid width 'w24'", REFUSED, at(("grid", "models"), [{"cell": "lstm", "width": "w24"}]), "['width']"),
    ("grid.reference_width 1 (budget widths of 1)", HANDLED, {"grid": {"reference_width": 1}}, ""),
    ("grid without the reference LSTM", HANDLED, at(("grid", "models"), [{"cell": "gru", "width": 24}]), ""),
    ("a regime with an unknown key", REFUSED, {"regimes": {"x": {"learning_rate": 0.1}}}, "['regimes']['x']"),
    (
        "a regime name with capitals",
        REFUSED,
        {"regimes": {"Bad-Name": {"lr": 0.1}}},
        "On instance['regimes']",
    ),
    ("a regime on an unknown dataset", REFUSED, {"regimes": {"x": {"dataset": "moon"}}}, "['x']['dataset']"),
    (
        "a regime on small_corpus",
        REFUSED,
        {"regimes": {"x": {"dataset": "small_corpus"}}},
        "['x']['dataset']",
    ),
    (
        "regime_sweep adam: []",
        REFUSED,
        at(("regime_sweep", "optimizers", "adam"), []),
        "['optimizers']['adam']",
    ),
    ("regime_sweep.steps: []", REFUSED, at(("regime_sweep", "steps"), []), "['regime_sweep']['steps']"),
    ("regime_sweep lr twice", REFUSED, at(("regime_sweep", "optimizers", "adam"), [0.01, 0.01]), "['adam']"),
    (
        "regime_sweep batch size twice",
        REFUSED,
        at(("regime_sweep", "batch_sizes"), [8, 8]),
        "['batch_sizes']",
    ),
    ("regime_sweep seq_len 1", HANDLED, at(("regime_sweep", "seq_lens"), [1]), ""),
    (
        "forget_bias_sweep.regimes: []",
        REFUSED,
        at(("forget_bias_sweep", "regimes"), []),
        "['forget_bias_sweep']",
    ),
    (
        "forget_bias_sweep regime twice",
        REFUSED,
        at(("forget_bias_sweep", "regimes"), ["default"] * 2),
        "['regimes']",
    ),
    (
        "a forget-bias regime that changes steps",
        FIXED,
        {"regimes": {"forget_bias_1": {"steps": 80}}},
        "forget_bias_sweep.regimes lists 'forget_bias_1', which also changes steps",
    ),
    (
        "a forget-bias regime that changes the model",
        FIXED,
        {"regimes": {"forget_bias_3": {"readout_norm": "none"}}},
        "which also changes readout_norm",
    ),
    (
        "a forget-bias regime at null b beside default",
        REFUSED,
        {"regimes": {"forget_bias_1": {"forget_bias": None}}},
        "all at forget bias b = 0",
    ),
    (
        "two_layers' regime also changes lr",
        FIXED,
        {"regimes": {"two_layers": {"layers": 2, "lr": 0.1}}},
        "open_questions.two_layers.regime is 'two_layers', which also changes lr",
    ),
    (
        "two_layers' regime also changes the windows",
        FIXED,
        {"regimes": {"two_layers": {"layers": 2, "batch_size": 16}}},
        "which also changes batch_size",
    ),
    (
        "two_layers' regime undefined",
        REFUSED,
        {OQ: {"two_layers": {"regime": "nope"}}},
        "names regime 'nope'",
    ),
    (
        "longer_training's regime also changes lr",
        REFUSED,
        {"regimes": {"steps_x4": {"steps": 160, "lr": 0.1}}},
        "which also changes lr",
    ),
    (
        "model_normalisation's regime also changes steps",
        REFUSED,
        {"regimes": {"old_model": {"readout_norm": "none", "vocabulary": "corpus", "steps": 80}}},
        "which also changes steps",
    ),
    (
        "long_memory distance past the windows",
        REFUSED,
        {OQ: {"long_memory": {"distance": 64}}},
        "open_questions.long_memory.distance is 64",
    ),
    ("long_memory keys 1", REFUSED, {OQ: {"long_memory": {"keys": 1}}}, "['long_memory']['keys']"),
    ("long_memory keys 27", REFUSED, {OQ: {"long_memory": {"keys": 27}}}, "['long_memory']['keys']"),
    (
        "long_memory on the default dataset",
        REFUSED,
        {OQ: {"long_memory": {"regimes": ["default"]}}},
        "it must set dataset: long_memory",
    ),
    ("longer_training.models: []", REFUSED, at((OQ, "longer_training", "models"), []), "['models']"),
    ("reset_gate width 0", REFUSED, at((OQ, "reset_gate", "widths"), [0]), "['reset_gate']['widths'][0]"),
    (
        "train.forget_bias with a GRU in the grid",
        REFUSED,
        {"train": {"forget_bias": 1.0}},
        "train.forget_bias is 1.0, but regimes",
    ),
    (
        "train.val_windows past the validation split",
        REFUSED,
        {"train": {"val_windows": 5000}},
        "train.val_windows is 5000",
    ),
    (
        "split.train_fraction 0.999 (a validation split of 60)",
        REFUSED,
        {"split": {"train_fraction": 0.999}},
        "does not fit in the 60 validation characters",
    ),
    (
        "train.eval_every not a divisor of steps",
        REFUSED,
        {"train": {"eval_every": 15}},
        "not a multiple of train.eval_every 15",
    ),
    (
        "protocol.small_corpus.chars 10",
        REFUSED,
        {"protocol": {"small_corpus": {"chars": 10}}},
        "does not fit in the 9 training characters",
    ),
    # the confirmation's count of regimes is gone: the front decides which regimes (issue #48)
    (
        "protocol.confirm.regimes, removed",
        REFUSED,
        {"protocol": {"confirm": {"regimes": 3}}},
        "('regimes' was unexpected)",
    ),
    (
        "protocol.confirm.seeds empty",
        REFUSED,
        {"protocol": {"confirm": {"seeds": []}}},
        "['confirm']['seeds']",
    ),
    (
        "no alphabet candidates",
        REFUSED,
        at(("protocol", "alphabet_candidates"), {}),
        "['alphabet_candidates']",
    ),
    ("numerics.cpu_isa unknown", REFUSED, {"numerics": {"cpu_isa": "sse9"}}, "['numerics']['cpu_isa']"),
    ("train.lr 1e308 (diverges: recorded as a result)", HANDLED, {"train": {"lr": 1e308}}, ""),
    (
        "a synthetic corpus of 2e10 characters",
        FIXED,
        {"corpus": {"synthetic_chars": 2 * 10**10}},
        "would need about 95,367.4 MB to generate, above this machine's memory (64,000 MB)",
    ),
    (
        "a copy task of 2e10 characters",
        FIXED,
        {OQ: {"long_memory": {"chars": 2 * 10**10}}},
        "the copy task (open_questions.long_memory.chars 20000000000) would need about",
    ),
]


@pytest.mark.parametrize(
    "name, outcome, change, fragment", CONFIG_CASES, ids=[case[0] for case in CONFIG_CASES]
)
def test_config_case(name, outcome, change, fragment, fault_ledger):
    tried = fault_ledger.tried(f"probe 53 (config): {name}")
    message = checked(change)
    if outcome == HANDLED:
        assert message == "", message
    else:
        assert fragment in message, message
    fault_ledger.rejected(tried)


# --------------------------------------------------------------------- --config values

CONFIG_ARGUMENT_CASES = [
    # (--config value as Snakemake parses it, the config it must give, or None where the schema refuses)
    ("regime_sweep='{enabled: false}'", {"regime_sweep": {"enabled": "false"}}, {"regime_sweep": {"enabled": False}}),
    ("grid='{seeds: [0, 1]}'", {"grid": {"seeds": ["0", "1"]}}, {"grid": {"seeds": [0, 1]}}),
    ("train='{forget_bias: null}'", {"train": {"forget_bias": "null"}}, {"train": {"forget_bias": None}}),
    ("train='{lr: 1e-3}'", {"train": {"lr": "1e-3"}}, {"train": {"lr": "1e-3"}}),  # YAML 1.1: a string
    ("corpus='{synthetic_chars: 1e5}'", {"corpus": {"synthetic_chars": "1e5"}}, {"corpus": {"synthetic_chars": "1e5"}}),
    ("corpus='{members: \"*\"}'", {"corpus": {"members": "*"}}, {"corpus": {"members": "*"}}),
    ("regimes='{x: {lr: 0.5, steps: 80}}'", {"regimes": {"x": {"lr": "0.5", "steps": "80"}}},
     {"regimes": {"x": {"lr": 0.5, "steps": 80}}}),
]  # fmt: skip


@pytest.mark.parametrize(
    "argument, parsed, typed", CONFIG_ARGUMENT_CASES, ids=[c[0] for c in CONFIG_ARGUMENT_CASES]
)
def test_config_argument_is_typed_by_the_schema(argument, parsed, typed):
    """A nested --config value arrives as strings: read as YAML where the schema wants
    it (handled); where YAML reads it as a string still ('1e5'), the schema refuses it,
    naming the key."""
    assert typed_overrides(parsed, SCHEMA) == typed


def test_config_argument_still_a_string_is_refused_naming_the_key(tmp_path, fault_ledger):
    tried = fault_ledger.tried("probe 53 (--config): corpus='{synthetic_chars: 1e5}'")
    proc = run_snakemake(tmp_path / "run", "-n", "data/corpus.txt", "--config", "corpus={synthetic_chars: 1e5}",
                         configfile=write_config(tmp_path / "c.yaml"), check=False, timeout=120)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "On instance['corpus']['synthetic_chars']" in output and "'1e5'" in output
    fault_ledger.rejected(tried)


# ------------------------------------------------------------ corpus records and memory


def fake_corpus(workdir: Path, record) -> None:
    (workdir / "data").mkdir(parents=True, exist_ok=True)
    (workdir / "data" / "corpus.txt").write_text("ab\n" * 100)
    (workdir / "data" / "corpus.json").write_text(record if isinstance(record, str) else json.dumps(record))


@pytest.mark.parametrize(
    "outcome, record, args, fragment",
    [
        (FIXED, {"source": "synthetic", "characters": 300}, (),
         "data/corpus.json: the corpus record is empty or truncated, or not the corpus rule's (it lacks vocab_size)"),
        (REFUSED, '{"source": "synth', (), "data/corpus.json: the corpus record is empty or truncated"),
        (FIXED, {"source": "synthetic", "characters": 300, "vocab_size": 3}, ("--resources", "mem_mb=0"),
         "--resources mem_mb is 0 MB: no job could start"),
    ],
    ids=["corpus.json lacks vocab_size", "corpus.json truncated", "--resources mem_mb=0"],
)  # fmt: skip
def test_corpus_record_and_memory_cases(tmp_path, outcome, record, args, fragment, fault_ledger):
    tried = fault_ledger.tried(f"probe 53 (corpus record): {fragment[:60]}")
    workdir = tmp_path / "run"
    fake_corpus(workdir, record)
    proc = run_snakemake(workdir, "--cores", "1", *args, "--", "results/models/default/lstm_w24_s0/summary.json",
                         configfile=write_config(tmp_path / "c.yaml"), check=False, timeout=120)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and fragment in output, output[-3000:]
    assert "Traceback" not in output and "KeyError" not in output
    assert not (workdir / "results" / "models").exists()
    fault_ledger.rejected(tried)


# -------------------------------------------------------------------- command-line tools


def tool(*argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *argv], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "outcome, argv, fragment",
    [
        (FIXED, ["gatedrnn.code_version", "{tmp}/missing.py"], "missing.py is not a file: give a rule script"),
        (FIXED, ["gatedrnn.verify", "fingerprint", "--file", "{tmp}/missing.json"],
         "missing.json is not a file: give the fingerprint file"),
        (REFUSED, ["gatedrnn.verify", "--directory", "{tmp}/a_file"], "a_file is a file; give a new folder"),
        (FIXED, ["gatedrnn.estimate", "--cores", "1", "--configfile", "{tmp}/empty.yaml", "--directory", "{tmp}"],
         "empty.yaml is empty; give it the keys it changes"),
        (FIXED, ["gatedrnn.estimate", "--cores", "1", "--configfile", "{tmp}/twice.yaml", "--directory", "{tmp}"],
         "twice.yaml: key(s) train given twice"),
        (REFUSED, ["gatedrnn.reference", "changes", "--old", "{tmp}/empty.csv"], "not a CSV"),
        (REFUSED, ["gatedrnn.reference", "pages", "--configfile", "{tmp}/empty.yaml", "--page", "{tmp}/p.md"],
         "--configfile {tmp}/empty.yaml: not a mapping of config keys"),
        (FIXED, ["gatedrnn.reference", "pages", "--reference", "{tmp}/truncated_reference", "--page", "{tmp}/p.md",
                 "--readme", "{tmp}/README.md"], "its manifest.json is not JSON"),
    ],
    ids=["code_version missing script", "fingerprint --file missing", "verify --directory a file",
         "estimate empty config", "estimate key twice", "changes --old empty", "pages empty config",
         "pages truncated manifest"],
)  # fmt: skip
def test_tool_case(tmp_path, outcome, argv, fragment, fault_ledger):
    tried = fault_ledger.tried(f"probe 53 (tool): {' '.join(argv[:3])}")
    (tmp_path / "a_file").write_text("")
    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "twice.yaml").write_text("train:\n  steps: 5\ntrain:\n  lr: 0.1\n")
    (tmp_path / "README.md").write_text((REPO / "README.md").read_text())
    reference = tmp_path / "truncated_reference"
    (reference / "tables").mkdir(parents=True)
    (reference / "README.md").write_text("")
    (reference / "manifest.json").write_text((REPO / "reference/manifest.json").read_text()[:300])
    before = (tmp_path / "README.md").read_bytes()
    proc = tool(*(part.format(tmp=tmp_path) for part in argv))
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and fragment.format(tmp=tmp_path) in output, output[-3000:]
    assert "Traceback" not in output
    assert (tmp_path / "README.md").read_bytes() == before and not (tmp_path / "p.md").exists()
    fault_ledger.rejected(tried)


def test_compare_names_a_table_with_text_in_a_number_column(tmp_path, capsys, fault_ledger):
    from gatedrnn.compare import main as compare_main

    tried = fault_ledger.tried("probe 53 (tool): compare, text in a numeric column")
    (tmp_path / "tables").mkdir()
    frame = pd.read_csv(REPO / "reference/tables/gru_vs_lstm.csv")
    frame["seed_0"] = frame["seed_0"].astype(str).str.replace(r"^\d", "x", regex=True)
    frame.to_csv(tmp_path / "tables" / "gru_vs_lstm.csv", index=False)
    assert compare_main(["--run", str(tmp_path), "--reference", str(REPO / "reference"), "--strict"]) == 1
    out = capsys.readouterr().out
    assert "gru_vs_lstm.csv" in out and "not comparable: column types differ" in out
    assert "1 table(s) not comparable: column types differ: gru_vs_lstm.csv" in out.splitlines()[-1]
    fault_ledger.rejected(tried)


# ------------------------------------------------------------------ half-written outputs


def write_history(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


HISTORY = "step,train_loss,val_loss\n0,4.6,4.6\n10,3.1,3.2\n20,2.9,3.0\n"
EXPECTED = {"keys": {"model": ["lstm_w24", "gru_budget24"], "seed": [0, 1]}, "seed_columns": []}
TABLE = "model,seed,mean\nlstm_w24,0,0.4\nlstm_w24,1,0.5\ngru_budget24,0,0.3\ngru_budget24,1,0.35\n"


@pytest.mark.parametrize(
    "outcome, text, expected, fragment",
    [
        (FIXED, HISTORY[:-9], None, "ends mid-line"),  # a history.csv cut mid-line read its last row as NaN
        (HANDLED, HISTORY, None, ""),
        (REFUSED, "", None, "is empty (0 bytes)"),
        (FIXED, "model,seed,mean\n", EXPECTED, "lacks every row of model lstm_w24, gru_budget24"),
        (FIXED, TABLE.replace("lstm_w24,1", "lstm_w24,0"), EXPECTED,
         "lacks 1 row(s) of the 4 expected (first: model lstm_w24, seed 1)"),
        (FIXED, TABLE.replace("gru_budget24,1,", "gru_budget24,,"), EXPECTED, "lacks 1 row(s) of the 4 expected"),
        (FIXED, TABLE.replace("model,seed", "model,run"), EXPECTED, "lacks the column(s) seed"),
        (HANDLED, TABLE + "lstm_w24,2,0.45\n", EXPECTED, ""),  # an extra seed: the plan's rows are all there
        (HANDLED, TABLE.replace("\n", "\r\n"), EXPECTED, ""),
    ],
    ids=["history cut mid-line", "history whole", "empty table", "header only", "a seed's row twice",
         "an empty seed cell", "a key column renamed", "an extra seed", "CRLF line ends"],
)  # fmt: skip
def test_half_written_table(tmp_path, outcome, text, expected, fragment, fault_ledger):
    tried = fault_ledger.tried(f"probe 53 (half-written table): {fragment or 'whole'}")
    path = write_history(tmp_path / "results/models/default/lstm_w24_s0/history.csv", text)
    if outcome == HANDLED:
        assert len(read_table(path, expected=expected)) >= 3
    else:
        with pytest.raises(ValueError) as refusal:
            read_table(path, expected=expected)
        assert str(path) in str(refusal.value) and fragment in str(refusal.value), str(refusal.value)
        assert "delete it and rerun the workflow" in str(refusal.value)
    fault_ledger.rejected(tried)


def test_the_outcomes_are_counted():
    """The report's counts (issue #53): every case here, by outcome."""
    counts: dict[str, int] = {}
    # --config: read as typed where YAML gives the schema's type (handled); '1e-3' and '1e5'
    # stay strings, refused naming the key; and the command-line run of the latter
    still_strings = sum(
        typed == parsed and "members" not in argument for argument, parsed, typed in CONFIG_ARGUMENT_CASES
    )
    cases = [c[1] for c in CONFIG_CASES] + [HANDLED] * (len(CONFIG_ARGUMENT_CASES) - still_strings)
    cases += [REFUSED] * still_strings + [REFUSED]
    for marks in (test_corpus_record_and_memory_cases, test_tool_case, test_half_written_table):
        for mark in marks.pytestmark:
            if mark.name == "parametrize":
                cases += [values[0] for values in mark.args[1]]
    cases += [REFUSED]  # compare with text in a number column
    for outcome in cases:
        counts[outcome] = counts.get(outcome, 0) + 1
    assert sum(counts.values()) >= 40, counts
    print(f"probe 53: {sum(counts.values())} cases: {counts}")
