"""The reference run's tooling (gatedrnn.reference): collecting a stage with its
manifest. The checks of the committed reference/ itself are in
tests/test_reference_consistency.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gatedrnn.reference import collect, read_benchmark
from gatedrnn.reference.restore import restore

REPO_CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"

BENCH = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def fake_run(root: Path, value: str = "1.5") -> Path:
    results = root / "results"
    (results / "tables").mkdir(parents=True)
    (results / "figures").mkdir()
    (results / "tables" / "t.csv").write_text(f"model,seed,loss\nlstm_w8,0,{value}\n")
    (results / "figures" / "f.png").write_bytes(b"\x89PNG fake")
    (results / "claims.csv").write_text("id,verdict\nA1,exact\n")
    model = results / "models" / "default" / "lstm_w8_s0"
    model.mkdir(parents=True)
    cfg = {"steps": 40, "batch_size": 8}
    (model / "summary.json").write_text(
        json.dumps({"train_config": cfg, "resumed_from_step": None, "threads": 1})
    )
    bench = results / "benchmarks" / "train" / "default"
    bench.mkdir(parents=True)
    (bench / "lstm_w8_s0.tsv").write_text(
        BENCH + "4.03\t0:00:04\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t3.19"
    )
    (root / "data").mkdir()
    (root / "data" / "corpus.json").write_text(json.dumps({"corpus_sha256": "abc", "vocab_size": 52}))
    return results


def test_a_partial_collect_keeps_the_seed_rows_and_restore_puts_them_back(tmp_path):
    """A part that stopped half way (round two) is collected with the seed rows of the
    sweep models it finished, each under its regime; ``restore`` puts them back where
    the rule regime_seed_row writes them."""
    results = fake_run(tmp_path)
    rows = {"sgd_lr1_steps800__momentum0/lstm_w8_s0.json": b'{"seed": 0}\n',
            "sgd_lr1_steps800__momentum0/gru_budget8_s0.json": b'{"seed": 0, "cell": "gru"}\n'}  # fmt: skip
    for name, data in rows.items():
        (results / "regime_runs" / name).parent.mkdir(parents=True, exist_ok=True)
        (results / "regime_runs" / name).write_bytes(data)
    out = tmp_path / "reference"
    config = {"train": {"threads": 1}}
    collect(results, out, "protocol_round_two", config, tmp_path / "data/corpus.json", tmp_path, partial=True)
    saved = json.loads((out / "manifest.json").read_text())
    listed = [f"regime_runs/{name}" for name in sorted(rows)]
    assert saved["stages"]["protocol_round_two"]["files"] == [
        "tables/t.csv",
        "figures/f.png",
        *listed,
        "claims.csv",
    ]
    assert all(saved["files"][name] == "protocol_round_two" for name in listed)

    fresh = tmp_path / "fresh" / "results"
    done = restore(out, fresh, now=1_000_000.0)
    assert sorted(done["restored"]) == sorted(["tables/t.csv", "figures/f.png", *listed])
    for name, data in rows.items():
        assert (fresh / "regime_runs" / name).read_bytes() == data


def test_collect_copies_the_outputs_and_records_what_made_them(tmp_path):
    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    config = {"train": {"threads": 1}}
    manifest = collect(results, out, "study", config, tmp_path / "data/corpus.json", tmp_path)
    assert (out / "tables/t.csv").read_bytes() == (results / "tables/t.csv").read_bytes()
    assert (out / "figures/f.png").exists() and (out / "claims.csv").exists()
    saved = json.loads((out / "manifest.json").read_text())
    assert saved == manifest
    assert saved["stages"]["study"]["files"] == ["tables/t.csv", "figures/f.png", "claims.csv"]
    assert saved["corpus"]["corpus_sha256"] == "abc" and saved["threads_per_job"] == 1
    job = saved["training_jobs"]["default/lstm_w8_s0"]
    assert job == {"wall_s": 4.03, "cpu_s": 3.19, "max_rss_mb": 354.96} | {
        "steps": 40, "resumed_from_step": None, "prefix_from_step": None, "threads": 1, "stage": "study"
    }  # fmt: skip
    assert saved["totals"]["training_jobs"] == 1 and saved["totals"]["steps_saved_by_prefix"] == 0
    stage = saved["stages"]["study"]
    assert stage["training_jobs"] == ["default/lstm_w8_s0"] and "retrained" not in stage
    machine_keys = {"cpu", "cores", "python", "torch", "cpu_capability", "threads_per_job", "cpu_isa"}
    assert set(stage["machine"]) == machine_keys
    assert stage["machine"]["cpu"] == saved["cpu"]


def test_a_model_a_later_stage_trains_again_is_its_cost_and_leaves_the_first_training_alone(tmp_path):
    """A stage that starts on a fresh machine retrains the earlier stages' models it reads:
    the manifest keeps the first training's record and counts the second in the total."""
    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    again = fake_run(tmp_path / "later")
    (again / "tables" / "t.csv").unlink()  # the later stage does not rebuild the study's table
    bench = again / "benchmarks" / "train" / "default" / "lstm_w8_s0.tsv"
    bench.write_text(BENCH + "6.0\t0:00:06\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t5.0")
    manifest = collect(again, out, "questions", {}, tmp_path / "data/corpus.json", tmp_path)
    assert manifest["training_jobs"]["default/lstm_w8_s0"]["cpu_s"] == 3.19
    assert manifest["training_jobs"]["default/lstm_w8_s0"]["stage"] == "study"
    assert manifest["stages"]["questions"]["retrained"]["default/lstm_w8_s0"]["cpu_s"] == 5.0
    totals = manifest["totals"]
    assert totals["training_jobs"] == 1 and totals["retrained_jobs"] == 1
    assert totals["cpu_hours"] == round(8.19 / 3600, 3)
    assert totals["cpu_hours_first_trainings"] == round(3.19 / 3600, 3)
    # collecting the first stage again is no retraining
    manifest = collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    assert "retrained" not in manifest["stages"]["study"]


