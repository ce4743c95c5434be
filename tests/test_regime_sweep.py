"""The regime sweep: its statistics against numpy written out here, the ledger's
"holds under ..., differs under ..." judgement, the DAG it plans, and the smoke
run's table against the gate tables of the same models."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO, SMOKE_CONFIG, run_snakemake

from gatedrnn.analysis.gate_files import ProbeGates
from gatedrnn.claims import (
    Claim,
    ClaimError,
    build_ledger,
    describe_regimes,
    load_claims,
    parse_claims,
)
from gatedrnn.report.regimes import published_marks
from gatedrnn.tables.regime_sweep import (
    COLUMNS,
    model_stats,
    read_seed_rows,
    regime_sensitivity_table,
    regime_table,
    seed_row,
    seed_row_json,
)

REGIME_TABLE = "results/tables/regime_sensitivity.csv"
# regime names of sweep points hold the learning rate: sgd_lr0.3_steps800
SWEEP_MODEL_OUTPUT = re.compile(r"results/models/([\w.-]+)/(\w+)/model\.pt")


def random_probe(cell, units=6, seed=0):
    rng = np.random.default_rng(seed)
    shape = (3, 10, units)
    names = {"lstm": ("i", "f", "o", "g"), "gru": ("z", "r", "n")}[cell]
    gates = {name: rng.uniform(0.05, 0.95, shape).astype(np.float32) for name in names}
    return ProbeGates(cell, 0, gates, np.zeros(shape[:2], dtype=np.int64), ["x" * 10] * 3)


def history(losses, every=10):
    steps = np.arange(len(losses)) * every
    return pd.DataFrame({"step": steps, "train_loss": np.nan, "val_loss": losses})


def summary(cell, best, step):
    return {"cell": cell, "best_val_loss": best, "best_step": step}


# --------------------------------------------------------------------------- statistics


def test_lstm_statistics_match_numpy_written_out():
    probe = random_probe("lstm")
    probe.gates["f"][..., 0] = 0.97  # one unit that holds: half-life 22.8 characters
    row = model_stats(summary("lstm", 1.5, 20), history([3.0, 2.0, 1.5, 1.6]), probe)
    f = probe.gates["f"].astype(np.float64)
    i = probe.gates["i"].astype(np.float64)
    unit_f = f.reshape(-1, f.shape[-1]).mean(axis=0)
    lives = np.log(0.5) / np.log(unit_f)  # f^t = 1/2
    x, y = i.ravel(), 1.0 - f.ravel()
    corr = ((x - x.mean()) * (y - y.mean())).mean() / (x.std() * y.std())
    assert row["gate"] == "forget"
    assert row["gate_mean"] == pytest.approx(f.mean(), rel=1e-12)
    assert row["input_mean"] == pytest.approx(i.mean(), rel=1e-12)
    assert row["output_mean"] == pytest.approx(probe.gates["o"].astype(np.float64).mean(), rel=1e-12)
    assert row["half_life_max"] == pytest.approx(lives.max(), rel=1e-10)
    assert row["half_life_median"] == pytest.approx(np.median(lives), rel=1e-10)
    assert row["units_below_half"] == int((unit_f < 0.5).sum())
    assert row["units_half_life_ge_10"] == int((lives >= 10).sum()) == 1
    assert row["corr_i_one_minus_f"] == pytest.approx(corr, rel=1e-9)
    assert row["mean_i_plus_f"] == pytest.approx((i + f).mean(), rel=1e-12)
    assert (row["best_val_loss"], row["best_step"], row["last_val_loss"]) == (1.5, 20, pytest.approx(1.6))


def test_gru_statistics_use_z_as_the_kept_fraction():
    probe = random_probe("gru", seed=1)
    row = model_stats(summary("gru", 1.4, 30), history([3.0, 2.0, 1.5, 1.4]), probe)
    z = probe.gates["z"].astype(np.float64)
    unit_z = z.reshape(-1, z.shape[-1]).mean(axis=0)
    assert row["gate"] == "update"
    assert row["gate_mean"] == pytest.approx(z.mean(), rel=1e-12)
    assert row["half_life_max"] == pytest.approx((np.log(0.5) / np.log(unit_z)).max(), rel=1e-10)
    for lstm_only in ("input_mean", "output_mean", "corr_i_one_minus_f", "mean_i_plus_f"):
        assert math.isnan(row[lstm_only])


def test_every_gate_s_quantiles_and_saturated_share_match_numpy_written_out():
    for cell, gates in (
        ("lstm", {"input": "i", "forget": "f", "output": "o"}),
        ("gru", {"update": "z", "reset": "r"}),
    ):
        probe = random_probe(cell, seed=2)
        probe.gates[gates[next(iter(gates))]][0, :4, :] = 0.99  # some saturated values
        row = model_stats(summary(cell, 1.4, 30), history([3.0, 1.4]), probe)
        for label, symbol in gates.items():
            values = probe.gates[symbol].astype(np.float64).ravel()
            for q in (5, 25, 50, 75, 95):
                assert row[f"{label}_p{q}"] == pytest.approx(np.quantile(values, q / 100), rel=1e-12)
            share = ((values < 0.05) | (values > 0.95)).sum() / values.size
            assert row[f"{label}_saturated"] == pytest.approx(share, rel=1e-12)
        other = {"lstm": "update_p50", "gru": "forget_p50"}[cell]
        assert math.isnan(row[other])
    # the new columns come last: a table written before them is a prefix of one written after
    assert COLUMNS[: COLUMNS.index("diverged_at_step") + 1][-2:] == ["diverged_seeds", "diverged_at_step"]
    assert COLUMNS[-1] == "reset_saturated"


def test_mismatched_gates_are_refused():
    with pytest.raises(ValueError, match="gates of a gru"):
        model_stats(summary("lstm", 1.0, 10), history([2.0, 1.0]), random_probe("gru"))
    with pytest.raises(ValueError, match="lstm and gru"):
        model_stats(summary("rnn", 1.0, 10), history([2.0, 1.0]), random_probe("gru"))


POINTS = [
    {"regime": "default", "optimizer": "adam", "lr": 0.002, "steps": 800, "batch_size": 32, "seq_len": 128},
    {
        "regime": "sgd_lr0.1_steps800",
        "optimizer": "sgd",
        "lr": 0.1,
        "steps": 800,
        "batch_size": 32,
        "seq_len": 128,
    },
]


def run(regime, cell, seed, best):
    model = {"lstm": "lstm_w8", "gru": "gru_budget8"}[cell]
    return {
        "regime": regime,
        "model": model,
        "seed": seed,
        "summary": summary(cell, best, 20),
        "history": history([3.0, 2.0, best]),
        "probe": random_probe(cell, seed=seed),
    }


def test_table_averages_seeds_and_computes_the_gap_where_both_cells_ran():
    runs = [
        run("default", "lstm", 0, 1.6),
        run("default", "lstm", 1, 1.8),
        run("default", "gru", 0, 1.5),
        run("default", "gru", 1, 1.5),
        run("sgd_lr0.1_steps800", "lstm", 0, 2.0),  # no GRU under this regime
    ]
    table = regime_sensitivity_table(POINTS, runs)
    assert list(table.columns) == COLUMNS
    assert list(zip(table["regime"], table["cell"], strict=True)) == [
        ("default", "lstm"),
        ("default", "gru"),
        ("sgd_lr0.1_steps800", "lstm"),
    ]
    lstm = table.iloc[0]
    assert lstm["seeds"] == 2
    assert lstm["best_val_loss"] == pytest.approx(1.7)
    one = model_stats(runs[0]["summary"], runs[0]["history"], runs[0]["probe"])
    two = model_stats(runs[1]["summary"], runs[1]["history"], runs[1]["probe"])
    assert lstm["gate_mean"] == pytest.approx((one["gate_mean"] + two["gate_mean"]) / 2)
    assert table["gru_minus_lstm"].iloc[0] == pytest.approx(1.5 - 1.7)
    assert table["gru_minus_lstm"].iloc[1] == pytest.approx(1.5 - 1.7)
    assert math.isnan(table["gru_minus_lstm"].iloc[2])
    assert (table.iloc[2]["optimizer"], table.iloc[2]["lr"], table.iloc[2]["steps"]) == ("sgd", 0.1, 800)


def test_a_model_outside_the_sweep_is_refused():
    with pytest.raises(ValueError, match="not a sweep point"):
        regime_sensitivity_table(POINTS, [run("forget_bias_3", "lstm", 0, 1.6)])


def write_rows(folder, runs):
    """Each run's seed row written where the rule regime_seed_row writes it."""
    paths = []
    for one in runs:
        path = folder / one["regime"] / f"{one['model']}_s{one['seed']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(seed_row_json(seed_row(one)))
        paths.append(path)
    return paths


