"""The gate tables (gatedrnn.tables.gates, gate_plots) on hand-made gates and tiny
models, and the gate analyses of the smoke run (the layouts the claims ledger reads)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from conftest import SMOKE_CONFIG

from gatedrnn.analysis.gate_files import ProbeGates, load_gates
from gatedrnn.analysis.stats import CHANGE_POSITION, DECAY_STEPS
from gatedrnn.core.model import CharModel
from gatedrnn.core.registry import BUILTIN_CELLS
from gatedrnn.report import gates as gate_plots
from gatedrnn.tables.gates import (
    GATE_TABLE_COLUMNS,
    MANUAL_CHECK_COLUMNS,
    coupling_histogram_table,
    coupling_table,
    forget_by_char_table,
    forget_units_table,
    gate_table,
    load_probe_gates,
    manual_step_check_table,
    parse_name,
    unit_gates_table,
    unit_half_lives_table,
)
from gatedrnn.tables.perturbation import (
    cell_decay_table,
    check_perturbation_fits,
    forget_bias_of,
    forget_bias_sweep_table,
    hidden_decay_table,
)
from gatedrnn.tables.probe_gates import CHECK_TOLERANCE, write_probe_gates

torch.set_num_threads(1)

V, E, H = 7, 4, 5

# The layouts of the brief; every table starts with exactly these columns, in order.
LAYOUTS = {
    "manual_step_check": ["model", "max_abs_diff", "seed", "cell", "width", "max_abs_diff_hidden",
                          "max_abs_diff_final_cell", "positions"],
    "lstm_gates": ["model", "seed", "gate", "mean", "p5", "p25", "p50", "p75", "p95"],
    "lstm_forget_units": ["model", "seed", "units", "mean_min", "mean_p5", "mean_median", "mean_p95",
                          "mean_max", "half_life_min", "half_life_median", "half_life_max",
                          "units_below_half", "units_half_life_ge_10"],
    "lstm_cell_decay": ["model", "seed", "k", "measured", "forget_alone", "measured_half_life",
                        "forget_alone_half_life"],
    "lstm_forget_by_char": ["model", "seed", "char_class", "mean", "positions"],
    "gru_gates": ["model", "seed", "gate", "mean", "p5", "p25", "p50", "p75", "p95"],
    "lstm_coupling": ["model", "seed", "values", "units", "corr_all", "unit_corr_min", "unit_corr_median",
                      "unit_corr_max", "units_corr_above_half", "mean_i_plus_f", "hist_max_departure"],
    "unit_half_lives": ["model", "cell", "gate", "seed", "units", "half_life_min", "half_life_median",
                        "half_life_max"],
    "hidden_perturbation_decay": ["model", "cell", "seed", "k", "measured", "half_life"],
    "forget_bias_sweep": ["model", "forget_bias", "seed", "best_val_loss", "state_half_life",
                          "grad_first_over_last", "grad_half_distance"],
}  # fmt: skip
FIGURES = ["lstm_cell_decay", "gru_vs_lstm_gates", "hidden_perturbation_decay", "forget_bias_sweep"]


def starts_with(frame, columns):
    assert list(frame.columns[: len(columns)]) == columns, list(frame.columns)


# ---------------------------------------------------------------- helpers


def probe(cell, gates, lines=None):
    first = next(iter(gates.values()))
    batch, steps = first.shape[:2]
    lines = lines or ["a" * steps] * batch
    tokens = np.zeros((batch, steps), dtype=np.int64)
    return ProbeGates(cell=cell, layer=0, gates=gates, tokens=tokens, lines=lines)


def random_lstm_gates(rng, shape=(2, 6, 3)):
    return {k: rng.uniform(0.01, 0.99, shape) for k in "ifo"} | {"g": rng.uniform(-1, 1, shape)}


def save_model(tmp_path, cell, seed=0, regime="default", width_token="w5", forget_bias=None):
    """A trained-model directory (model.pt + summary.json) holding an untrained tiny model."""
    torch.manual_seed(seed)
    model = CharModel(V, cell, H, E)
    if forget_bias is not None:
        from gatedrnn.core.model import set_forget_bias

        set_forget_bias(model, forget_bias)
    directory = tmp_path / "results/models" / regime / f"{cell}_{width_token}_s{seed}"
    directory.mkdir(parents=True)
    torch.save(model.state_dict(), directory / "model.pt")
    summary = {
        "model": f"{cell}_{width_token}",
        "cell": cell,
        "width": H,
        "seed": seed,
        "regime": regime,
        "vocab_size": V,
        "best_val_loss": 1.5 + seed,
        "best_step": 40,
        "train_config": {
            "embed_dim": E,
            "layers": 1,
            "forget_bias": forget_bias,
            "readout_norm": "layernorm",
        },
    }
    (directory / "summary.json").write_text(json.dumps(summary))
    return directory


def tokens(batch=3, length=CHANGE_POSITION + DECAY_STEPS + 4, seed=0):
    return torch.randint(0, V, (batch, length), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- unit tests


def test_parse_name():
    assert parse_name("results/gates/default/lstm_w325_s0.npz") == ("default", "lstm_w325", 0)
    assert parse_name("results/models/forget_bias_3/gru_budget325_s12") == (
        "forget_bias_3",
        "gru_budget325",
        12,
    )
    assert parse_name("results/gates/steps_x4/gru_noreset_w24_s1.npz") == ("steps_x4", "gru_noreset_w24", 1)
    with pytest.raises(ValueError, match="s<seed>"):
        parse_name("results/gates/default/lstm.npz")


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_write_probe_gates_saves_gates_and_checks_them(tmp_path, cell):
    directory = save_model(tmp_path, cell)
    ids = tokens()
    lines = ["".join("abcdefg"[i] for i in row) for row in ids.tolist()]
    npz, check_path = tmp_path / "g.npz", tmp_path / "g.check.json"
    check = write_probe_gates(directory, ids, lines, npz, check_path, log=lambda _: None)
    saved = load_gates(npz)
    assert saved.cell == cell and saved.lines == lines
    assert sorted(saved.gates) == sorted(BUILTIN_CELLS[cell].gates)
    np.testing.assert_array_equal(saved.tokens, ids.numpy())
    assert json.loads(check_path.read_text()) == check
    assert check["max_abs_diff"] < CHECK_TOLERANCE and check["max_rel_diff"] < CHECK_TOLERANCE
    assert check["positions"] == ids.numel() and check["model"] == f"{cell}_w5"
    assert (check["max_abs_diff_final_cell"] is None) == (cell != "lstm")
    table = manual_step_check_table([check, check])
    assert list(table.columns) == MANUAL_CHECK_COLUMNS and len(table) == 2
    assert table["max_abs_diff_final_cell"].isna().all() == (cell != "lstm")


def test_write_probe_gates_refuses_a_model_whose_states_do_not_match(tmp_path, monkeypatch):
    import gatedrnn.tables.probe_gates as gt

    directory = save_model(tmp_path, "gru")
    real = gt.manual_step_check

    def off(model, ids):
        return real(model, ids) | {"max_abs_diff": 1e-3, "max_abs_diff_hidden": 1e-3}

    monkeypatch.setattr(gt, "manual_step_check", off)
    with pytest.raises(ValueError, match="differ from the module"):
        write_probe_gates(
            directory, tokens(), ["x" * 100] * 3, tmp_path / "g.npz", tmp_path / "c.json", log=print
        )
    assert not (tmp_path / "g.npz").exists()


def test_gate_table_names_orders_and_summarises():
    rng = np.random.default_rng(0)
    lstm = random_lstm_gates(rng)
    gru = {k: rng.uniform(0, 1, (2, 6, 3)) for k in "rzn"}
    table = gate_table([("lstm_w5", 0, probe("lstm", lstm)), ("lstm_w5", 1, probe("lstm", lstm))])
    starts_with(table, GATE_TABLE_COLUMNS)
    assert list(table["gate"][:4]) == ["input", "forget", "output", "candidate"]
    assert list(table["seed"]) == [0] * 4 + [1] * 4
    forget = table.iloc[1]
    assert forget["symbol"] == "f"
    assert forget["mean"] == pytest.approx(lstm["f"].mean())
    assert forget["p25"] == pytest.approx(np.percentile(lstm["f"], 25))
    assert forget["values"] == lstm["f"].size
    table = gate_table([("gru_budget5", 0, probe("gru", gru))])
    assert list(table["gate"]) == ["update", "reset", "candidate"]
    assert table.iloc[0]["mean"] == pytest.approx(gru["z"].mean())
    assert "fraction kept" in table.iloc[0]["convention"]


def test_forget_units_known_half_lives():
    units = np.array([0.5, 0.5 ** (1 / 11), 0.25, 0.9])
    f = np.broadcast_to(units, (2, 4, 4)).copy()
    row = forget_units_table([("lstm_w5", 0, probe("lstm", {"f": f}))]).iloc[0]
    assert row["units"] == 4 and row["units_below_half"] == 1 and row["units_half_life_ge_10"] == 1
    assert row["half_life_min"] == pytest.approx(0.5)
    assert row["half_life_max"] == pytest.approx(11.0)
    assert row["mean_median"] == pytest.approx(np.median(units))
    # the table reads the cell's declared keep gate: a GRU's z gives the same row
    gru_row = forget_units_table([("gru_w5", 0, probe("gru", {"z": f}))]).iloc[0]
    assert gru_row.drop("model").equals(row.drop("model"))
    with pytest.raises(ValueError, match="keep gate, and a rnn declares none"):
        forget_units_table([("rnn_w5", 0, probe("rnn", {"h": f}))])


def test_forget_by_char_classes():
    lines = ["a b\n", "  ab"]
    f = np.zeros((2, 4, 2))
    f[0, 1] = f[1, 0] = f[1, 1] = 0.2  # spaces
    f[0, 3] = 0.8  # newline
    f[0, 0] = f[0, 2] = f[1, 2] = f[1, 3] = 0.5
    table = forget_by_char_table([("lstm_w5", 0, probe("lstm", {"f": f}, lines))])
    starts_with(table, LAYOUTS["lstm_forget_by_char"])
    got = table.set_index("char_class")
    assert list(got.index) == ["space", "newline", "other"]
    assert got.loc["space", "mean"] == pytest.approx(0.2) and got.loc["space", "positions"] == 3
    assert got.loc["newline", "mean"] == pytest.approx(0.8) and got.loc["newline", "positions"] == 1
    assert got.loc["other", "mean"] == pytest.approx(0.5) and got.loc["other", "positions"] == 4


def test_coupling_of_a_coupled_lstm():
    rng = np.random.default_rng(1)
    f = rng.uniform(0.05, 0.95, (4, 16, 3))
    gates = {"i": 1.0 - f, "f": f}
    row = coupling_table([("lstm_w5", 0, probe("lstm", gates))]).iloc[0]
    assert list(row.index) == LAYOUTS["lstm_coupling"]
    assert row["corr_all"] == pytest.approx(1.0)
    assert row["unit_corr_min"] == pytest.approx(1.0)
    assert row["units_corr_above_half"] == 3
    assert row["mean_i_plus_f"] == pytest.approx(1.0)
    assert row["values"] == f.size and row["units"] == 3
    hist = coupling_histogram_table(
        [("lstm_w5", 0, probe("lstm", gates)), ("lstm_w5", 1, probe("lstm", gates))]
    )
    assert len(hist) == 2 * 24 * 24
    for _, rows in hist.groupby("seed"):
        assert rows["mass"].sum() == pytest.approx(1.0)
        assert rows["independent_mass"].sum() == pytest.approx(1.0)
        # coupled: all mass on the diagonal bins
        assert rows.loc[rows["bin_kept"] == rows["bin_input"], "mass"].sum() == pytest.approx(1.0)
    assert (hist["kept_hi"] > hist["kept_lo"]).all()


def test_unit_half_lives_of_lstm_f_and_gru_z():
    f_units, z_units = np.array([0.5, 0.25]), np.array([0.5 ** (1 / 4), 0.5, 0.5 ** (1 / 3)])
    lstm = probe("lstm", {"f": np.broadcast_to(f_units, (2, 3, 2)).copy()})
    gru = probe("gru", {"z": np.broadcast_to(z_units, (2, 3, 3)).copy()})
    units = unit_gates_table([("lstm_w5", 0, lstm), ("gru_budget5", 0, gru)])
    assert list(units.columns) == ["model", "cell", "gate", "seed", "unit", "mean_gate", "half_life"]
    np.testing.assert_allclose(units["half_life"], [1.0, 0.5, 4.0, 1.0, 3.0])
    table = unit_half_lives_table(units)
    starts_with(table, LAYOUTS["unit_half_lives"])
    got = table.set_index("model")
    assert got.loc["lstm_w5", "gate"] == "forget" and got.loc["gru_budget5", "gate"] == "update"
    assert got.loc["gru_budget5", "half_life_median"] == pytest.approx(3.0)
    assert got.loc["gru_budget5", "half_life_max"] == pytest.approx(4.0)
    assert got.loc["lstm_w5", "units"] == 2
    with pytest.raises(ValueError, match="declares none"):
        unit_gates_table([("rnn_w5", 0, probe("rnn", {"h": np.zeros((1, 2, 2))}))])


def test_load_probe_gates_reads_names(tmp_path):
    from gatedrnn.analysis.gate_files import save_gates

    rng = np.random.default_rng(2)
    path = tmp_path / "results/gates/default/lstm_w5_s3.npz"
    identity = {"model": "lstm_w5", "seed": 3, "regime": "default", "width": 3}  # the run it is of
    save_gates(path, random_lstm_gates(rng), np.zeros((2, 6), dtype=np.int64), ["abcdef"] * 2, "lstm",
               identity=identity)  # fmt: skip
    [(model, seed, loaded)] = load_probe_gates([path])
    assert (model, seed, loaded.cell) == ("lstm_w5", 3, "lstm")


def test_perturbation_tables_on_tiny_models(tmp_path):
    from gatedrnn.train.loop import load_model

    lstm = [load_model(save_model(tmp_path, "lstm", seed)) for seed in (0, 1)]
    others = [load_model(save_model(tmp_path, cell)) for cell in ("gru", "rnn")]
    ids = tokens()

    cell = cell_decay_table(lstm, ids)
    starts_with(cell, LAYOUTS["lstm_cell_decay"])
    assert len(cell) == 2 * (DECAY_STEPS + 1)
    for _, rows in cell.groupby("seed"):
        assert list(rows["k"]) == list(range(DECAY_STEPS + 1))
        assert rows["measured"].iloc[0] == 1.0 and rows["forget_alone"].iloc[0] == 1.0
        assert rows["measured_half_life"].nunique(dropna=False) == 1

    hidden = hidden_decay_table(lstm[:1] + others, ids)
    starts_with(hidden, LAYOUTS["hidden_perturbation_decay"])
    assert list(hidden["cell"].unique()) == ["lstm", "gru", "rnn"]

    with pytest.raises(ValueError, match="at least 97"):
        cell_decay_table(lstm, ids[:, :96])
    check_perturbation_fits(97)


def test_forget_bias_sweep_table(tmp_path):
    from gatedrnn.train.loop import load_model

    models = [
        load_model(save_model(tmp_path, "lstm", seed, regime, forget_bias=bias))
        for regime, bias in (("forget_bias_3", 3.0), ("default", None))
        for seed in (1, 0)
    ]
    biases = {"default": None, "forget_bias_3": 3.0}
    table = forget_bias_sweep_table(models, biases, tokens())
    starts_with(table, LAYOUTS["forget_bias_sweep"])
    assert list(zip(table["forget_bias"], table["seed"], strict=True)) == [
        (0.0, 0),
        (0.0, 1),
        (3.0, 0),
        (3.0, 1),
    ]
    assert list(table["init"]) == ["pytorch_default"] * 2 + ["forget_bias"] * 2
    assert list(table["best_val_loss"]) == [1.5, 2.5, 1.5, 2.5]
    assert (table["grad_first_over_last"] > 0).all()
    assert forget_bias_of(None) == (0.0, "pytorch_default") and forget_bias_of(1) == (1.0, "forget_bias")
    with pytest.raises(ValueError, match="not in the sweep"):
        forget_bias_sweep_table(models, {"default": None}, tokens())


def test_figures_draw_from_the_tables(tmp_path):
    k = np.arange(DECAY_STEPS + 1)
    decay = pd.concat(
        pd.DataFrame({"model": "lstm_w5", "seed": s, "k": k, "measured": 0.8**k, "forget_alone": 0.6**k})
        for s in (0, 1)
    )
    gate_plots.plot_cell_decay(decay, tmp_path / "c4.png")
    hidden = pd.concat(
        pd.DataFrame({"model": m, "cell": m[:3], "seed": s, "k": k, "measured": 0.7**k})
        for m in ("lstm_w5", "gru_budget5", "rnn_budget5")
        for s in (0, 1)
    )
    gate_plots.plot_hidden_decay(hidden, tmp_path / "e1.png")
    rng = np.random.default_rng(3)
    f = rng.uniform(0.05, 0.95, (2, 8, 4))
    lstm = probe("lstm", {"i": rng.uniform(0, 1, f.shape), "f": f})
    gru = probe("gru", {"z": rng.uniform(0.05, 0.95, (2, 8, 5))})
    gate_plots.plot_gru_vs_lstm_gates(
        coupling_histogram_table([("lstm_w5", 0, lstm)]),
        unit_gates_table([("lstm_w5", 0, lstm), ("gru_budget5", 0, gru)]),
        tmp_path / "d6.png",
    )
    sweep = pd.DataFrame(
        {
            "forget_bias": [0.0, 0.0, 1.0, 3.0],
            "seed": [0, 1, 0, 0],
            "best_val_loss": [1.6, 1.7, 1.65, 1.8],
            "state_half_life": [2.0, 2.5, 4.0, float("nan")],
            "grad_half_distance": [1.0, 1.2, 3.0, 20.0],
        }
    )
    gate_plots.plot_forget_bias_sweep(sweep, tmp_path / "e3.png")
    for name in ("c4", "e1", "d6", "e3"):
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def two_bin_histogram(seed: int, joint: np.ndarray) -> pd.DataFrame:
    """A 2 x 2 (1 - f, i) histogram table of one seed with the given joint masses."""
    kept, written = joint.sum(axis=1), joint.sum(axis=0)
    return pd.DataFrame(
        [
            {
                "model": "lstm_w5",
                "seed": seed,
                "bin_kept": a,
                "bin_input": b,
                "kept_lo": a / 2,
                "kept_hi": (a + 1) / 2,
                "input_lo": b / 2,
                "input_hi": (b + 1) / 2,
                "mass": joint[a, b],
                "independent_mass": kept[a] * written[b],
            }  # fmt: skip
            for a in range(2)
            for b in range(2)
        ]
    )


def test_d6_draws_the_departure_from_independence_centred_at_zero_and_the_seeds_spread(monkeypatch):
    # seed 0 coupled (mass on the diagonal), seed 1 a little, seed 2 independent
    joints = [np.array([[0.4, 0.1], [0.1, 0.4]]), np.array([[0.3, 0.2], [0.2, 0.3]]), np.full((2, 2), 0.25)]
    histogram = pd.concat(two_bin_histogram(s, j) for s, j in enumerate(joints))
    edges, departure, agree, seeds = gate_plots.departure_from_independence(histogram)
    # the product of the marginals is 0.25 in every bin: the departures are 0.15, 0.05, 0
    np.testing.assert_allclose(departure, [[0.05, -0.05], [-0.05, 0.05]])
    assert seeds == 3 and list(edges) == [0.0, 0.5, 1.0] and agree.all()
    flipped = pd.concat([histogram, two_bin_histogram(3, np.array([[0.2, 0.3], [0.3, 0.2]]))])
    assert not gate_plots.departure_from_independence(flipped)[2].any()

    figures = []
    monkeypatch.setattr(gate_plots, "save_figure", lambda fig, path: figures.append(fig))
    units = pd.DataFrame(
        [
            {"model": m, "gate": g, "seed": s, "unit": u, "half_life": (u + 1) * (1 + s)}
            for m, g in (("lstm_w5", "forget"), ("gru_budget5", "update"))
            for s in range(3)
            for u in range(4)
        ]
    )
    gate_plots.plot_gru_vs_lstm_gates(histogram, units, "unused.png")
    left, right = figures[0].axes[0], figures[0].axes[1]
    mesh = left.collections[0]
    np.testing.assert_allclose(np.asarray(mesh.get_array()).reshape(2, 2), departure.T * 100)
    assert mesh.norm.vmin == -mesh.norm.vmax and mesh.cmap.name == "RdBu_r"  # diverging, centred at 0
    assert "median of 3 seeds" in left.get_title()
    # per rank: the median over seeds (seed 1's curve) as the line, their range as a band
    lines = [line for line in right.get_lines() if line.get_label().endswith("gate")]
    assert [list(line.get_ydata()) for line in lines] == [[2, 4, 6, 8]] * 2
    bands = [c for c in right.collections if len(c.get_paths())]
    assert len(bands) == 2 and "range" in right.get_title()


# ------------------------------------------------------------- the smoke run


@pytest.fixture(scope="module")
def smoke_config():
    return yaml.safe_load(SMOKE_CONFIG.read_text())


def model_names(config, cell, width):
    token = f"budget{config['grid']['reference_width']}" if width == "budget" else f"w{width}"
    return f"{cell}_{token}"


def read(smoke_run, name):
    return pd.read_csv(smoke_run / "results/tables" / f"{name}.csv")


@pytest.mark.workflow
def test_smoke_gate_tables_have_their_layouts(smoke_run):
    for name, columns in LAYOUTS.items():
        table = read(smoke_run, name)
        assert len(table) > 0, name
        starts_with(table, columns)
        assert (table["seed"] == 0).any(), f"{name} has no seed-0 row"
    for name in FIGURES:
        assert (smoke_run / "results/figures" / f"{name}.png").stat().st_size > 0


@pytest.mark.workflow
def test_smoke_manual_step_check_is_rounding(smoke_run, smoke_config):
    table = read(smoke_run, "manual_step_check")
    assert (table["max_abs_diff"] < 1e-5).all(), table.to_string()
    assert (table["max_abs_diff_hidden"] < 1e-5).all()
    expected = {
        (model_names(smoke_config, m["cell"], m["width"]), seed)
        for m in smoke_config["grid"]["models"]
        for seed in smoke_config["grid"]["seeds"]
    }
    assert set(zip(table["model"], table["seed"], strict=True)) == expected
    assert len(table) == len(expected)
    probe_config = smoke_config["probe"]
    assert (table["positions"] == probe_config["lines"] * probe_config["length"]).all()


@pytest.mark.workflow
def test_smoke_gate_tables_cover_every_seed(smoke_run, smoke_config):
    seeds = set(smoke_config["grid"]["seeds"])
    ref = smoke_config["grid"]["reference_width"]
    lstm, gru, rnn = f"lstm_w{ref}", f"gru_budget{ref}", f"rnn_budget{ref}"
    for name, model, per_seed in [
        ("lstm_gates", lstm, 4),
        ("gru_gates", gru, 3),
        ("lstm_forget_units", lstm, 1),
        ("lstm_forget_by_char", lstm, 3),
        ("lstm_coupling", lstm, 1),
        ("lstm_cell_decay", lstm, DECAY_STEPS + 1),
    ]:
        table = read(smoke_run, name)
        assert set(table["model"]) == {model}, name
        assert table.groupby("seed").size().to_dict() == {s: per_seed for s in seeds}, name
    assert list(read(smoke_run, "lstm_gates")["gate"][:4]) == ["input", "forget", "output", "candidate"]
    assert list(read(smoke_run, "gru_gates")["gate"][:3]) == ["update", "reset", "candidate"]
    by_char = read(smoke_run, "lstm_forget_by_char")
    probe_config = smoke_config["probe"]
    assert (
        by_char.groupby("seed")["positions"].sum() == probe_config["lines"] * probe_config["length"]
    ).all()
    half = read(smoke_run, "unit_half_lives")
    assert set(zip(half["model"], half["gate"], half["seed"], strict=True)) == {
        (m, g, s) for m, g in ((lstm, "forget"), (gru, "update")) for s in seeds
    }
    decay = read(smoke_run, "hidden_perturbation_decay")
    assert set(decay["model"]) == {lstm, gru, rnn}
    assert (decay.groupby(["model", "seed"]).size() == DECAY_STEPS + 1).all()
    assert (decay.loc[decay["k"] == 0, "measured"] == 1.0).all()


@pytest.mark.workflow
def test_smoke_gates_files_hold_the_probe_set(smoke_run, smoke_config):
    ref = smoke_config["grid"]["reference_width"]
    saved = load_gates(smoke_run / f"results/gates/default/lstm_w{ref}_s0.npz")
    lines, length = smoke_config["probe"]["lines"], smoke_config["probe"]["length"]
    assert saved.cell == "lstm" and saved.tokens.shape == (lines, length)
    assert saved.gates["f"].shape == (lines, length, ref)
    table = read(smoke_run, "lstm_gates")
    forget = table[(table["seed"] == 0) & (table["gate"] == "forget")].iloc[0]
    assert forget["mean"] == pytest.approx(float(saved.gates["f"].astype(np.float64).mean()))


@pytest.mark.workflow
def test_smoke_forget_bias_sweep_has_every_bias_and_seed(smoke_run, smoke_config):
    sweep_config = smoke_config["forget_bias_sweep"]
    biases = []
    for regime in sweep_config["regimes"]:
        bias = smoke_config["regimes"][regime].get("forget_bias", smoke_config["train"]["forget_bias"])
        biases.append(0.0 if bias is None else float(bias))
    table = read(smoke_run, "forget_bias_sweep")
    expected = {(b, s) for b in biases for s in sweep_config["seeds"]}
    assert set(zip(table["forget_bias"], table["seed"], strict=True)) == expected
    assert len(table) == len(expected)
    assert 0.0 in set(table["forget_bias"])
    ref = smoke_config["grid"]["reference_width"]
    for _, row in table.iterrows():
        summary = json.loads(
            (
                smoke_run / f"results/models/{row['regime']}/lstm_w{ref}_s{row['seed']}/summary.json"
            ).read_text()
        )
        assert summary["best_val_loss"] == row["best_val_loss"]
        assert summary["train_config"]["forget_bias"] == (
            None if row["init"] == "pytorch_default" else row["forget_bias"]
        )
