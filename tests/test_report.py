"""The HTML report as a reader sees it: built for the smoke run by
`snakemake --report`, opened in headless Chromium, checked after it has rendered.

Snakemake's report is a single-page React app that draws itself from data
embedded in the file, so the checks run on the rendered page (through the
DevTools protocol, tests/headless.py), not on the raw HTML. Screenshots go to
test-artifacts/report.png (the front page) and report_figure.png (a figure).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_snakemake
from headless import CHROMIUM, Browser
from test_claims import counted_summary

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run installs it)",
    ),
]

CATEGORIES = [
    "0. Claims ledger",
    "A. Closed-form tables",
    "B. Gradient reach at initialisation",
    "C. The trained LSTM's gates",
    "D. GRU against LSTM",
    "E. Reach and training dynamics",
]
FIGURE_CATEGORY = "B. Gradient reach at initialisation"
FIGURE = "results/figures/grad_reach_init.png"


@pytest.fixture(scope="module")
def report(smoke_run, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    run_snakemake(smoke_run, "--report", str(path))
    return path


# JavaScript run in the rendered page.
LEDGER_ROWS = "document.querySelectorAll('#app .claims-ledger tr.claim')"
MENU_LABELS = "[...document.querySelectorAll('#app a span')].map(s => s.textContent)"
FIRST_ROW = """(() => {
    const row = document.querySelector('#app .claims-ledger tr.claim');
    const box = row.getBoundingClientRect();
    return {id: row.dataset.claimId, verdict: row.querySelector('.verdict').innerText,
            height: box.height, visible: box.top >= 0 && box.top < window.innerHeight};
})()"""
ROW_OF = "[...document.querySelectorAll('#app tr')].find(r => r.innerText.includes({path}))"
IMAGE = """(() => {
    const img = document.querySelector('#app img[src^="data:image/png"]');
    if (!img || !img.complete || img.naturalWidth === 0) return null;
    const box = img.getBoundingClientRect();
    return {natural: [img.naturalWidth, img.naturalHeight], shown: [box.width, box.height]};
})()"""
CAPTION = (
    "[...document.querySelectorAll('#app p')].map(p => p.innerText).find(t => t.includes('Backs the claims'))"
)


def click_text(browser: Browser, selector: str, text: str) -> None:
    """Click the first element matching ``selector`` whose text is ``text`` (as a person would)."""
    found = browser.evaluate(
        f"""(() => {{
            const el = [...document.querySelectorAll({json.dumps(selector)})]
                .find(e => e.textContent.trim() === {json.dumps(text)});
            if (!el) return false;
            el.click();
            return true;
        }})()"""
    )
    assert found, f"no {selector} reading {text!r} on the page"


def test_report_renders_ledger_categories_and_a_figure(smoke_run, report, artifacts_dir):
    started = time.monotonic()
    ledger = pd.read_csv(smoke_run / "results" / "claims.csv")
    row_of_figure = ROW_OF.format(path=json.dumps(FIGURE))
    with Browser() as browser:
        browser.open(report.as_uri())
        # The app has drawn the front page once the ledger's rows are in the document.
        assert browser.wait_for(f"{LEDGER_ROWS}.length", timeout=60) == len(ledger)

        # The categories a reader browses, the ledger's first.
        menu = browser.evaluate(MENU_LABELS)
        assert [label for label in menu if label[:2] in {"0.", "A.", "B.", "C.", "D.", "E."}] == CATEGORIES

        # The ledger is what the front page shows first: its summary, then its rows, on screen.
        summary = browser.evaluate("document.querySelector('#app .claims-ledger .summary').innerText")
        assert summary == counted_summary(ledger.fillna(""))
        first = browser.evaluate(FIRST_ROW)
        assert first["id"] == ledger["id"].iloc[0] and first["verdict"] == ledger["verdict"].iloc[0]
        assert first["height"] > 0 and first["visible"], first
        assert browser.evaluate(f"[...{LEDGER_ROWS}].map(r => r.dataset.claimId)") == list(ledger["id"])
        browser.screenshot(artifacts_dir / "report.png")

        # A figure: open its category, press its view button, wait for the image.
        click_text(browser, "#app a", FIGURE_CATEGORY)
        browser.wait_for(f"Boolean({row_of_figure})")
        browser.evaluate(f"{row_of_figure}.querySelector('a').click()")
        size = browser.wait_for(IMAGE, timeout=30)
        assert min(size["natural"]) > 100 and min(size["shown"]) > 100, size
        browser.screenshot(artifacts_dir / "report_figure.png")

        # Its caption says which claims it backs (the result's info button).
        browser.evaluate(f"{row_of_figure}.querySelectorAll('a')[1].click()")
        assert "B1.finding" in browser.wait_for(CAPTION)
        assert not browser.exceptions, browser.exceptions
    (artifacts_dir / "report_test.txt").write_text(
        f"report {report} rendered and checked in {time.monotonic() - started:.1f} s\n"
    )