def test_a_second_part_collected_from_the_same_run_counts_only_its_own_trainings(tmp_path):
    """Stage parts collected one after the other from one results/: the jobs the first
    part recorded (first trainings or retrainings) are not counted again."""
    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    again = fake_run(tmp_path / "later")
    bench = again / "benchmarks" / "train" / "default" / "lstm_w8_s0.tsv"
    bench.write_text(BENCH + "6.0\t0:00:06\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t5.0")
    collect(again, out, "questions", {}, tmp_path / "data/corpus.json", tmp_path)
    new_job = again / "benchmarks" / "train" / "two_layers"
    new_job.mkdir()
    (new_job / "lstm_w8_s0.tsv").write_text(bench.read_text().replace("6.0\t", "9.0\t"))
    manifest = collect(again, out, "questions_depth", {}, tmp_path / "data/corpus.json", tmp_path)
    depth = manifest["stages"]["questions_depth"]
    assert depth["training_jobs"] == ["two_layers/lstm_w8_s0"] and "retrained" not in depth
    assert manifest["training_jobs"]["two_layers/lstm_w8_s0"]["stage"] == "questions_depth"
    assert manifest["totals"]["training_jobs"] == 2 and manifest["totals"]["retrained_jobs"] == 1


def test_analyses_made_again_after_a_code_change_take_over_only_the_files_they_change(tmp_path):
    """collect --remade: the same run's analyses made again with changed analysis code (no
    training) replace the files whose bytes changed and leave the rest to their stage."""
    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    (results / "tables" / "t.csv").write_text("model,seed,loss\nlstm_w8,0,1.5000000000000002\n")
    with pytest.raises(ValueError, match="--remade"):
        collect(results, out, "exact_math", {}, tmp_path / "data/corpus.json", tmp_path)
    manifest = collect(results, out, "exact_math", {}, tmp_path / "data/corpus.json", tmp_path, remade=True)
    stage = manifest["stages"]["exact_math"]
    assert stage["remade"] == {"tables/t.csv": "study"} and stage["files"] == ["tables/t.csv"]
    assert manifest["files"]["tables/t.csv"] == "exact_math"
    assert manifest["files"]["figures/f.png"] == "study" and manifest["files"]["claims.csv"] == "study"
    assert (out / "tables" / "t.csv").read_text().endswith("1.5000000000000002\n")
    assert stage["training_jobs"] == [] and manifest["totals"]["training_jobs"] == 1
    from gatedrnn.report.provenance import machines, provenance

    lines = provenance(manifest)  # a stage of no kind: its own row, and what it changed
    assert any(
        line.startswith("| exact_math | analyses made again after their code changed (1 file changed)")
        for line in lines
    )
    made_again = "- **Made again** by exact_math, with the bytes that changed (the stage that had each"
    assert f"{made_again} before): `t.csv` (study)." in lines
    assert len(machines(manifest)) == 1
    manifest["stages"]["ledger"] = {"commit": "d" * 40, "files": ["claims.csv"]}  # derived, not remade
    assert not any(line.startswith("| ledger |") for line in provenance(manifest))


