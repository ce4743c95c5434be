"""Beyond the study (section G): the new cells against independent references, the
pinned-reset evaluation, the long-memory corpus, the tables, and the smoke DAG's
open-question outputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from conftest import DEFAULT_CONFIG, run_snakemake
from torch import nn

from gatedrnn.core.cells import GRUVariant, gru_layer, gru_layer_scan, pinned_reset_logits, windows_loss
from gatedrnn.core.model import CharModel, count_parameters
from gatedrnn.core.sizes import model_parameters
from gatedrnn.io.synthetic import COPY_KEYS, copy_task, copy_task_loss_bounds, recall_positions
from gatedrnn.questions.cho_gru import cho_vs_pytorch_table
from gatedrnn.questions.long_memory import copy_recall, recall_mask
from gatedrnn.questions.longer_training import longer_training_table
from gatedrnn.questions.report import open_questions_report
from gatedrnn.questions.reset_gate import reset_gate_table, trained_noreset_row
from gatedrnn.questions.split_by_width import split_by_width_table

# ------------------------------------------------------------ numpy references


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_gru(x, w_ih, w_hh, b_ih, b_hh, placement, h0=None):
    """Step-by-step GRU in float64 numpy, one example and one unit block at a time:
    PyTorch's update ``h' = (1 - z) n + z h``; the reset ``after`` (nn.GRU),
    ``before`` (Cho: W_hn (r * h)) or ``none`` (r = 1; weights (z, n) or (r, z, n))."""
    x, w_ih, w_hh, b_ih, b_hh = (np.asarray(a, dtype=np.float64) for a in (x, w_ih, w_hh, b_ih, b_hh))
    H = w_hh.shape[1]
    if w_hh.shape[0] == 3 * H:
        rows = {"r": slice(0, H), "z": slice(H, 2 * H), "n": slice(2 * H, 3 * H)}
    else:
        rows = {"z": slice(0, H), "n": slice(H, 2 * H)}
    B, T, _ = x.shape
    out = np.zeros((B, T, H))
    for b in range(B):
        h = np.zeros(H) if h0 is None else np.asarray(h0[b], dtype=np.float64)
        for t in range(T):
            xt = x[b, t]

            def gate(k, xt=xt, state=h):
                return w_ih[rows[k]] @ xt + b_ih[rows[k]] + w_hh[rows[k]] @ state + b_hh[rows[k]]

            z = _sigmoid(gate("z"))
            r = np.ones(H) if placement == "none" else _sigmoid(gate("r"))
            w_n, b_in, b_hn = w_hh[rows["n"]], b_ih[rows["n"]], b_hh[rows["n"]]
            x_n = w_ih[rows["n"]] @ xt + b_in
            if placement == "after":
                n = np.tanh(x_n + r * (w_n @ h + b_hn))
            elif placement == "before":
                n = np.tanh(x_n + w_n @ (r * h) + b_hn)
            else:
                n = np.tanh(x_n + w_n @ h + b_hn)
            h = (1.0 - z) * n + z * h
            out[b, t] = h
    return out


def random_weights(blocks, d, H, seed=0, scale=0.6):
    rng = np.random.default_rng(seed)
    shapes = [(blocks * H, d), (blocks * H, H), (blocks * H,), (blocks * H,)]
    return [torch.tensor(rng.normal(0, scale, s), dtype=torch.float64) for s in shapes]


# -------------------------------------------------------------- the new cells


@pytest.mark.parametrize("placement,blocks", [("after", 3), ("before", 3), ("none", 3), ("none", 2)])
def test_layer_scan_matches_the_numpy_step_loop(placement, blocks):
    d, H = 5, 4
    weights = random_weights(blocks, d, H, seed=blocks)
    x = torch.randn(3, 9, d, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    h0 = torch.randn(3, H, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    out, h_last = gru_layer_scan(x, *weights, h0=h0, placement=placement)
    expected = numpy_gru(x.numpy(), *(w.numpy() for w in weights), placement, h0=h0.numpy())
    np.testing.assert_allclose(out.numpy(), expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(h_last.numpy(), out[:, -1].numpy())


def test_layer_scan_after_is_nn_gru():
    torch.manual_seed(0)
    gru = nn.GRU(6, 5, batch_first=True)
    x = torch.randn(4, 11, 6)
    with torch.no_grad():
        expected, h_n = gru(x)
        out, h_last = gru_layer_scan(
            x, gru.weight_ih_l0, gru.weight_hh_l0, gru.bias_ih_l0, gru.bias_hh_l0, placement="after"
        )
    torch.testing.assert_close(out, expected, rtol=0, atol=2e-6)
    torch.testing.assert_close(h_last, h_n[0], rtol=0, atol=2e-6)


@pytest.mark.parametrize("cell,placement", [("cho_gru", "before"), ("gru_noreset", "none")])
@pytest.mark.parametrize("layers", [1, 2])
def test_variant_cells_match_the_numpy_reference(cell, placement, layers):
    torch.manual_seed(3)
    model = CharModel(7, cell, 5, embed_dim=4, layers=layers).double()
    tokens = torch.randint(0, 7, (2, 8))
    with torch.no_grad():
        logits, h_n = model(tokens)
        x = model.embed(tokens).numpy()
        for layer in range(layers):
            weights = model.rnn.layer_weights(layer)
            x = numpy_gru(x, *(w.numpy() for w in weights), placement)
        expected = model.read_out(torch.from_numpy(x)).numpy()  # LayerNorm, then the head
    np.testing.assert_allclose(logits.numpy(), expected, rtol=0, atol=1e-12)
    assert h_n.shape == (layers, 2, 5)
    np.testing.assert_allclose(h_n[-1].numpy(), x[:, -1], rtol=0, atol=1e-12)


def fast_path_inputs(placement, dtype, B=3, T=6, D=4, H=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    k = 3 if placement == "before" else 2
    shapes = [(B, T, D), (k * H, D), (k * H, H), (k * H,), (k * H,), (B, H)]
    return [torch.randn(s, dtype=dtype, generator=g) * (0.5 if i else 1.0) for i, s in enumerate(shapes)]


@pytest.mark.parametrize("placement", ["before", "none"])
@pytest.mark.parametrize("uses", ["both", "outputs", "last state"])
def test_fast_path_gradients_pass_gradcheck(placement, uses):
    """GRUScan's hand-written backward through time against finite differences (float64),
    for every input (x, both weights and biases, h0), whichever outputs the loss reads."""
    inputs = [t.requires_grad_(True) for t in fast_path_inputs(placement, torch.float64)]

    def f(x, w_ih, w_hh, b_ih, b_hh, h0):
        out, h_last = gru_layer(x, w_ih, w_hh, b_ih, b_hh, h0=h0, placement=placement)
        return {"both": (out, h_last), "outputs": (out,), "last state": (h_last,)}[uses]

    assert torch.autograd.gradcheck(f, inputs)


@pytest.mark.parametrize("placement", ["before", "none"])
def test_fast_path_is_the_recorded_loop_in_float32(placement):
    """The same forward bits as gru_layer_scan (the autograd-recorded reference) and
    the same gradients up to float32 rounding (the sums run in another order)."""
    results = []
    for layer_fn in (gru_layer, gru_layer_scan):
        inputs = [t.requires_grad_(True) for t in fast_path_inputs(placement, torch.float32, 8, 40, 16, 24)]
        out, h_last = layer_fn(*inputs[:5], h0=inputs[5], placement=placement)
        (out.square().sum() + h_last.sin().sum()).backward()
        results.append((out.detach(), h_last.detach(), [t.grad for t in inputs]))
    (out, h_last, grads), (ref_out, ref_last, ref_grads) = results
    assert torch.equal(out, ref_out) and torch.equal(h_last, ref_last)
    for grad, ref in zip(grads, ref_grads, strict=True):
        torch.testing.assert_close(grad, ref, rtol=1e-5, atol=1e-5 * ref.abs().max().item())


def test_fast_path_rejects_weights_of_the_wrong_shape():
    x, w_ih, w_hh, b_ih, b_hh, _ = fast_path_inputs("before", torch.float32)
    with pytest.raises(ValueError, match="do not fit placement 'none'"):
        gru_layer(x, w_ih, w_hh, b_ih, b_hh, placement="none")
    with pytest.raises(ValueError, match="'before' or 'none'"):
        gru_layer(x, w_ih, w_hh, b_ih, b_hh, placement="after")


def test_variant_cells_have_the_expected_parameters_and_learn():
    assert model_parameters("cho_gru", 381, 84) == model_parameters("gru", 381, 84)
    recurrent = model_parameters("gru", 50, 84) - model_parameters("rnn", 50, 84)  # two blocks more than one
    assert model_parameters("gru", 50, 84) - model_parameters("gru_noreset", 50, 84) == recurrent // 2
    names = {n for n, _ in CharModel(9, "gru", 6, 4, layers=2).rnn.named_parameters()}
    for cell in ("cho_gru", "gru_noreset"):
        model = CharModel(9, cell, 6, 4, layers=2)
        assert {n for n, _ in model.rnn.named_parameters()} == names  # nn.GRU's names
        assert count_parameters(model) == model_parameters(cell, 6, 9, 4, 2)
        tokens = torch.randint(0, 9, (3, 10), generator=torch.Generator().manual_seed(0))
        logits, _ = model(tokens[:, :-1])
        nn.functional.cross_entropy(logits.reshape(-1, 9), tokens[:, 1:].reshape(-1)).backward()
        assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    with pytest.raises(ValueError, match="nn.GRU itself"):
        GRUVariant(4, 4, placement="after")


def uniform_reset_gru(seed=0, d=6, H=5, reset_bias=0.4):
    """An nn.GRU whose reset is the same for every unit at every step (reset rows of
    both matrices zero, reset bias constant) and whose b_hn is zero: A5's condition."""
    torch.manual_seed(seed)
    gru = nn.GRU(d, H, batch_first=True)
    with torch.no_grad():
        gru.weight_ih_l0[:H] = 0.0
        gru.weight_hh_l0[:H] = 0.0
        gru.bias_ih_l0[:H] = reset_bias
        gru.bias_hh_l0[:H] = 0.0
        gru.bias_hh_l0[2 * H :] = 0.0
    return gru