def test_seed_rows_read_back_make_the_table_the_models_make_byte_for_byte(tmp_path):
    diverged = run("default", "gru", 2, 9.9)
    diverged["summary"] |= {"diverged": True, "diverged_at_step": 40}
    held = run("default", "lstm", 1, 1.8)
    held["probe"].gates["f"][..., 0] = 1.0  # a unit that never forgets: an infinite half-life
    runs = [
        run("default", "lstm", 0, 1.6),
        held,
        run("default", "gru", 0, 1.5),
        run("default", "gru", 1, 1 / 3),  # a float with no short decimal
        diverged,
        run("sgd_lr0.1_steps800", "lstm", 0, 2.0),
    ]
    rows = read_seed_rows(write_rows(tmp_path, runs))
    assert math.isinf(max(row["half_life_max"] for row in rows))
    assert regime_table(POINTS, rows).to_csv(index=False) == regime_sensitivity_table(POINTS, runs).to_csv(
        index=False
    )
    assert regime_table(POINTS, rows)["diverged_seeds"].tolist() == [0, 1, 0]


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda row: row | {"seed": 5}, "holds the row of default/lstm_w8_s5"),
        (lambda row: {k: v for k, v in row.items() if k != "gate_mean"}, "lacks gate_mean"),
        (lambda row: [row], "holds no JSON object"),
    ],
)
def test_a_seed_row_not_of_its_run_is_refused_naming_the_file(tmp_path, damage, reason):
    (path,) = write_rows(tmp_path, [run("default", "lstm", 0, 1.6)])
    path.write_text(json.dumps(damage(json.loads(path.read_text()))))
    with pytest.raises(ValueError, match=rf"seed row {re.escape(str(path))} is not the row of .*{reason}"):
        read_seed_rows([path])
    path.write_text(path.read_text()[:20])  # cut short
    with pytest.raises(ValueError, match=re.escape(str(path))):
        read_seed_rows([path])


