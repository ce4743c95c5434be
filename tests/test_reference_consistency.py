"""The committed reference run (reference/) against the code: the ledger is what the
ledger code gives on reference/'s tables, the generated pages are what the renderer
gives, and the manifest accounts for every file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

from gatedrnn.reference import load_config, page_ledger, reference_ledger, reference_scoreboard
from gatedrnn.report.protocol_page import PROTOCOL_BEGIN, PROTOCOL_END, render_protocol_section
from gatedrnn.report.results_page import (
    README_BEGIN,
    README_END,
    render_readme_summary,
    render_results_page,
)

REFERENCE = REPO / "reference"
MANIFEST = REFERENCE / "manifest.json"


def _ledger():
    return page_ledger(REFERENCE, load_config([str(REPO / "config/config.yaml")]), REPO)


def test_the_results_page_is_rendered_from_the_reference():
    page = (REPO / "docs/results.md").read_text()
    assert page == render_results_page(REFERENCE, REPO, _ledger()), "run `python -m gatedrnn.reference pages`"


def test_the_readme_summary_is_rendered_from_the_reference():
    readme = (REPO / "README.md").read_text()
    block = README_BEGIN + readme.split(README_BEGIN, 1)[1].split(README_END, 1)[0] + README_END
    assert block == render_readme_summary(REFERENCE, _ledger()), "run `python -m gatedrnn.reference pages`"


def test_the_results_page_shows_every_figure_and_the_study_beside_each_claim_table():
    """Every figure of reference/ inline, and every table the ledger reads from with a
    published column beside ours (a row per claim, its verdict)."""
    ledger = _ledger()
    page = (REPO / "docs/results.md").read_text()
    for figure in sorted((REFERENCE / "figures").glob("*.png")):
        assert f"](../reference/figures/{figure.name})" in page, figure.name
    if ledger is None:
        return
    for table in sorted({Path(t).name for t in ledger["table"]}):
        if (REFERENCE / "tables" / table).exists():
            section = page.split(f"(`reference/tables/{table}`)", 1)
            assert len(section) == 2, f"{table} has no section on the page"
            header = "| quantity | published | ours | over seeds | margin | verdict |"
            assert header in section[1].split("\n### ", 1)[0], table


def test_the_scoreboard_pages_protocol_section_is_rendered_from_the_reference():
    """The generated protocol section lives on docs/protocol-scoreboard.md (issue 52: the
    README is a front door), written there by ``python -m gatedrnn.reference pages``."""
    page = (REPO / "docs/protocol-scoreboard.md").read_text()
    assert PROTOCOL_BEGIN not in (REPO / "README.md").read_text()
    block = page.split(PROTOCOL_BEGIN, 1)[1].split(PROTOCOL_END, 1)[0]
    assert block == "\n" + render_protocol_section(REFERENCE, REPO), (
        "run `python -m gatedrnn.reference pages`"
    )


@pytest.mark.skipif(
    not (REFERENCE / "tables/protocol_scoreboard.csv").exists(), reason="the reference has no scoreboard yet"
)
def test_the_committed_scoreboard_is_what_the_scoreboard_code_gives_on_the_committed_tables():
    import pandas as pd

    config = load_config([str(REPO / "config/config.yaml")])
    board = reference_scoreboard(REFERENCE, config, REPO)
    assert board is not None, "reference/tables/protocol_scoreboard.csv exists but a table it reads does not"
    committed = pd.read_csv(REFERENCE / "tables/protocol_scoreboard.csv")
    pd.testing.assert_frame_equal(committed, board, check_dtype=False)


def test_the_another_cpu_section_is_rendered_from_the_kept_tables():
    from gatedrnn.reference.another_cpu import BEGIN, END, render_another_cpu_section

    notes = (REFERENCE / "README.md").read_text()
    block = BEGIN + notes.split(BEGIN, 1)[1].split(END, 1)[0] + END
    config = load_config([str(REPO / "config/config.yaml")])
    assert block == render_another_cpu_section(REFERENCE, config, REPO), (
        "run `python -m gatedrnn.reference pages`"
    )


@pytest.mark.skipif(not (REFERENCE / "claims.csv").exists(), reason="the reference has no ledger yet")
def test_the_committed_ledger_is_what_the_ledger_code_gives_on_the_committed_tables(tmp_path):
    from gatedrnn.reference import write_ledger

    config = load_config([str(REPO / "config/config.yaml")])
    ledger = reference_ledger(REFERENCE, config, REPO)
    assert ledger is not None, "reference/claims.csv exists but a table it reads does not"
    write_ledger(ledger, tmp_path)
    for name in ("claims.csv", "claims.md", "claims.html"):
        assert (tmp_path / name).read_bytes() == (REFERENCE / name).read_bytes(), name


@pytest.mark.skipif(not MANIFEST.exists(), reason="no stage of the reference run is committed yet")
def test_the_manifest_accounts_for_every_file_and_how_it_was_made():
    manifest = json.loads(MANIFEST.read_text())
    listed = {f for stage in manifest["stages"].values() for f in stage["files"]}
    kept = manifest.get("another_cpu", {})  # another CPU model's tables, with their own record
    listed |= {f"another_cpu/tables/{name}" for name in kept.get("tables", [])}
    present = {
        p.relative_to(REFERENCE).as_posix()
        for p in REFERENCE.rglob("*")
        if p.is_file() and p.name not in ("README.md", "manifest.json")
    }
    assert listed == present
    for key in ("config", "corpus", "python", "torch", "cpu", "threads_per_job", "training_jobs", "totals"):
        assert manifest.get(key), key
    for stage in manifest["stages"].values():
        assert len(stage["commit"]) >= 40
    for job in manifest["training_jobs"].values():
        assert job["wall_s"] > 0 and job["cpu_s"] > 0
    size = sum(p.stat().st_size for p in REFERENCE.rglob("*") if p.is_file())
    assert size < 25 * 2**20, f"reference/ is {size / 2**20:.1f} MiB; keep it under 25"


@pytest.mark.skipif(
    not (REFERENCE / "open_questions.md").exists(), reason="the reference has no open questions yet"
)
def test_the_committed_answers_are_what_the_report_code_gives_on_the_committed_tables():
    from gatedrnn.reference import reference_open_questions

    config = load_config([str(REPO / "config/config.yaml")])
    answers = reference_open_questions(REFERENCE, config)
    assert answers is not None, "reference/open_questions.md exists but a question's table does not"
    assert (REFERENCE / "open_questions.md").read_text() == answers


@pytest.mark.skipif(
    not (REFERENCE / "tables/protocol_confirmation.csv").exists(),
    reason="the reference has no confirmation yet",
)
def test_the_committed_confirmation_rescores_the_committed_regime_rows():
    """The confirmation's scoreboard is what the scoreboard code gives on its own
    regime rows (protocol_confirmation_regimes.csv) and the committed claim tables."""
    import pandas as pd

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.scoreboard import regime_verdicts, scoreboard
    from gatedrnn.plan import Plan
    from gatedrnn.plan.published import regime_view_tables

    config = load_config([str(REPO / "config/config.yaml")])
    published = REPO / "workflow/resources/published.yaml"
    regimes = pd.read_csv(REFERENCE / "tables/protocol_confirmation_regimes.csv")
    tables = {p: pd.read_csv(REFERENCE / "tables" / Path(p).name) for p in regime_view_tables(str(published))}
    verdicts = regime_verdicts(load_claims(published), tables, Plan.from_config(config).claim_models, regimes)
    committed = pd.read_csv(REFERENCE / "tables/protocol_confirmation.csv")
    pd.testing.assert_frame_equal(committed, scoreboard(verdicts, regimes), check_dtype=False)
