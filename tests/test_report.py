"""The HTML report as a reader sees it: built for the smoke run by
`snakemake --report`, opened in headless Chromium, checked after it has rendered.

Snakemake's report is a single-page React app that draws itself from data
embedded in the file, so the checks run on the rendered page (driven by
Playwright, on Debian's Chromium), not on the raw HTML. Screenshots go to
test-artifacts/report.png (the front page), report_figure.png (a figure) and
report_<width>.png (the front page at each ordinary width, and its ledger rows).
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import copy_of_smoke_run, run_snakemake
from playwright.sync_api import Page, sync_playwright
from test_claims import counted_summary

CHROMIUM = "/usr/bin/chromium"

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
FAMILY_PREFIXES = {category[:2] for category in CATEGORIES}  # "0.", "A.", ...
FIGURE_CATEGORY = "B. Gradient reach at initialisation"
FIGURE = "results/figures/grad_reach_init.png"
VIEWPORT = {"width": 1400, "height": 1000}
# Ordinary laptop and desktop widths: the left menu must cover nothing at either.
WIDTHS = (1280, 1400)
# The visible text elements another element paints over (tests/report_covered.js).
COVERED = (Path(__file__).parent / "report_covered.js").read_text()

LEDGER_ROWS = "#app .claims-ledger tr.claim"
IMAGE = '#app img[src^="data:image/png"]'


@pytest.fixture(scope="module")
def report(smoke_run, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    path = folder / "report.html"
    # Snakemake writes .snakemake/ as it reports: in a copy of the session's shared run (conftest)
    run_snakemake(copy_of_smoke_run(smoke_run, folder / "run"), "--report", str(path))
    return path


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless (Playwright's own browser builds are not used)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--disable-dev-shm-usage"])
        yield browser
        browser.close()


@pytest.fixture
def page_errors() -> list[str]:
    """The uncaught JavaScript errors of the test's page."""
    return []


def open_report(browser, report, page_errors, viewport=VIEWPORT) -> Page:
    """The report, opened and drawn (its ledger rows are in the document)."""
    page = browser.new_page(viewport=viewport, device_scale_factor=1)
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    page.set_default_timeout(30_000)
    page.goto(report.as_uri())
    page.locator(LEDGER_ROWS).first.wait_for(state="attached", timeout=60_000)
    return page


@pytest.fixture
def page(browser, report, page_errors):
    page = open_report(browser, report, page_errors)
    yield page
    page.close()


def left_menu(page: Page):
    """The report's left menu (its first navigation block)."""
    return page.locator("#app nav").first


def test_report_renders_ledger_categories_and_a_figure(smoke_run, report, page, page_errors, artifacts_dir):
    started = time.monotonic()
    ledger = pd.read_csv(smoke_run / "results" / "claims.csv")
    # The app has drawn the front page once the ledger's rows are in the document.
    rows = page.locator(LEDGER_ROWS)
    assert rows.count() == len(ledger)

    # The categories a reader browses, the ledger's first.
    menu = page.locator("#app a span").all_text_contents()
    assert [label for label in menu if label[:2] in FAMILY_PREFIXES] == CATEGORIES

    # The front page shows the reading guide, then the ledger: its summary, then its rows.
    summary = page.locator("#app .claims-ledger .summary").inner_text()
    assert summary == counted_summary(ledger.fillna(""))
    first = rows.first
    box = first.bounding_box()
    assert first.get_attribute("data-claim-id") == ledger["id"].iloc[0]
    assert first.locator(".verdict").inner_text() == ledger["verdict"].iloc[0]
    # below the reading guide and the counts: within the first two screens
    assert box["height"] > 0 and 0 <= box["y"] < 2 * VIEWPORT["height"], box
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.claimId)") == list(ledger["id"])
    page.screenshot(path=artifacts_dir / "report.png")

    # A figure: open its category, press its view button, wait for the image.
    page.locator("#app").get_by_role("link", name=FIGURE_CATEGORY, exact=True).click()
    row_of_figure = page.locator("#app tr", has_text=FIGURE).first
    row_of_figure.locator("a").first.click()
    image = page.locator(IMAGE).first
    natural = image.evaluate("img => img.decode().then(() => [img.naturalWidth, img.naturalHeight])")
    shown = image.bounding_box()
    assert min(natural) > 100 and min(shown["width"], shown["height"]) > 100, (natural, shown)
    page.screenshot(path=artifacts_dir / "report_figure.png")

    # Its caption says which claims it backs (the result's info button).
    row_of_figure.locator("a").nth(1).click()
    caption = page.locator("#app p", has_text="Backs the claims").first
    assert "B1.finding" in caption.inner_text()
    assert not page_errors, page_errors
    (artifacts_dir / "report_test.txt").write_text(
        f"report {report} rendered and checked in {time.monotonic() - started:.1f} s\n"
    )


def test_report_menu_lists_the_families_and_opens_one(smoke_run, page, page_errors):
    """The left menu lists the experiment families in the spec's order; clicking one
    lists its results there (each a file the run made), the family's figure among them."""
    menu = left_menu(page)
    links = menu.get_by_role("link").all_inner_texts()
    assert [label for label in links if label[:2] in FAMILY_PREFIXES] == CATEGORIES
    for family in CATEGORIES:
        assert menu.get_by_role("link", name=family, exact=True).is_visible(), family

    menu.get_by_role("link", name=FIGURE_CATEGORY, exact=True).click()
    files = menu.locator("table tbody tr td:first-child")
    files.first.wait_for()
    assert menu.locator("nav").inner_text().splitlines() == ["Results", FIGURE_CATEGORY]  # breadcrumb
    listed = [name.strip() for name in files.all_inner_texts()]
    assert FIGURE in listed, listed
    assert all((smoke_run / name).is_file() for name in listed), listed
    assert menu.get_by_role("row").filter(has_text=FIGURE).is_visible()
    assert not page_errors, page_errors


@pytest.mark.parametrize("width", WIDTHS)
def test_report_reads_at_an_ordinary_width(browser, report, page_errors, artifacts_dir, width):
    """At 1280 and 1400 px nothing covers the title, the reading guide or the ledger's
    claim ids (the menu beside them least of all), and the guide comes before the ledger."""
    page = open_report(browser, report, page_errors, {"width": width, "height": 1000})
    try:
        title = page.locator("#app h1", has_text="Gated recurrent cells taken apart")
        guide = page.locator("#app h1", has_text="How to read this report")
        ledger = page.locator("#app .claims-ledger")
        assert title.bounding_box()["x"] >= left_menu(page).bounding_box()["width"]
        assert guide.bounding_box()["y"] < ledger.bounding_box()["y"] < 2 * 1000  # within two screens
        assert page.evaluate(COVERED) == []
        page.screenshot(path=artifacts_dir / f"report_{width}.png")

        rows = page.locator(LEDGER_ROWS)
        rows.nth(20).scroll_into_view_if_needed()
        first_id = rows.nth(20).locator("td").first
        assert first_id.bounding_box()["x"] >= left_menu(page).bounding_box()["width"]
        assert page.evaluate(COVERED) == []
        page.screenshot(path=artifacts_dir / f"report_{width}_ledger.png")
        assert not page_errors, page_errors
    finally:
        page.close()