# --------------------------------------------------------------------------- the ledger

REGIMES = pd.DataFrame(
    {
        "cell": ["lstm", "gru", "lstm", "gru"],
        "regime": ["default", "default", "sgd_lr0.1_steps800", "sgd_lr0.1_steps800"],
        "optimizer": ["adam", "adam", "sgd", "sgd"],
        "lr": [0.002, 0.002, 0.1, 0.1],
        "steps": [800, 800, 800, 800],
        "gate_mean": [0.62, 0.25, 0.49, 0.40],
        "best_val_loss": [1.64, 1.58, 2.1, 2.3],
    }
)
GATES = pd.DataFrame({"model": ["lstm_w8"], "seed": [0], "gate": ["forget"], "mean": [0.62]})


def forget_mean_claim(view_column="gate_mean", **keys) -> dict:
    """A within claim on GATES' forget mean, with a view on the regime table's LSTM rows."""
    return {
        "id": "C2.forget.mean",
        "experiment": "C2",
        "description": "forget mean",
        "published": 0.495,
        "table": "gates.csv",
        "where": {"model": "lstm_w8", "seed": 0, "gate": "forget"},
        "column": "mean",
        "rule": "within",
        "tolerance": {"abs": 0.1},
        "across_regimes": {"table": REGIME_TABLE, "where": {"cell": "lstm"}, "column": view_column},
        **keys,
    }