def test_file_owners_are_keyed_inside_reference_whatever_an_older_manifest_said(tmp_path):
    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({
        "stages": {"study": {"files": ["tables/t.csv"], "commit": "x"}},
        "files": {"/old/main/reference/tables/t.csv": "study", "/old/main/reference/claims.csv": "study"},
    }))  # fmt: skip
    manifest = collect(results, out, "regimes", {}, tmp_path / "data/corpus.json", tmp_path)
    assert manifest["files"]["tables/t.csv"] == "study" and manifest["files"]["claims.csv"] == "study"
    assert manifest["files"]["figures/f.png"] == "regimes"
    assert not [key for key in manifest["files"] if key.startswith("/")]


def test_the_manifest_counts_the_steps_a_long_run_took_from_a_shorter_ones_state(tmp_path):
    results = fake_run(tmp_path)
    long = results / "models" / "steps_x4" / "lstm_w8_s0"
    long.mkdir(parents=True)
    (long / "summary.json").write_text(json.dumps(
        {"train_config": {"steps": 160}, "resumed_from_step": None, "threads": 1,
         "prefix_from": {"regime": "default", "step": 40}}
    ))  # fmt: skip
    bench = results / "benchmarks" / "train" / "steps_x4"
    bench.mkdir(parents=True)
    (bench / "lstm_w8_s0.tsv").write_text(
        BENCH + "9.0\t0:00:09\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t8.5"
    )
    manifest = collect(results, tmp_path / "reference", "study", {}, tmp_path / "data/corpus.json", tmp_path)
    assert manifest["training_jobs"]["steps_x4/lstm_w8_s0"]["prefix_from_step"] == 40
    assert manifest["totals"]["steps_saved_by_prefix"] == 40
    # 120 steps trained in 8.5 s of CPU: the 40 skipped would have cost 40 * 8.5 / 120 s
    assert manifest["totals"]["cpu_hours_saved_by_prefix"] == round(40 * 8.5 / 120 / 3600, 3)
    # killed at step 100 and resumed there: the benchmark's CPU time is that of the last 60 steps
    (long / "summary.json").write_text(json.dumps(
        {"train_config": {"steps": 160}, "resumed_from_step": 100, "threads": 1,
         "prefix_from": {"regime": "default", "step": 40}}
    ))  # fmt: skip
    manifest = collect(results, tmp_path / "reference", "study", {}, tmp_path / "data/corpus.json", tmp_path)
    assert manifest["totals"]["cpu_hours_saved_by_prefix"] == round(40 * 8.5 / 60 / 3600, 3)


def test_a_later_stage_keeps_earlier_files_and_refuses_to_overwrite_them_with_other_bytes(tmp_path):
    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    (results / "tables" / "u.csv").write_text("a\n1\n")
    manifest = collect(results, out, "regimes", {}, tmp_path / "data/corpus.json", tmp_path)
    assert set(manifest["stages"]) == {"study", "regimes"}
    assert (out / "tables/u.csv").exists()
    (results / "tables" / "t.csv").write_text("model,seed,loss\nlstm_w8,0,9.9\n")
    with pytest.raises(ValueError, match="collected by stage 'study'"):
        collect(results, out, "questions", {}, tmp_path / "data/corpus.json", tmp_path)


def test_benchmark_rows_are_read_by_column_name(tmp_path):
    path = tmp_path / "b.tsv"
    path.write_text(BENCH + "10.5\t0:00:10\t500.0\t1\t1\t1\t0\t0\t50\t9.25\n")
    assert read_benchmark(path) == {"wall_s": 10.5, "cpu_s": 9.25, "max_rss_mb": 500.0}


