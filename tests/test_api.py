"""The public API (issue 49, docs/api.md): ``gatedrnn.load`` and ``gatedrnn.gates`` on the
session's smoke run, checked against what the workflow wrote (the C2 table, the weights,
the summaries) and against the module's own forward; the command line; the notebook
docs/notebooks/gates.ipynb executed on the same run."""

from __future__ import annotations

import json
import shutil
import string
import subprocess
import sys

import nbformat
import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from conftest import REPO, SMOKE_CONFIG

import gatedrnn
from gatedrnn.api.__main__ import main as api_command

LSTM, GRU = "default/lstm_w24_s0", "default/gru_budget24_s0"  # config/smoke.yaml's grid
NOTEBOOK = REPO / "docs" / "notebooks" / "gates.ipynb"
TEXT = "To be, or not to be, that is the question:"


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_import_gatedrnn_leaves_torch_out_until_the_api_is_used():
    code = "import sys, gatedrnn; "
    code += "print('torch' in sys.modules, sorted({'load', 'gates'} & set(dir(gatedrnn))))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False ['gates', 'load']"
    assert gatedrnn.load is gatedrnn.api.load and gatedrnn.RunNotFound.__module__ == "gatedrnn.api.runs"


def test_no_rule_runs_the_api():
    """The API is for people, not rules: no rule script's code version (the modules it
    imports, gatedrnn.code_version) takes it in, so editing it reruns nothing."""
    from gatedrnn.code_version import module_closure

    scripts = sorted((REPO / "workflow" / "scripts").glob("*.py"))
    assert scripts
    for script in scripts:
        assert not [name for name in module_closure(script) if name.startswith("gatedrnn.api")], script.name


@pytest.mark.workflow
def test_load_by_name_path_and_checkpoint_gives_the_runs_own_weights(smoke_run, monkeypatch):
    directory = smoke_run / "results/models/default/lstm_w24_s0"
    saved = torch.load(directory / "model.pt", weights_only=True)
    summary = json.loads((directory / "summary.json").read_text())
    loaded = {
        "name, results folder": gatedrnn.load(LSTM, results=smoke_run / "results"),
        "name, working directory": gatedrnn.load(LSTM, results=smoke_run),
        "model directory": gatedrnn.load(directory),
        "model.pt": gatedrnn.load(directory / "model.pt"),
        "final_state.pt": gatedrnn.load(smoke_run / "results/checkpoints/default/lstm_w24_s0/final_state.pt"),
    }
    monkeypatch.chdir(smoke_run)
    loaded["name, ./results"] = gatedrnn.load(LSTM)
    for how, model in loaded.items():
        assert model.name == LSTM and model.cell == "lstm" and model.width == 24 and model.seed == 0, how
        assert model.summary == summary and model.config == summary["train_config"], how
        assert model.step == 40 and model.directory == directory.absolute(), how
        assert not model.module.training, how
        state = model.module.state_dict()
        assert state.keys() == saved.keys() and all(torch.equal(state[k], saved[k]) for k in saved), how
    # the smoke config reads string.printable: its 100 characters, in that order
    assert loaded["model directory"].vocabulary == string.printable
    assert loaded["final_state.pt"].weights.name == "final_state.pt"


@pytest.mark.workflow
def test_a_model_of_the_corpus_vocabulary_reads_the_corpus_records_characters(smoke_run):
    model = gatedrnn.load("old_model/lstm_w24_s0", results=smoke_run)
    record = json.loads((smoke_run / "data/corpus.json").read_text())
    assert model.config["vocabulary"] == "corpus" and model.vocabulary == record["vocabulary"]
    assert gatedrnn.gates(model, "the")["f"].shape == (3, 24)


def one_line(error) -> str:
    message = str(error.value)
    assert "\n" not in message and message
    return message