def claims_with_views():
    return parse_claims(
        {
            "claims": [
                forget_mean_claim(),
                {
                    "id": "D3.gru_wins",
                    "experiment": "D3",
                    "description": "the GRU wins",
                    "published": "GRU < LSTM",
                    "rule": "direction",
                    "table": "gates.csv",
                    "compare": {"left": {"column": "mean"}, "op": "<", "right": 1.0},
                    "across_regimes": {
                        "table": REGIME_TABLE,
                        "compare": {
                            "left": {"where": {"cell": "gru"}, "column": "best_val_loss"},
                            "op": "<",
                            "right": {"where": {"cell": "lstm"}, "column": "best_val_loss"},
                        },
                    },
                },
                {
                    "id": "C2.no_view",
                    "experiment": "C2",
                    "description": "no regime view",
                    "published": 0.62,
                    "table": "gates.csv",
                    "column": "mean",
                    "rule": "within",
                    "tolerance": {"abs": 0.01},
                },
            ]
        }
    )


def test_ledger_says_where_each_claim_holds_and_differs():
    ledger = build_ledger(claims_with_views(), {"gates.csv": GATES}, {}, REGIMES).set_index("id")
    # 0.62 is outside 0.495 +/- 0.1 (default), 0.49 inside (sgd); the claim's own
    # verdict is still judged on its own table
    assert ledger.loc["C2.forget.mean", "verdict"] == "differs"
    assert ledger.loc["C2.forget.mean", "regimes"] == (
        "holds under sgd 0.1 x 800; differs under adam 0.002 x 800 (default)"
    )
    assert ledger.loc["D3.gru_wins", "regimes"] == (  # a finding fails where a value differs
        "holds under adam 0.002 x 800 (default); fails under sgd 0.1 x 800"
    )
    assert ledger.loc["C2.no_view", "regimes"] == ""


def test_a_finding_judged_on_one_seed_under_a_regime_is_inconclusive_with_the_reason():
    # the default regime's rows are one seed each, sgd's three: the GRU's win under the
    # default is one draw of each model, under sgd a comparison of means over seeds
    regimes = REGIMES.assign(seeds=[1, 1, 3, 3])
    ledger = build_ledger(claims_with_views(), {"gates.csv": GATES}, {}, regimes).set_index("id")
    assert ledger.loc["D3.gru_wins", "regimes"] == (
        "fails under sgd 0.1 x 800; inconclusive under adam 0.002 x 800 (default), one seed each "
        "(a comparison needs the seeds' spread); at that seed it holds under adam 0.002 x 800 (default)"
    )
    # a value against its band is not a comparison of two draws: judged as before
    assert ledger.loc["C2.forget.mean", "regimes"] == (
        "holds under sgd 0.1 x 800; differs under adam 0.002 x 800 (default)"
    )
    # one seed in either model's rows is enough to leave the comparison open
    one_gru_seed = build_ledger(
        claims_with_views(), {"gates.csv": GATES}, {}, REGIMES.assign(seeds=[3, 3, 3, 1])
    ).set_index("id")
    assert one_gru_seed.loc["D3.gru_wins", "regimes"].startswith(
        "holds under adam 0.002 x 800 (default); inconclusive under sgd 0.1 x 800, one seed each"
    )
    every = build_ledger(claims_with_views(), {"gates.csv": GATES}, {}, REGIMES.assign(seeds=1))
    assert every.set_index("id").loc["D3.gru_wins", "regimes"] == (
        "inconclusive under every regime, one seed each (a comparison needs the seeds' spread); "
        "at that seed it holds under adam 0.002 x 800 (default); fails under sgd 0.1 x 800"
    )


def test_ledger_without_the_sweep_has_an_empty_regimes_column():
    ledger = build_ledger(claims_with_views(), {"gates.csv": GATES}, {})
    assert (ledger["regimes"] == "").all()


def test_a_regime_missing_a_cell_is_not_run_there():
    partial = REGIMES[~((REGIMES["cell"] == "gru") & (REGIMES["regime"] == "sgd_lr0.1_steps800"))]
    ledger = build_ledger(claims_with_views(), {"gates.csv": GATES}, {}, partial).set_index("id")
    assert ledger.loc["D3.gru_wins", "regimes"].endswith("not run under sgd 0.1 x 800")