@pytest.mark.workflow
def test_the_reference_ledger_is_the_claims_rules_ledger(smoke_run):
    """`python -m gatedrnn.reference ledger` on a run's tables gives the very bytes the
    `claims` rule wrote from them (same claims, same build_ledger, same renderers)."""
    from conftest import REPO, SMOKE_CONFIG

    from gatedrnn.reference import load_config, reference_ledger, write_ledger

    config = load_config([str(REPO / "config/config.yaml"), str(SMOKE_CONFIG)])
    ledger = reference_ledger(smoke_run / "results", config, REPO)
    assert ledger is not None
    out = smoke_run.parent / "reference_ledger"
    out.mkdir(exist_ok=True)
    write_ledger(ledger, out)
    assert (out / "claims.csv").read_bytes() == (smoke_run / "results" / "claims.csv").read_bytes()
    # the rule's pages open with the toy run's note (issue #52), the reference's have none
    from gatedrnn.claims import render_html, render_markdown
    from gatedrnn.plan.toy import toy_note

    note = toy_note(config)
    assert note, "the smoke config is a toy run"
    assert render_markdown(ledger, note=note) == (smoke_run / "results" / "claims.md").read_text()
    assert render_html(ledger, note=note) == (smoke_run / "results" / "claims.html").read_text()
    assert (out / "claims.md").read_text() == render_markdown(ledger)


@pytest.mark.workflow
def test_the_reference_answers_are_the_report_rules_answers(smoke_run):
    from conftest import REPO, SMOKE_CONFIG

    from gatedrnn.reference import load_config, reference_open_questions

    config = load_config([str(REPO / "config/config.yaml"), str(SMOKE_CONFIG)])
    text = reference_open_questions(smoke_run / "results", config)
    # the rule's page carries the toy run's note under its title (issue #52); the reference's none
    from gatedrnn.plan.toy import toy_note

    title, rest = text.split("\n", 1)
    assert (
        f"{title}\n\n> **{toy_note(config)}**\n{rest}"
        == (smoke_run / "results" / "open_questions.md").read_text()
    )


def test_files_computed_from_the_reference_are_a_stage_of_the_manifest(tmp_path):
    from gatedrnn.reference.manifest import record_derived

    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    (out / "open_questions.md").write_text("answers\n")
    manifest = record_derived(out, "ledger", ["claims.csv", "open_questions.md"], tmp_path, "from tables")
    assert manifest["stages"]["ledger"]["files"] == ["claims.csv", "open_questions.md"]
    assert manifest["files"]["claims.csv"] == "ledger" and manifest["files"]["tables/t.csv"] == "study"
    assert json.loads((out / "manifest.json").read_text()) == manifest


def test_the_reference_ledger_waits_for_every_table(tmp_path):
    from conftest import REPO, SMOKE_CONFIG

    from gatedrnn.reference import load_config, reference_ledger

    (tmp_path / "tables").mkdir()
    config = load_config([str(REPO / "config/config.yaml"), str(SMOKE_CONFIG)])
    assert reference_ledger(tmp_path, config, REPO) is None


def test_a_stage_collected_with_its_projection_records_projected_against_actual_cpu(tmp_path):
    results = fake_run(tmp_path)
    projection = tmp_path / "projected.json"
    # two jobs projected, one of them run (3.19 s of CPU, from the fake benchmark)
    projection.write_text(json.dumps({"default/lstm_w8_s0": 2.9, "default/gru_w8_s0": 4.0}))
    manifest = collect(
        results, tmp_path / "reference", "study", {}, tmp_path / "data/corpus.json", tmp_path,
        projection=projection,
    )  # fmt: skip
    assert manifest["stages"]["study"]["projection"] == {
        "jobs_projected": 2,
        "jobs_run": 1,
        "jobs_resumed": 0,
        "projected_cpu_hours": round(6.9 / 3600, 3),
        "projected_cpu_hours_of_jobs_run": round(2.9 / 3600, 3),
        "actual_cpu_hours_of_jobs_run": round(3.19 / 3600, 3),
        "actual_over_projected": round(3.19 / 2.9, 3),
    }