@pytest.mark.workflow
def test_a_missing_or_foreign_run_is_one_line_naming_what_to_build(smoke_run, tmp_path):
    target = "`snakemake --cores 1 results/models/default/lstm_w999_s0/summary.json`"
    with pytest.raises(gatedrnn.RunNotFound) as missing:
        gatedrnn.load("default/lstm_w999_s0", results=smoke_run)
    assert target in one_line(missing) and "not there" in one_line(missing)

    # a run still training: its folder, no summary yet
    results = tmp_path / "results"
    (results / "models/default/lstm_w24_s0").mkdir(parents=True)
    with pytest.raises(gatedrnn.RunNotFound) as unfinished:
        gatedrnn.load(LSTM, results=results)
    assert "not finished" in one_line(unfinished)
    assert "results/models/default/lstm_w24_s0/summary.json`" in one_line(unfinished)

    # a GRU's files copied under the LSTM's name: refused by its summary's identity
    shutil.rmtree(results / "models/default/lstm_w24_s0")
    shutil.copytree(smoke_run / "results/models/default/gru_w24_s0", results / "models/default/lstm_w24_s0")
    with pytest.raises(gatedrnn.RunNotFound) as copied:
        gatedrnn.load(LSTM, results=results)
    assert "copied from another run" in one_line(copied)
    assert "results/models/default/lstm_w24_s0/summary.json`" in one_line(copied)

    # not a run at all, and not a name
    for foreign in (tmp_path, "lstm please"):
        with pytest.raises(gatedrnn.RunNotFound) as error:
            gatedrnn.load(foreign)
        assert "results/models/<regime>/<model>_s<seed>/summary.json`" in one_line(error)