def test_a_view_of_a_seed_spread_band_is_judged_by_the_claims_own_band():
    """One regime has one seed, so no spread of its own: its value is judged by the
    band of the claim itself (0.5 ± the range of the claim's seeds, 0.2)."""
    gates = pd.DataFrame({"model": ["lstm_w8"] * 2, "seed": [0, 1], "gate": "forget", "mean": [0.45, 0.65]})
    entry = forget_mean_claim(
        published=0.5,
        where={"model": "lstm_w8", "gate": "forget"},
        agg="median",
        tolerance={"spread": True, "abs": 0.01},
    )
    ledger = build_ledger(parse_claims({"claims": [entry]}), {"gates.csv": gates}, {}, REGIMES).set_index(
        "id"
    )
    # the claim itself: its seeds' interval [0.45, 0.65] crosses its margin 0.5 ± 0.01 (the
    # ledger's margin is the stated width); the regimes, one seed each, are judged by
    # 0.5 ± 0.2 (the seed range): 0.62 (default) and 0.49 (sgd), both inside
    assert ledger.loc["C2.forget.mean", "verdict"] == "inconclusive"
    assert ledger.loc["C2.forget.mean", "band"] == "±0.01"
    assert ledger.loc["C2.forget.mean", "regimes"] == "holds under adam 0.002 x 800 (default), sgd 0.1 x 800"
    narrow = build_ledger(
        parse_claims({"claims": [{**entry, "tolerance": {"abs": 0.05}}]}), {"gates.csv": gates}, {}, REGIMES
    ).set_index("id")
    assert narrow.loc["C2.forget.mean", "regimes"] == (
        "holds under sgd 0.1 x 800; differs under adam 0.002 x 800 (default)"
    )


def test_describe_regimes_groups_in_order():
    text = describe_regimes({"a": "within", "b": "differs", "c": "direction", "d": "missing"})
    assert text == "holds under a, c; differs under b; not run under d"


@pytest.mark.parametrize(
    "view, message",
    [
        ({"table": REGIME_TABLE, "column": "gate_mean", "colour": "red"}, "across_regimes is a mapping"),
        ({"column": "gate_mean"}, "needs `table` and `column`"),
        ("gate_mean", "across_regimes is a mapping"),
    ],
)
def test_malformed_views_are_refused(view, message):
    with pytest.raises(ClaimError, match=message):
        Claim.from_dict(forget_mean_claim(across_regimes=view))


def test_a_view_naming_a_column_the_regime_table_lacks_is_an_error():
    claims = parse_claims({"claims": [forget_mean_claim(view_column="gate_maen")]})
    with pytest.raises(ClaimError, match="gate_maen"):
        build_ledger(claims, {"gates.csv": GATES}, {}, REGIMES)


def test_a_direction_view_needs_a_comparison():
    entry = {
        "id": "x",
        "experiment": "C2",
        "description": "d",
        "published": "finding",
        "rule": "direction",
        "table": "t.csv",
        "compare": {"left": {"column": "mean"}, "op": "<", "right": 1},
        "across_regimes": {"table": REGIME_TABLE, "column": "gate_mean"},
    }
    with pytest.raises(ClaimError, match="direction claim needs `compare`"):
        Claim.from_dict(entry)


def test_published_yaml_views_read_the_regime_table_and_mark_the_figure():
    claims = load_claims(REPO / "workflow" / "resources" / "published.yaml")
    views = [c for c in claims if c.regime_view is not None]
    assert len(views) >= 15
    assert {t for c in views for t in c.regime_view.tables()} == {REGIME_TABLE}
    assert all(REGIME_TABLE not in c.tables() for c in claims)  # not an input of every ledger
    marks = published_marks(claims, REGIME_TABLE)
    by_id = {c.id: c for c in claims}
    assert marks[("lstm", "gate_mean")] == by_id["C2.lstm_gates.forget.mean"].published
    assert marks[("gru", "gate_mean")] == by_id["D1.gru_gates.update.mean"].published