def test_a_job_resumed_after_a_stop_is_set_against_the_steps_its_benchmark_measured(tmp_path):
    """A session's end stops a training; it resumes from its checkpoint in a new process,
    and Snakemake benchmarks only that one. Its projection is scaled to the steps that
    process trained, and the totals say how many steps went unmeasured."""
    results = fake_run(tmp_path)
    summary = results / "models/default/lstm_w8_s0/summary.json"
    # 40 steps, 10 of them trained by a stopped process; 3.19 s of CPU for the other 30
    summary.write_text(json.dumps({"train_config": {"steps": 40}, "resumed_from_step": 10, "threads": 1}))
    projection = tmp_path / "projected.json"
    projection.write_text(json.dumps({"default/lstm_w8_s0": 4.0}))
    manifest = collect(
        results, tmp_path / "reference", "study", {}, tmp_path / "data/corpus.json", tmp_path,
        projection=projection,
    )  # fmt: skip
    recorded = manifest["stages"]["study"]["projection"]
    assert recorded["jobs_resumed"] == 1 and recorded["projected_cpu_hours"] == round(4.0 / 3600, 3)
    assert recorded["actual_over_projected"] == round(3.19 / (4.0 * 30 / 40), 3)
    assert manifest["totals"]["steps_not_measured"] == 10
    assert manifest["totals"]["cpu_hours_not_measured"] == round(3.19 * 10 / 30 / 3600, 3)
    from gatedrnn.report.provenance import provenance

    assert "- **Not benchmarked**: 10 steps, trained by processes a session's end stopped" in "\n".join(
        provenance(manifest)
    )