def cho_copy(gru):
    cho = GRUVariant(gru.input_size, gru.hidden_size, placement="before")
    cho.load_state_dict(gru.state_dict())
    return cho


def test_cho_gru_agrees_with_nn_gru_exactly_where_the_placements_must():
    gru = uniform_reset_gru()
    x = torch.randn(4, 12, 6, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        expected, _ = gru(x)
        out, _ = cho_copy(gru)(x)
    torch.testing.assert_close(out, expected, rtol=0, atol=2e-6)


def test_cho_gru_differs_from_nn_gru_where_the_condition_fails():
    x = torch.randn(4, 12, 6, generator=torch.Generator().manual_seed(5))
    uniform_but_bias = uniform_reset_gru()
    with torch.no_grad():
        uniform_but_bias.bias_hh_l0[10:] = 0.5  # b_hn != 0 separates them
    torch.manual_seed(1)
    varied = nn.GRU(6, 5, batch_first=True)  # resets differ between units
    for gru in (uniform_but_bias, varied):
        with torch.no_grad():
            assert (cho_copy(gru)(x)[0] - gru(x)[0]).abs().max() > 1e-3


# ------------------------------------------------------------- the pinned reset


def forced_open_reset(model):
    """Reset weights zero and bias 50: sigmoid(50) rounds to 1.0 in float32, so r = 1."""
    H = model.hidden
    with torch.no_grad():
        model.rnn.weight_ih_l0[:H] = 0.0
        model.rnn.weight_hh_l0[:H] = 0.0
        model.rnn.bias_ih_l0[:H] = 50.0
        model.rnn.bias_hh_l0[:H] = 0.0
    return model


def test_pinned_reset_is_nn_gru_when_the_weights_force_r_to_one():
    torch.manual_seed(0)
    model = forced_open_reset(CharModel(11, "gru", 8, 6))
    tokens = torch.randint(0, 11, (4, 15))
    with torch.no_grad():
        torch.testing.assert_close(pinned_reset_logits(model, tokens), model(tokens)[0], rtol=0, atol=2e-6)
        windows = torch.randint(0, 11, (5, 16))
        assert windows_loss(model, windows, "none") == pytest.approx(windows_loss(model, windows), abs=1e-6)


def test_pinned_reset_is_the_noreset_cell_with_the_gru_weights():
    torch.manual_seed(1)
    gru = CharModel(11, "gru", 8, 6, layers=2)
    noreset = CharModel(11, "gru_noreset", 8, 6, layers=2)
    state = {
        k: (v[8:] if k.startswith("rnn.") else v)  # drop the reset rows
        for k, v in gru.state_dict().items()
    }
    noreset.load_state_dict(state)
    tokens = torch.randint(0, 11, (3, 10))
    with torch.no_grad():
        pinned = pinned_reset_logits(gru, tokens)
        torch.testing.assert_close(pinned, noreset(tokens)[0], rtol=0, atol=1e-6)
        assert (pinned - gru(tokens)[0]).abs().max() > 1e-3  # a real GRU's reset matters
    with pytest.raises(ValueError, match="'gru' model"):
        pinned_reset_logits(CharModel(11, "lstm", 8, 6), tokens)


# ---------------------------------------------------------- the long-memory corpus


def test_copy_task_has_its_dependency_at_the_stated_distance():
    distance, keys, fillers = 7, 5, 3
    text = copy_task(2000, distance, seed=4, keys=keys, fillers=fillers)
    assert len(text) == 2000 and text == copy_task(2000, distance, seed=4, keys=keys, fillers=fillers)
    assert text != copy_task(2000, distance, seed=5, keys=keys, fillers=fillers)
    assert set(text) <= set(COPY_KEYS[:keys]) | set("abc") | {"\n"}
    records = text.split("\n")[:-1]
    assert all(len(r) == distance + 1 and r[0] == r[-1] and r[0] in COPY_KEYS for r in records)
    assert all(set(r[1:-1]) <= set("abc") for r in records)  # nothing nearer gives the key away
    positions = recall_positions(text, distance)
    assert len(positions) == len(records)
    chars = np.array(list(text))
    np.testing.assert_array_equal(chars[positions], chars[positions - distance])
    # at any other lag the key agrees with the character there only by chance
    for lag in (distance - 1, distance + 1, distance + distance + 2 - 1):
        assert np.mean(chars[positions] == chars[positions - lag]) < 0.5
    # the repeated key is a fresh draw per record: all keys appear, none dominates
    counts = pd.Series(chars[positions]).value_counts(normalize=True)
    assert len(counts) == keys and counts.max() < 2 / keys


def test_copy_task_bounds_and_recall_mask():
    bounds = copy_task_loss_bounds(32, keys=8, fillers=4)
    assert bounds["recall_chance"] == pytest.approx(math.log(8))
    assert bounds["no_key_memory"] - bounds["perfect"] == pytest.approx(math.log(8) / 34)
    distance = 6
    text = copy_task(400, distance, seed=0)
    vocab = sorted(set(text))
    lines = [text[i : i + 50] for i in (0, 17, 101, 333)]
    tokens = torch.tensor([[vocab.index(c) for c in line] for line in lines])
    key_ids = [vocab.index(c) for c in COPY_KEYS if c in vocab]
    mask = recall_mask(tokens, key_ids, distance)
    for row, line in zip(mask, lines, strict=True):
        np.testing.assert_array_equal(np.nonzero(row.numpy())[0], recall_positions(line, distance))


def test_copy_recall_of_a_model_that_remembers_is_perfect():
    """An oracle that copies the key from `distance` back scores loss ~0, accuracy 1."""
    distance = 5
    text = copy_task(300, distance, seed=1, keys=4, fillers=2)
    vocab = sorted(set(text))
    tokens = torch.tensor([[vocab.index(c) for c in text[i : i + 40]] for i in (0, 60, 120)])

    class Oracle(nn.Module):
        def forward(self, inputs):
            B, T = inputs.shape
            logits = torch.zeros(B, T, len(vocab))
            for t in range(T):
                source = t + 1 - distance  # the target at t + 1 copies the input there
                if source >= 0:
                    logits[torch.arange(B), t, inputs[:, source]] = 30.0
            return logits, None

    key_ids = [vocab.index(c) for c in "ABCD"]
    recall = copy_recall(Oracle(), tokens, key_ids, distance)
    assert recall["recall_accuracy"] == 1.0 and recall["recall_loss"] < 1e-6
    assert recall["recall_positions"] == int(recall_mask(tokens, key_ids, distance)[:, 1:].sum())


# ---------------------------------------------------------------------- tables


def summary(model, seed, loss, width, params, *, layers=1, steps=800, regime="default", wall=8.0, final=None):
    cell, token = model.rsplit("_", 1)
    return {
        "model": model,
        "cell": cell,
        "width_token": token,
        "width": width,
        "params": params,
        "seed": seed,
        "best_val_loss": loss,
        "final_val_loss": loss if final is None else final,
        "best_step": steps,
        "regime": regime,
        "wall_seconds": wall,
        "train_config": {"layers": layers, "steps": steps},
    }


def test_split_by_width_adds_up_and_reset_table_pairs_by_width():
    summaries = []
    for reference, base in ((128, 2.0), (256, 1.8)):
        for seed in (0, 1):
            summaries += [
                summary(f"lstm_w{reference}", seed, base + 0.10 + seed * 0.01, reference, 100),
                summary(f"gru_w{reference}", seed, base + 0.06 + seed * 0.01, reference, 80),
                summary(f"gru_budget{reference}", seed, base + seed * 0.01, reference + 20, 99),
            ]
    table = split_by_width_table(summaries)
    assert list(table.columns[:5]) == [
        "reference_width",
        "component",
        "comparison",
        "loss_difference",
        "share_of_total",
    ]
    for _, group in table.groupby("reference_width"):
        parts = group.set_index("component")
        assert parts.loc["structure", "loss_difference"] == pytest.approx(0.04)
        assert parts.loc["structure", "share_of_total"] + parts.loc[
            "width", "share_of_total"
        ] == pytest.approx(1)
        # each part seed by seed, its median over seeds and paired interval
        for component, per_seed in (
            ("structure", (0.04, 0.04)),
            ("width", (0.06, 0.06)),
            ("total", (0.10, 0.10)),
        ):
            row = parts.loc[component]
            assert (row["seed_0"], row["seed_1"]) == pytest.approx(per_seed)
            assert (row["paired_median"], row["low"], row["high"]) == pytest.approx((per_seed[0],) * 3)

    gru = [summary("gru_budget24", s, 1.5, 30, 900) for s in (0, 1)]
    noreset = [summary("gru_noreset_budget24", s, 1.6 + 0.1 * s, 37, 890) for s in (0, 1)]
    pinned = [
        {
            "comparison": "reset_pinned_to_1",
            "model": "g (r = 1)",
            "seed": s,
            "loss": 2.0,
            "reference_loss": 1.5,
        }
        | {"loss_difference": 0.5, "training_final_val_loss": 1.5}
        for s in (0, 1)
    ]
    reset = reset_gate_table(pinned, noreset, gru)
    trained = reset[reset["comparison"] == "trained_without_reset"]
    assert list(trained["seed"].astype(str)) == ["0", "1", "median"]
    assert trained["loss_difference"].iloc[-1] == pytest.approx(0.15)
    with pytest.raises(ValueError, match="not paired"):
        trained_noreset_row(noreset[0], gru[1])


def test_cho_table_and_report_sentences():
    summaries = [
        summary("cho_gru_budget24", 0, 1.7, 30, 900, wall=20.0),
        summary("gru_budget24", 0, 1.6, 30, 900, wall=10.0),
    ]
    table = cho_vs_pytorch_table(summaries, {"cho_gru_budget24": "gru_budget24"})
    row = table.set_index("model").loc["cho_gru_budget24"]
    assert row["median_minus_pytorch"] == pytest.approx(0.1)
    # a result table carries no timing: the same bytes run to run (bench/bench_cells.py times the cells)
    assert not {"seconds_per_step", "time_over_pytorch", "wall_seconds"} & set(table.columns)
    slower = [summary("cho_gru_budget24", 0, 1.7, 30, 900, wall=99.0), summaries[1]]
    assert cho_vs_pytorch_table(slower, {"cho_gru_budget24": "gru_budget24"}).equals(table)
    text = open_questions_report({"cho_vs_pytorch_gru": table})
    assert "+0.1000" in text and "times" not in text and "per step" not in text


def test_the_answers_name_the_folder_their_tables_are_in(tmp_path):
    """reference/open_questions.md points at reference/tables/, a run's report at its own."""
    from gatedrnn.questions.report import write_open_questions_report

    summaries = [summary("cho_gru_budget24", 0, 1.7, 30, 900), summary("gru_budget24", 0, 1.6, 30, 900)]
    table = cho_vs_pytorch_table(summaries, {"cho_gru_budget24": "gru_budget24"})
    assert "tables under `reference/tables/`" in open_questions_report({}, "reference/tables")
    folder = tmp_path / "run" / "results" / "tables"
    folder.mkdir(parents=True)
    table.to_csv(folder / "cho_vs_pytorch_gru.csv", index=False)
    text = write_open_questions_report([str(folder / "cho_vs_pytorch_gru.csv")], tmp_path / "oq.md", print)
    assert f"tables under `{folder.as_posix()}/`" in text and "+0.1000" in text


def test_longer_training_reads_the_base_step_from_each_history():
    from gatedrnn.analysis.gate_files import ProbeGates

    rng = np.random.default_rng(0)
    gates = {k: rng.uniform(0.2, 0.8, (2, 6, 3)) for k in "ifgo"}
    probe = ProbeGates("lstm", 0, gates, np.zeros((2, 6), dtype=np.int64), ["a" * 6] * 2)
    short = summary("lstm_w8", 0, 1.5, 8, 100, steps=4)
    long = summary("lstm_w8", 0, 1.4, 8, 100, steps=8, regime="steps_x2", final=1.45) | {"best_step": 6}
    histories = [
        pd.DataFrame({"step": [0, 2, 4], "val_loss": [3.0, 2.0, 1.5]}),
        pd.DataFrame({"step": [0, 2, 4, 6, 8], "val_loss": [3.0, 2.0, 1.5, 1.4, 1.45]}),
    ]
    table = longer_training_table([(short, histories[0], probe), (long, histories[1], probe)])
    assert list(table["steps"]) == [4, 8] and list(table["val_loss_at_base"]) == [1.5, 1.5]
    assert list(table["turned"]) == [False, True]
    assert table["keep_gate_mean"].iloc[0] == pytest.approx(gates["f"].mean())


# --------------------------------------------------------------------- workflow


def test_switching_the_open_questions_off_leaves_their_models_out(tmp_path):
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    for question in config["open_questions"].values():
        question["enabled"] = False
    # the regime sweep reuses steps_x4 (Adam at train.lr for 3,200 steps); off too
    config["regime_sweep"]["enabled"] = False
    path = tmp_path / "off.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = run_snakemake(tmp_path, "-n", configfile=path)
    text = proc.stdout + proc.stderr
    for absent in (
        "gru_noreset",
        "cho_gru",
        "steps_x4",
        "two_layers",
        "long_memory",
        "open_questions_report",
        # nor do the ledger's new findings read their tables
        "open_reset_gate.csv",
        "split_by_width.csv",
        "long_memory.csv",
    ):
        assert absent not in text
    assert "rule claims:" in text


OPEN_QUESTION_COLUMNS = {
    "open_reset_gate": [
        "comparison",
        "model",
        "reference_model",
        "seed",
        "loss",
        "reference_loss",
        "loss_difference",
    ],
    "split_by_width": ["reference_width", "component", "loss_difference", "share_of_total"],
    "two_layers": [
        "layers",
        "model",
        "cell",
        "width",
        "params",
        "median",
        "gap_to_lstm",
        "seeds",
        "median_low",
        "median_high",
        "paired_gap_to_lstm",
        "paired_gap_to_lstm_low",
    ],
    "two_layers_split": [
        "layers",
        "component",
        "loss_difference",
        "share_of_total",
        "seeds",
        "paired_median",
        "low",
        "high",
    ],
    "longer_training": [
        "model",
        "seed",
        "steps",
        "keep_gate_mean",
        "half_life_median",
        "turned",
        "best_val_loss",
    ],
    "cho_vs_pytorch_gru": [
        "model",
        "cell",
        "params",
        "median",
        "median_minus_pytorch",
        "placement",
        "seeds",
        "median_low",
        "median_high",
        "paired_minus_pytorch",
        "paired_minus_pytorch_low",
    ],
    "long_memory": ["regime", "model", "forget_bias", "recall_accuracy", "recall_loss", "half_life_median"],
    "longer_training_curves": ["model", "seed", "regime", "regime_steps", "step", "val_loss"],
}


def test_smoke_run_answers_every_open_question(smoke_run):
    tables = {
        name: pd.read_csv(smoke_run / "results/tables" / f"{name}.csv") for name in OPEN_QUESTION_COLUMNS
    }
    for name, columns in OPEN_QUESTION_COLUMNS.items():
        assert set(columns) <= set(tables[name].columns), name
        assert len(tables[name]) > 0, name

    reset = tables["open_reset_gate"]
    assert set(reset["comparison"]) == {"reset_pinned_to_1", "trained_without_reset"}
    pinned = reset[(reset["comparison"] == "reset_pinned_to_1") & (reset["seed"].astype(str) != "median")]
    # the recomputed as-trained loss is the training's own final validation loss
    np.testing.assert_allclose(pinned["reference_loss"], pinned["training_final_val_loss"], atol=1e-5)
    assert np.isfinite(reset["loss_difference"]).all()

    split = tables["split_by_width"]
    for _, group in split.groupby("reference_width"):
        parts = group.set_index("component")["loss_difference"]
        assert parts["structure"] + parts["width"] == pytest.approx(parts["total"])
    assert set(tables["two_layers"]["layers"]) == {1, 2}
    # G3's split is D4's at each layer count: parts that add up, of the medians and seed by seed
    for _, group in tables["two_layers_split"].groupby("layers"):
        parts = group.set_index("component")
        medians = parts["loss_difference"]
        assert medians["structure"] + medians["width"] == pytest.approx(medians["total"])
        per_seed = parts[[c for c in parts.columns if c.startswith("seed_")]]
        assert (per_seed.loc["structure"] + per_seed.loc["width"]).to_numpy() == pytest.approx(
            per_seed.loc["total"].to_numpy()
        )

    longer = tables["longer_training"]
    assert longer.groupby(["model", "seed"])["steps"].nunique().eq(2).all()
    # the same seed's first train.steps steps are the default run
    np.testing.assert_allclose(
        longer["val_loss_at_base"].iloc[::2], longer["val_loss_at_base"].iloc[1::2], atol=1e-6
    )
    assert ((longer["keep_gate_mean"] > 0) & (longer["keep_gate_mean"] < 1)).all()

    cho = tables["cho_vs_pytorch_gru"]
    assert set(cho["cell"]) == {"cho_gru", "gru"}
    assert cho["params"].nunique() == 1  # the same parameters, only the reset moves

    memory = tables["long_memory"]
    assert set(memory["forget_bias"]) == {0.0, 3.0}
    assert ((memory["recall_accuracy"] >= 0) & (memory["recall_accuracy"] <= 1)).all()
    assert (memory["recall_positions"] > 0).all() and memory["default_corpus_best_val_loss"].notna().all()
    provenance = json.loads((smoke_run / "data/long_memory/corpus.json").read_text())
    assert provenance["source"] == "copy_task" and provenance["distance"] == memory["distance"].iloc[0]

    for figure in ("split_by_width", "longer_training"):
        assert (smoke_run / "results/figures" / f"{figure}.png").stat().st_size > 0
    report = (smoke_run / "results/open_questions.md").read_text()
    assert report.startswith("## Beyond the study") and report.count("- **") == 7