# --------------------------------------------------------------------------- the DAG


def sweep_names(config):
    """Every sweep point's regime, named as the config README says (a point that trains
    like a configured regime on the corpus reuses it)."""
    train = config["train"]
    sweep = config["regime_sweep"]
    names = []
    for optimizer, lrs in sweep["optimizers"].items():
        for lr in lrs:
            for steps in sweep["steps"]:
                wanted = {**train, "optimizer": optimizer, "lr": lr, "steps": steps}
                same = [
                    name
                    for name, overrides in config["regimes"].items()
                    if "dataset" not in overrides and {**train, **overrides} == wanted
                ]
                names.append(same[0] if same else f"{optimizer}_lr{lr:g}_steps{steps}")
    # the window axes, crossed, at train's optimizer, lr and steps (train's pair: the default)
    for batch_size in sweep["batch_sizes"]:
        for seq_len in sweep["seq_lens"]:
            wanted = {**train, "batch_size": batch_size, "seq_len": seq_len}
            same = [
                name
                for name, overrides in config["regimes"].items()
                if "dataset" not in overrides and {**train, **overrides} == wanted
            ]
            name = same[0] if same else f"batch{batch_size}_seq{seq_len}"
            if name not in names:
                names.append(name)
    return names


def test_sweep_target_plans_every_point_and_reuses_configured_regimes(tmp_path):
    from test_workflow import dry_run_outputs, job_counts

    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    text = dry_run_outputs(tmp_path, REGIME_TABLE)
    names = sweep_names(config)
    assert "default" in names and "steps_x4" in names  # adam at train.lr, 800 and 3200 steps
    sweep = config["regime_sweep"]
    points = len(sweep["steps"]) * sum(map(len, sweep["optimizers"].values()))
    windows = len(sweep["batch_sizes"]) * len(sweep["seq_lens"]) - 1  # the protocol's pair is `default`
    assert len(set(names)) == len(names) == points + windows >= 12 + 8
    assert {"batch16_seq64", "batch64_seq256", "batch32_seq256"} <= set(names)
    planned = {(m.group(1), m.group(2)) for m in SWEEP_MODEL_OUTPUT.finditer(text)}
    seeds = config["regime_sweep"]["seeds"]
    expected = {(r, f"{m}_s{s}") for r in names for m in ("lstm_w325", "gru_budget325") for s in seeds}
    assert planned == expected
    counts = job_counts(text)
    assert counts["train"] == counts["gates"] == len(expected)
    assert counts["regime_sensitivity"] == 1


@pytest.mark.parametrize(
    "mutate",
    [
        # two learning rates that print alike would share a regime (and its models)
        lambda c: c["regime_sweep"]["optimizers"].update(adam=[0.003, 0.0030000001]),
        # a configured regime already holds a point's name but trains differently
        lambda c: (
            c["regime_sweep"]["optimizers"].update(sgd=[1.0]),
            c["regimes"].update(sgd_lr1_steps40={"optimizer": "sgd", "lr": 1.0, "steps": 40, "layers": 2}),
        ),
    ],
)
def test_a_sweep_point_whose_name_is_taken_is_refused_before_any_job(tmp_path, mutate):
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    mutate(config)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    proc = run_snakemake(tmp_path, "-n", configfile=bad, check=False)
    assert proc.returncode != 0
    assert "regime_sweep: the point" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


def test_switching_the_sweep_off_leaves_it_out(tmp_path):
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    config["regime_sweep"]["enabled"] = False
    off = tmp_path / "off.yaml"
    off.write_text(yaml.safe_dump(config))
    proc = run_snakemake(tmp_path, "-n", configfile=off)
    text = proc.stdout + proc.stderr
    assert "regime_sensitivity" not in text
    # the small corpus's points (protocol's own switch) are named after the same optimizer points
    trained = set(re.findall(r"results/models/([\w.]+)/", text))
    assert trained and all(r.endswith("_small") for r in trained if "_lr" in r), trained


# --------------------------------------------------------------------------- smoke run