@pytest.mark.workflow
def test_completing_the_protocol_from_reference_tables_gives_the_rules_bytes(smoke_run, tmp_path):
    """`python -m gatedrnn.reference confirm` on a run that holds only the confirmation's
    models, with the earlier tables read from a reference, writes the very scoreboard
    and confirmation the checkpoint and rule wrote from the same tables and models."""
    import shutil

    from conftest import REPO, SMOKE_CONFIG

    from gatedrnn.reference import complete_protocol, confirmation_files, load_config

    config = load_config([str(REPO / "config/config.yaml"), str(SMOKE_CONFIG)])
    reference = smoke_run / "results"  # its tables/ stand for reference/tables
    files = [path for paths in confirmation_files(reference, config, REPO).values() for path in paths]
    assert files and all((smoke_run / f).exists() for f in files)
    results = tmp_path / "results"
    for f in files:  # only the confirmation's runs, as a stage on a fresh machine trains them
        (results / Path(f).relative_to("results")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(smoke_run / f, results / Path(f).relative_to("results"))
    written = complete_protocol(reference, results, config, REPO)
    for path in written[:5]:  # scoreboard, distances, confirmation and its regime rows, front
        assert path.read_bytes() == (reference / "tables" / path.name).read_bytes(), path.name
    assert written[5].stat().st_size > 10_000
    with pytest.raises(ValueError, match="missing"):
        complete_protocol(reference, tmp_path / "empty", config, REPO)


def test_the_results_page_names_each_stage_part_with_its_own_machine():
    from gatedrnn.report.provenance import collected, machines, provenance

    manifest = {
        "cpu": "CPU A", "cores": 2, "threads_per_job": 1,
        "stages": {
            "study": {"commit": "a" * 40, "collected": "2026-01-01T00:00:00"},
            "protocol_confirmation": {
                "commit": "c" * 40, "collected": "2026-01-03T00:00:00", "machine": {"cpu": "CPU B"},
                "training_jobs": ["r/m_s0", "r/m_s1"], "retrained": {"r/m_s0": {}},
            },
            "protocol": {"commit": "b" * 40, "collected": "2026-01-02T00:00:00"},
        },
        "totals": {"training_jobs": 3, "retrained_jobs": 1, "cpu_hours": 1.0},
    }  # fmt: skip
    assert collected(manifest, "protocol") == ["protocol", "protocol_confirmation"]
    assert machines(manifest) == ["CPU A", "CPU B"]
    lines = provenance(manifest)
    rows = [line for line in lines if line.startswith("| protocol")]
    assert rows[0].endswith("| CPU A | not recorded |") and rows[1].endswith("| CPU B | 2 (1) |")
    assert any(line.startswith("| questions |") and "not run yet" in line for line in lines)
    assert "1 of them trained again" in lines[-1]


def test_a_stage_collected_in_part_says_so_on_the_pages(tmp_path):
    from gatedrnn.report.provenance import held, provenance

    results = fake_run(tmp_path)
    manifest = collect(results, tmp_path / "reference", "questions", {}, tmp_path / "data/corpus.json",
                       tmp_path, partial=True)  # fmt: skip
    assert manifest["stages"]["questions"]["partial"] is True
    assert held(manifest, "questions") == "the open questions (in part)"
    assert any(
        line.startswith("| questions | the open questions (in part) |") for line in provenance(manifest)
    )


def test_a_stage_made_in_parts_numbers_them_once_the_last_is_in(tmp_path):
    from gatedrnn.report.provenance import held, provenance

    results = fake_run(tmp_path)
    out, corpus = tmp_path / "reference", tmp_path / "data/corpus.json"
    collect(results, out, "questions", {}, corpus, tmp_path, partial=True)
    manifest = collect(results, out, "questions_2", {}, corpus, tmp_path)
    assert held(manifest, "questions") == "the open questions"
    rows = [line for line in provenance(manifest) if line.startswith("| questions")]
    assert [row.split(" | ")[1] for row in rows] == [
        "the open questions, part 1 of 2",
        "the open questions, part 2 of 2",
    ]


def test_a_stage_in_part_names_the_experiments_still_to_come(tmp_path):
    from gatedrnn.report.results_page import SECTIONS, still_to_come

    tables = tmp_path / "tables"
    tables.mkdir()
    for name in ("open_reset_gate.csv", "split_by_width.csv"):  # G1 and G2 are in
        (tables / name).write_text("a\n1\n")
    part = {"stages": {"questions": {"collected": "2026-01-01T00:00:00", "partial": True}}}
    line = " ".join(still_to_come(tmp_path, part, "questions"))
    expected = sorted({s.title.split(":")[0] for s in SECTIONS if s.stage == "questions"} - {"G1", "G2"})
    assert [code for code in expected if f"{code} (" in line] == expected and expected
    assert "G1 (" not in line and "G2 (" not in line
    assert line.count("G3 (") == 1  # two sections, named once
    # a later part, not partial, completes the stage: nothing is said to be missing
    part["stages"]["questions_2"] = {"collected": "2026-01-02T00:00:00"}
    # (a question added after the reference run, G8, is named apart: "Added after ...")
    left = [line for line in still_to_come(tmp_path, part, "questions") if line]
    assert [line for line in left if not line.startswith("Added after the reference run")] == []


def test_tables_of_another_cpu_model_are_kept_with_the_stage_that_retrained_their_models(tmp_path):
    from gatedrnn.reference.another_cpu import collect_another_cpu

    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    with pytest.raises(ValueError, match="trained no model again"):
        collect_another_cpu(results, out, "study", {}, tmp_path, "snakemake t")
    again = fake_run(tmp_path / "later", value="1.6")
    bench = again / "benchmarks" / "train" / "default" / "lstm_w8_s0.tsv"
    bench.write_text(BENCH + "6.0\t0:00:06\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t5.0")
    (again / "tables" / "t.csv").rename(again / "tables" / "t_aside.csv")
    collect(again, out, "questions", {}, tmp_path / "data/corpus.json", tmp_path)
    (again / "tables" / "t_aside.csv").rename(again / "tables" / "t.csv")
    (again / "tables" / "not_in_reference.csv").write_text("a\n1\n")
    manifest = collect_another_cpu(again, out, "questions", {}, tmp_path, "snakemake t")
    kept = out / "another_cpu" / "tables"
    assert sorted(p.name for p in kept.iterdir()) == ["t.csv"]
    assert (kept / "t.csv").read_text() != (out / "tables" / "t.csv").read_text()
    record = manifest["another_cpu"]
    assert record["models_from_stage"] == "questions" and record["tables"] == ["t.csv"]
    assert record["command"] == "snakemake t" and "cpu" in record["machine"]


def _with_weights(results: Path, weights: bytes, cpu: str, flags: tuple = ("avx2", "fma")) -> None:
    """A fake model.pt whose one tensor holds ``weights``, trained on ``cpu``."""
    import torch

    model = results / "models" / "default" / "lstm_w8_s0"
    torch.save({"w": torch.tensor(list(weights), dtype=torch.float32)}, model / "model.pt")
    summary = json.loads((model / "summary.json").read_text())
    summary["numerics"] = {"cpu_isa": "portable", "cpu_model": cpu, "cpu_flags": list(flags)}
    (model / "summary.json").write_text(json.dumps(summary))


@pytest.mark.parametrize(("weights", "identical"), [(b"\x01\x02", True), (b"\x01\x03", False)])
def test_a_retrained_model_is_set_beside_its_first_training_bit_for_bit(tmp_path, weights, identical):
    """Under pinned numerics a stage that retrains an earlier stage's model is a free
    check: the manifest says whether the retraining's weights are the first's, on which
    CPU models, and counts it in the totals."""
    results = fake_run(tmp_path)
    _with_weights(results, b"\x01\x02", "CPU one")
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    again = fake_run(tmp_path / "later")
    _with_weights(again, weights, "CPU two")
    bench = again / "benchmarks" / "train" / "default" / "lstm_w8_s0.tsv"
    bench.write_text(BENCH + "6.0\t0:00:06\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t5.0")
    manifest = collect(again, out, "questions", {}, tmp_path / "data/corpus.json", tmp_path)
    job = manifest["stages"]["questions"]["retrained"]["default/lstm_w8_s0"]
    assert job["same_weights_as_first"] is identical and job["first_cpu"] == "CPU one (avx2 fma)"
    agreement = manifest["totals"]["retrained_same_bits"]
    assert agreement["compared"] == 1
    assert agreement["identical"] == agreement["identical_on_another_cpu"] == int(identical)
    assert agreement["first_differing"] == (None if identical else "default/lstm_w8_s0")


@pytest.mark.parametrize(("cpu", "flags", "another"), [("AMD EPYC", ("avx2", "fma", "avx512f"), 1),
                                                      ("AMD EPYC", ("avx2", "fma"), 0)])  # fmt: skip
def test_a_chip_of_the_same_name_with_other_vector_extensions_is_another_cpu(tmp_path, cpu, flags, another):
    """``/proc/cpuinfo`` names two EPYC generations alike; the kernels tell them apart by
    their vector extensions, and so does the count of retrainings on another CPU."""
    results = fake_run(tmp_path)
    _with_weights(results, b"\x01\x02", "AMD EPYC")
    out = tmp_path / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", tmp_path)
    again = fake_run(tmp_path / "later")
    _with_weights(again, b"\x01\x02", cpu, flags)
    bench = again / "benchmarks" / "train" / "default" / "lstm_w8_s0.tsv"
    bench.write_text(BENCH + "6.0\t0:00:06\t354.96\t716.61\t268.70\t307.28\t0.00\t0.13\t69.78\t5.0")
    manifest = collect(again, out, "questions", {}, tmp_path / "data/corpus.json", tmp_path)
    assert manifest["totals"]["retrained_same_bits"]["identical_on_another_cpu"] == another


def test_collect_refuses_a_checkout_with_uncommitted_changes_and_writes_nothing(tmp_path):
    """A stage collected from a dirty tree would name a commit that cannot rebuild it."""
    import subprocess

    repo = tmp_path / "checkout"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "tracked.txt").write_text("one\n")
    subprocess.run([*git, "add", "tracked.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    results = fake_run(tmp_path)
    out = repo / "reference"
    collect(results, out, "study", {}, tmp_path / "data/corpus.json", repo)  # clean: collected
    subprocess.run([*git, "add", "reference"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "study"], check=True)
    (results / "tables" / "u.csv").write_text("model,seed,loss\nlstm_w8,0,1.6\n")
    # what collect itself changes in the folder it collects into is no uncommitted code
    manifest = collect(results, out, "regimes", {}, tmp_path / "data/corpus.json", repo)
    assert not manifest["stages"]["regimes"]["commit"].endswith("-dirty")
    before = (out / "manifest.json").read_bytes()
    (repo / "tracked.txt").write_text("two\n")
    with pytest.raises(ValueError, match="uncommitted changes"):
        collect(results, out, "questions", {}, tmp_path / "data/corpus.json", repo)
    assert (out / "manifest.json").read_bytes() == before


def test_a_fresh_reference_folder_with_its_readme_alone_takes_a_first_stage(tmp_path, monkeypatch):
    """Starting reference/ afresh keeps its README (the notes); collect fills the rest."""
    from gatedrnn.reference.__main__ import main

    results = fake_run(tmp_path)
    out = tmp_path / "reference"
    out.mkdir()
    (out / "README.md").write_text("# notes\n")
    monkeypatch.chdir(tmp_path)
    assert main(["collect", "--stage", "study", "--results", str(results), "--out", str(out),
                 "--configfile", str(REPO_CONFIG)]) == 0  # fmt: skip
    assert (out / "manifest.json").exists() and (out / "README.md").read_text() == "# notes\n"
    (out / "manifest.json").unlink()
    (out / "stray.csv").write_text("x\n")
    assert main(["collect", "--stage", "study", "--results", str(results), "--out", str(out),
                 "--configfile", str(REPO_CONFIG)]) == 2  # fmt: skip
