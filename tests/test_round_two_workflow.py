"""Round two of the protocol search at smoke size (issue #48): in a copy of the shared
smoke run, tests/data/smoke_round_two.yaml switches it on and asks for its table, then
for its confirmation; its points are the plan's from the run's own front, each trained
as its name says, its distances are the distance code's on the same regime tables, and
its confirmation trains the front of both rounds at every confirmation seed."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, SMOKE_CONFIG, copy_of_smoke_run, run_snakemake
from snakemake.utils import update_config

from gatedrnn.claims import claim_tables, load_claims, read_tables
from gatedrnn.claims.front import ROUND_COLUMNS, protocol_front, regimes_to_confirm
from gatedrnn.claims.scoreboard import regime_frame
from gatedrnn.plan import CORPUS_SIZE, PROTOCOL_ROUND_TWO, PROTOCOL_ROUND_TWO_PLAN, REGIME_SENSITIVITY, Plan
from gatedrnn.plan.paths import (
    PROTOCOL_CONFIRMATION_REGIMES,
    PROTOCOL_FRONT,
    PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES,
    PROTOCOL_ROUND_TWO_FRONT,
    PROTOCOL_ROUND_TWO_REGIMES,
    sized_small_corpus_files,
)
from gatedrnn.plan.round_two import AXES, round_two_points
from gatedrnn.reference.__main__ import main as reference_main
from gatedrnn.tables.regime_sweep import load_runs, regime_sensitivity_table

OVERLAY = REPO / "tests" / "data" / "smoke_round_two.yaml"
PUBLISHED = REPO / "workflow" / "resources" / "published.yaml"


def overlaid() -> dict:
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    update_config(config, yaml.safe_load(OVERLAY.read_text()))
    return config


def trained_runs(workdir) -> set[Path]:
    """``<regime>/<model>_s<seed>`` of every trained model of a working directory."""
    models = workdir / "results/models"
    return {summary.parent.relative_to(models) for summary in models.glob("*/*/summary.json")}


@pytest.fixture(scope="module")
def round_two_run(smoke_run, tmp_path_factory):
    workdir = copy_of_smoke_run(smoke_run, tmp_path_factory.mktemp("round_two") / "run")
    configs = ["--configfile", str(SMOKE_CONFIG), str(OVERLAY)]
    # and a round-two corpus size (the smoke front has no small-corpus regime to ask for it)
    sized = sized_small_corpus_files(40000)["corpus"]
    run_snakemake(workdir, PROTOCOL_ROUND_TWO, sized, "--cores", "2", *configs, configfile=None)
    after_round_two = trained_runs(workdir)
    run_snakemake(workdir, PROTOCOL_ROUND_TWO_FRONT, "--cores", "2", *configs, configfile=None)
    return workdir, smoke_run, after_round_two


def test_round_two_trains_the_points_its_front_asks_for(round_two_run):
    workdir, smoke_run, after_round_two = round_two_run
    config, plan = overlaid(), Plan.from_config(overlaid())
    planned = round_two_points(pd.read_csv(workdir / PROTOCOL_FRONT), config)
    assert len(planned) > 0 and "momentum" in set(planned["axis"])
    # the checkpoint wrote the plan's points, through a CSV
    written = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_PLAN)
    pd.testing.assert_frame_equal(written, pd.read_csv(io.StringIO(planned.to_csv(index=False))))

    # round two's models and nothing else were trained: the models the smoke run lacks
    new = after_round_two - trained_runs(smoke_run)
    assert new == {Path(run.path) for run in plan.round_two_runs(planned["regime"])}
    table = pd.read_csv(workdir / PROTOCOL_ROUND_TWO)
    second = table[table["round"] == 2].set_index("regime")
    assert list(second.index) == list(planned["regime"])
    for point in planned.to_dict("records"):
        assert second.loc[point["regime"], "from_regime"] == point["from_regime"]
        assert second.loc[point["regime"], "axis"] == point["axis"]
        for run in plan.round_two_runs([point["regime"]]):
            summary = json.loads((workdir / "results/models" / run.path / "summary.json").read_text())
            # the model trained as its point says: the axis's value, or its text
            trained_with = summary["train_config"]
            assert trained_with["lr"] == pytest.approx(point["lr"])
            for key in AXES:
                assert trained_with[key] == pytest.approx(point[key]), (run, key)
            if point["axis"] == "chars":
                text = (workdir / plan.corpus(point["regime"])["corpus"]).read_text()
                assert len(text) <= point["value"]
                assert (workdir / "data/corpus.txt").read_text().startswith(text)
                record = json.loads((workdir / plan.corpus(point["regime"])["provenance"]).read_text())
                assert summary["corpus_sha256"] == record["corpus_sha256"]


def test_a_round_two_corpus_size_is_the_corpus_head(round_two_run):
    workdir, _, _ = round_two_run
    files = sized_small_corpus_files(40000)
    text = (workdir / files["corpus"]).read_text()
    assert 30000 < len(text) <= 40000 and text.endswith("\n")  # cut back to a line end
    assert (workdir / "data/corpus.txt").read_text().startswith(text)
    assert json.loads((workdir / files["provenance"]).read_text())["characters"] == len(text)


def test_round_two_distances_are_the_distance_code_s(round_two_run):
    workdir, _, _ = round_two_run
    plan = Plan.from_config(overlaid())
    claims = load_claims(PUBLISHED)
    tables = read_tables(claim_tables(claims), base=workdir)
    table = pd.read_csv(workdir / PROTOCOL_ROUND_TWO)
    planned = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_PLAN)
    # round two's regime rows, from its models by the regime sweep's reduction
    runs = plan.round_two_runs(planned["regime"])
    files = {name: [str(workdir / f) for f in plan_files] for name, plan_files in (
        ("summary", [f"results/models/{r.path}/summary.json" for r in runs]),
        ("history", [f"results/models/{r.path}/history.csv" for r in runs]),
        ("gates", [f"results/gates/{r.path}.npz" for r in runs]))}  # fmt: skip
    second = regime_sensitivity_table(
        planned.to_dict("records"), load_runs(files["summary"], files["history"], files["gates"])
    )
    first = regime_frame(pd.read_csv(workdir / REGIME_SENSITIVITY), pd.read_csv(workdir / CORPUS_SIZE))
    both = pd.concat([first, regime_frame(second).reindex(columns=first.columns)], ignore_index=True)
    confirmed = pd.read_csv(workdir / PROTOCOL_CONFIRMATION_REGIMES)
    confirm = len(plan.config["protocol"]["confirm"]["seeds"])
    again = protocol_front(both, claims, tables, plan.claim_models, confirmed, confirm_seeds=confirm)
    again = pd.read_csv(io.StringIO(again.to_csv(index=False)))  # as the rule wrote it
    pd.testing.assert_frame_equal(table.drop(columns=ROUND_COLUMNS), again)
    # round one's regimes keep the distances round one gave them (the bootstrap is seeded
    # by the regime's name): only the front is read anew over both rounds
    front = pd.read_csv(workdir / PROTOCOL_FRONT).set_index("regime")
    first_round = table[table["round"] == 1].set_index("regime")
    assert set(first_round.index) == set(front.index)
    for column in ("loss", "loss_low", "loss_high", "gates", "gates_low", "gates_high", "seeds"):
        pd.testing.assert_series_equal(first_round[column], front.loc[first_round.index, column])
    assert table["gates"].notna().all() and set(table["front_on"]) == {"loss and gates"}


def test_round_two_s_confirmation_trains_the_front_of_both_rounds_at_every_seed(round_two_run):
    workdir, _, after_round_two = round_two_run
    plan = Plan.from_config(overlaid())
    seeds = plan.config["protocol"]["confirm"]["seeds"]
    table = pd.read_csv(workdir / PROTOCOL_ROUND_TWO)
    chosen = regimes_to_confirm(table)
    # the models of the front of both rounds and near it at every confirmation seed, and no others
    runs = plan.confirmation_runs(chosen)
    assert trained_runs(workdir) - after_round_two == {Path(run.path) for run in runs} - after_round_two
    assert all((workdir / "results/models" / run.path / "summary.json").exists() for run in runs)
    final = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_FRONT)
    assert list(final["regime"]) == list(table["regime"]) and list(final.columns) == list(table.columns)
    by_regime = final.set_index("regime")
    assert (by_regime.loc[chosen, "seeds"] == len(seeds)).all() and by_regime.loc[chosen, "confirmed"].all()
    assert (final["confirmed"] == (final["seeds"] >= len(seeds))).all()
    # the distance code on both rounds' regime rows, every confirmed regime's seeds in place of its first
    claims = load_claims(PUBLISHED)
    tables = read_tables(claim_tables(claims), base=workdir)
    first = regime_frame(pd.read_csv(workdir / REGIME_SENSITIVITY), pd.read_csv(workdir / CORPUS_SIZE))
    second = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_REGIMES)
    assert set(second["regime"]) == set(table.loc[table["round"] == 2, "regime"])
    files = {name: [str(workdir / f) for f in plan_files] for name, plan_files in (
        ("summary", [f"results/models/{r.path}/summary.json" for r in runs]),
        ("history", [f"results/models/{r.path}/history.csv" for r in runs]),
        ("gates", [f"results/gates/{r.path}.npz" for r in runs]))}  # fmt: skip
    planned = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_PLAN)
    points = {
        p["regime"]: p for p in [*plan.sweep_points, *plan.corpus_size_points, *planned.to_dict("records")]
    }
    again = regime_frame(
        regime_sensitivity_table(
            [points[r] for r in chosen], load_runs(files["summary"], files["history"], files["gates"])
        )
    )
    written = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES)
    pd.testing.assert_frame_equal(written, pd.read_csv(io.StringIO(again.to_csv(index=False))))
    earlier = pd.read_csv(workdir / PROTOCOL_CONFIRMATION_REGIMES)
    confirmed = pd.concat([earlier[~earlier["regime"].isin(chosen)], written], ignore_index=True)
    both = pd.concat([first, second.reindex(columns=first.columns)], ignore_index=True)
    confirm = len(seeds)
    expected = protocol_front(both, claims, tables, plan.claim_models, confirmed, confirm_seeds=confirm)
    expected = pd.read_csv(io.StringIO(expected.to_csv(index=False)))
    pd.testing.assert_frame_equal(final.drop(columns=ROUND_COLUMNS), expected)


def test_round_two_goes_on_from_collected_seed_rows_on_a_fresh_machine(round_two_run, tmp_path):
    """Round two stopped with one model left to train, its tables and seed rows collected
    (``reference collect --partial``) and restored into a fresh working directory that
    holds only the corpus files: Snakemake trains that one model and no other, and round
    two's tables come out byte for byte the run's own."""
    workdir, smoke_run, after_round_two = round_two_run
    plan = Plan.from_config(overlaid())
    planned = pd.read_csv(workdir / PROTOCOL_ROUND_TWO_PLAN)
    left = next(run for run in plan.round_two_runs(planned["regime"]) if "chars" not in run.regime)
    round_two_outputs = {PROTOCOL_ROUND_TWO, PROTOCOL_ROUND_TWO_REGIMES,
                         PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES, PROTOCOL_ROUND_TWO_FRONT}  # fmt: skip
    collected = [
        path.relative_to(workdir / "results").as_posix()
        for path in sorted((workdir / "results").glob("*/*.*"))
        if path.parts[-2] in ("tables", "figures") and f"results/tables/{path.name}" not in round_two_outputs
    ]
    # the seed rows of every sweep model trained by the time round two's table was made, less one
    rows = [f"regime_runs/{run}.json" for run in sorted(after_round_two) if run != Path(left.path)]
    rows = [name for name in rows if (workdir / "results" / name).is_file()]
    assert {f"regime_runs/{run.path}.json" for run in plan.round_two_runs(planned["regime"])} - set(rows) == {
        f"regime_runs/{left.path}.json"
    }
    reference = tmp_path / "reference"
    for name in collected + rows:
        (reference / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(workdir / "results" / name, reference / name)
    stages = {"protocol": {"files": collected + rows}}
    (reference / "manifest.json").write_text(json.dumps({"stages": stages, "files": {}}))
    fresh = tmp_path / "fresh"
    shutil.copytree(workdir / "data", fresh / "data")  # copy2: the corpus keeps its older times
    restored = ["restore", "--reference", str(reference), "--results", str(fresh / "results")]
    assert reference_main(restored) == 0

    configs = ["--configfile", str(SMOKE_CONFIG), str(OVERLAY)]
    dry = run_snakemake(fresh, PROTOCOL_ROUND_TWO, "-n", "--cores", "2", *configs, configfile=None)
    stats = dict(re.findall(r"^(\w+)\s+(\d+)$", dry.stdout, flags=re.M))
    assert stats == {"train": "1", "gates": "1", "regime_seed_row": "1", "protocol_round_two": "1",
                     "total": "4"}, dry.stdout[-3000:]  # fmt: skip
    run_snakemake(fresh, PROTOCOL_ROUND_TWO, "--cores", "2", *configs, configfile=None)
    assert trained_runs(fresh) == {Path(left.path)}
    for table in (PROTOCOL_ROUND_TWO, PROTOCOL_ROUND_TWO_REGIMES):
        assert (fresh / table).read_bytes() == (workdir / table).read_bytes(), table