def test_smoke_table_agrees_with_the_gate_tables(smoke_run):
    table = pd.read_csv(smoke_run / REGIME_TABLE)
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    assert len(table) == 2 * len(sweep_names(config))
    default = table[table["regime"] == "default"].set_index("cell")
    tables = smoke_run / "results/tables"
    gates = pd.read_csv(tables / "lstm_gates.csv")
    forget = gates[(gates["seed"] == 0) & (gates["gate"] == "forget")]["mean"].item()
    assert default.loc["lstm", "gate_mean"] == pytest.approx(forget, rel=1e-6)
    units = pd.read_csv(tables / "lstm_forget_units.csv").query("seed == 0").iloc[0]
    assert default.loc["lstm", "half_life_max"] == pytest.approx(units["half_life_max"], rel=1e-9)
    assert default.loc["lstm", "units_below_half"] == units["units_below_half"]
    coupling = pd.read_csv(tables / "lstm_coupling.csv").query("seed == 0").iloc[0]
    assert default.loc["lstm", "corr_i_one_minus_f"] == pytest.approx(coupling["corr_all"], rel=1e-9)
    losses = pd.read_csv(tables / "gru_vs_lstm.csv").set_index("model")["seed_0"]
    gap = losses["gru_budget24"] - losses["lstm_w24"]
    assert default.loc["gru", "gru_minus_lstm"] == pytest.approx(gap, rel=1e-9)
    assert default.loc["gru", "gate_mean"] == pytest.approx(
        pd.read_csv(tables / "gru_gates.csv").query("seed == 0 and gate == 'update'")["mean"].item(), rel=1e-6
    )
    # a sweep point the config does not name trained under its own regime, with its own optimizer
    sgd = table[table["optimizer"] == "sgd"]
    assert set(sgd["regime"]) == {f"sgd_lr0.3_steps{n}" for n in config["regime_sweep"]["steps"]}
    assert (smoke_run / "results/figures/regime_sensitivity.png").stat().st_size > 10_000
    # the window axes: a row per cell at each pair other than train's, trained at that pair
    train = config["train"]
    windows = table[(table["batch_size"] != train["batch_size"]) | (table["seq_len"] != train["seq_len"])]
    pairs = {
        (b, n) for b in config["regime_sweep"]["batch_sizes"] for n in config["regime_sweep"]["seq_lens"]
    }
    pairs.discard((train["batch_size"], train["seq_len"]))
    assert set(zip(windows["batch_size"], windows["seq_len"], strict=True)) == pairs
    assert len(windows) == 2 * len(pairs) and (windows["optimizer"] == train["optimizer"]).all()
    assert (windows["lr"] == train["lr"]).all() and (windows["steps"] == train["steps"]).all()
    for row in windows.to_dict("records"):
        assert row["regime"] == f"batch{row['batch_size']}_seq{row['seq_len']}"
        summary = json.loads(
            (smoke_run / "results/models" / row["regime"] / f"{row['model']}_s0/summary.json").read_text()
        )
        trained = summary["train_config"]
        assert (trained["batch_size"], trained["seq_len"]) == (row["batch_size"], row["seq_len"])


def test_smoke_ledger_judges_the_trained_claims_across_regimes(smoke_run):
    ledger = pd.read_csv(smoke_run / "results/claims.csv").fillna("")
    claims = {c.id: c for c in load_claims(REPO / "workflow" / "resources" / "published.yaml")}
    published = ledger[ledger["id"].isin(claims)]  # the new findings (family G) have no view
    assert (ledger.loc[~ledger["id"].isin(claims), "verdict"] == "new").all()
    with_view = published[published["id"].map(lambda i: claims[i].regime_view is not None)]
    assert len(with_view) == sum(c.regime_view is not None for c in claims.values())
    assert with_view["regimes"].str.contains("holds under|differs under|fails under").all()
    assert not with_view["regimes"].str.contains("not run").any()  # both cells ran everywhere
    assert (ledger.loc[~ledger.index.isin(with_view.index), "regimes"] == "").all()
    assert "(default)" in with_view["regimes"].iloc[0]
    assert "across regimes" in (smoke_run / "results/claims.md").read_text()