@pytest.mark.workflow
def test_the_command_line_prints_the_run_or_one_error_line(smoke_run, capsys):
    assert api_command([LSTM, "--results", str(smoke_run / "results")]) == 0
    assert LSTM in capsys.readouterr().out
    assert api_command([GRU, "hello", "--results", str(smoke_run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "z (update)" in lines[0] and len(lines) == 1 + len("hello")
    assert api_command([GRU, "héllo", "--results", str(smoke_run)]) == 1
    assert capsys.readouterr().err.startswith("ERROR: text has 1 character(s) outside")
    # as a user runs it: one line, no traceback
    proc = subprocess.run(
        [sys.executable, "-m", "gatedrnn.api", "default/lstm_w999_s0", "--results", str(smoke_run)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        f"ERROR: no trained model default/lstm_w999_s0 in {smoke_run / 'results/models'}: the run is not "
        "there; build it with `snakemake --cores 1 results/models/default/lstm_w999_s0/summary.json` "
        f"in {smoke_run}"
    ]


@pytest.mark.workflow
def test_lstm_gates_are_the_modules_own(smoke_run):
    """Each gate recomputed here in float64 from the weights and the module's own hidden
    states (PyTorch's nn.LSTM forward), apart from gatedrnn's extraction."""
    model = gatedrnn.load(LSTM, results=smoke_run)
    found = gatedrnn.gates(model, TEXT)
    assert found.names == ("i", "f", "g", "o") and found.states == ("c", "h")
    assert found.chars == tuple(TEXT) and found["forget"] is found["f"]
    assert {found.labels[k] for k in found.names} == {"input", "forget", "candidate", "output"}
    tokens = torch.tensor([[model.vocabulary.index(c) for c in TEXT]])
    with torch.no_grad():
        h = model.module.hidden_states(tokens)[0].double().numpy()
        x = model.module.embed(tokens)[0].double().numpy()
    params = {k: v.double().numpy() for k, v in model.module.rnn.state_dict().items()}
    h_prev = np.vstack([np.zeros((1, 24)), h[:-1]])
    pre = x @ params["weight_ih_l0"].T + params["bias_ih_l0"] + h_prev @ params["weight_hh_l0"].T
    pre += params["bias_hh_l0"]
    i, f, g, o = np.split(pre, 4, axis=1)
    expected = {"i": sigmoid(i), "f": sigmoid(f), "g": np.tanh(g), "o": sigmoid(o), "h": h}
    for name, value in expected.items():
        assert found[name].shape == (len(TEXT), 24) and found[name].dtype == np.float32
        np.testing.assert_allclose(found[name], value, atol=2e-6, err_msg=name)
    c = np.zeros(24)
    for t in range(len(TEXT)):
        c = expected["f"][t] * c + expected["i"][t] * expected["g"][t]
    np.testing.assert_allclose(found["c"][-1], c, atol=2e-6)


@pytest.mark.workflow
def test_gru_gates_of_several_texts_and_the_refusals(smoke_run):
    model = gatedrnn.load(GRU, results=smoke_run)
    one = gatedrnn.gates(model, "abcd")
    two = gatedrnn.gates(model, ["abcd", "dcba"])
    assert one.names == ("r", "z", "n") and one.states == ("h",) and one.labels["z"] == "update"
    assert two["z"].shape == (2, 4, model.width) and two.chars == (tuple("abcd"), tuple("dcba"))
    np.testing.assert_allclose(two["update"][0], one["update"], atol=1e-6)  # batched: float32 rounding
    with torch.no_grad():
        h = model.module.hidden_states(torch.tensor([[model.vocabulary.index(c) for c in "dcba"]]))
    np.testing.assert_allclose(two["h"][1], h[0].numpy(), atol=2e-6)
    with pytest.raises(ValueError, match=r"2 character\(s\) outside .*'ï' \(U\+00EF\), '☃' \(U\+2603\)"):
        gatedrnn.gates(model, "naïve ☃")
    with pytest.raises(ValueError, match="different lengths"):
        gatedrnn.gates(model, ["ab", "abc"])
    with pytest.raises(ValueError, match="empty"):
        gatedrnn.gates(model, "")
    with pytest.raises(KeyError, match="no gate or state 'forget'"):
        one["forget"]


@pytest.mark.workflow
def test_a_c2_row_recomputed_from_the_model_is_the_workflows(smoke_run):
    """C2 (results/tables/lstm_gates.csv, written by the rule from the saved probe gates)
    against the mean and percentiles of gatedrnn.gates on the probe set, by numpy."""
    table = pd.read_csv(smoke_run / "results/tables/lstm_gates.csv")
    model = gatedrnn.load(LSTM, results=smoke_run)
    probe = model.probe(SMOKE_CONFIG)
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    assert len(probe) == config["probe"]["lines"]
    assert {len(line) for line in probe} == {config["probe"]["length"]}
    found = gatedrnn.gates(model, probe)
    rows = table[(table["model"] == "lstm_w24") & (table["seed"] == 0)].set_index("gate")
    assert sorted(rows.index) == sorted(found.labels[k] for k in found.names)
    for label, row in rows.iterrows():
        values = found[label].astype(np.float64).ravel()
        assert row["values"] == values.size
        assert row["mean"] == pytest.approx(values.mean(), abs=1e-6)
        percentiles = np.percentile(values, [5, 25, 50, 75, 95])
        table_percentiles = row[["p5", "p25", "p50", "p75", "p95"]].to_numpy(float)
        np.testing.assert_allclose(table_percentiles, percentiles, atol=1e-6)


def test_the_committed_notebook_has_no_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.outputs == [] and cell.execution_count is None for cell in code)


@pytest.mark.workflow
def test_the_notebook_runs_on_the_smoke_run(smoke_run, artifacts_dir, monkeypatch):
    """Executed as Jupyter would (nbclient, a python3 kernel) against the smoke run, its
    heatmap saved to test-artifacts/ for a person to look at."""
    from nbclient import NotebookClient

    figure = artifacts_dir / "gates_notebook_heatmap.png"
    figure.unlink(missing_ok=True)
    for key, value in {"GATEDRNN_RUN": smoke_run, "GATEDRNN_CONFIG": SMOKE_CONFIG, "GATEDRNN_LSTM": LSTM,
                       "GATEDRNN_GRU": GRU, "GATEDRNN_FIGURE": figure}.items():  # fmt: skip
        monkeypatch.setenv(key, str(value))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    where = {"metadata": {"path": str(NOTEBOOK.parent)}}  # the kernel's working directory
    client = NotebookClient(notebook, timeout=300, startup_timeout=300, kernel_name="python3")
    client.resources = where
    client.execute()
    assert figure.stat().st_size > 10_000
    last = notebook.cells[-1].outputs[-1]["data"]["text/plain"]
    assert "workflow" in last and "recomputed here" in last
