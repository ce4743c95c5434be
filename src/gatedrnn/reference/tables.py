"""What is computed from ``reference/``'s own tables rather than from a run: the
claims ledger, the scoreboard of regimes, and the scoreboard's confirmation on a
run that trained only the confirmation's models."""

from __future__ import annotations

from pathlib import Path


def reference_ledger(
    reference: Path, config: dict, workflow: Path, overlay: Path | None = None, partial: bool = False
):
    """The claims ledger of ``reference/``'s tables: the same claims and the same
    :func:`gatedrnn.claims.build_ledger` as the ``claims`` rule, each table the rule
    reads (``results/tables/x.csv``) read from ``reference/tables/x.csv`` instead, or
    from ``overlay/x.csv`` where the overlay directory has it (another run's tables
    in place of the reference's). None while a table it needs is not in the
    reference yet (a stage to come); with ``partial``, the claims whose tables are in
    (None if there are none), for the results page of a run still being made. A
    question newer than the reference run (:func:`answered_questions`) is left out."""
    import dataclasses

    import pandas as pd

    from gatedrnn.claims import build_ledger, claim_tables, ledger_claims, regime_tables
    from gatedrnn.plan import Plan

    def locate(path: str) -> Path:
        name = Path(path).name
        if overlay is not None and (overlay / name).exists():
            return overlay / name
        return reference / "tables" / name

    plan = Plan.from_config(config)
    resources = workflow / "workflow/resources"
    claims = ledger_claims(
        resources / "published.yaml",
        resources / "new_findings.yaml",
        enabled=answered_questions(reference, plan),
        known=list(config["open_questions"]),
    )
    regimes = regime_tables(claims) if plan.sweep_points else []
    if partial:
        claims = [c for c in claims if all(locate(path).exists() for path in claim_tables([c]))]
        kept = {c.id for c in claims}
        # a value whose finding is still to come is reported without it
        claims = [c if c.finding in (None, *kept) else dataclasses.replace(c, finding=None) for c in claims]
        regimes = [path for path in regimes if locate(path).exists()]
        if not claims:
            return None
    needed = claim_tables(claims)
    located = {path: locate(path) for path in [*needed, *regimes]}
    if not all(p.exists() for p in located.values()):
        return None
    tables = {path: pd.read_csv(located[path]) for path in needed}
    regime_table = pd.read_csv(located[regimes[0]]) if regimes else None
    return build_ledger(claims, tables, plan.claim_models, regime_table)


def page_ledger(reference: Path, config: dict, workflow: Path):
    """The ledger the results page shows: ``reference/claims.csv`` once every stage is
    in, else the partial ledger of the stages collected so far (as its CSV reads back)."""
    import io

    import pandas as pd

    committed = reference / "claims.csv"
    if committed.exists():
        return pd.read_csv(committed, keep_default_na=False)
    ledger = reference_ledger(reference, config, workflow, partial=True)
    if ledger is None:
        return None
    return pd.read_csv(io.StringIO(ledger.to_csv(index=False)), keep_default_na=False)


def reference_open_questions(reference: Path, config: dict) -> str | None:
    """``open_questions.md`` of ``reference/``'s question tables: the rule
    ``open_questions_report``'s text (:func:`gatedrnn.questions.report.open_questions_report`)
    on the committed tables. None while a question's table is not in yet (but a
    question newer than the reference run, :func:`answered_questions`)."""
    import pandas as pd

    from gatedrnn.plan import Plan
    from gatedrnn.plan.paths import OPEN_QUESTION_TABLES
    from gatedrnn.questions.report import open_questions_report

    plan = Plan.from_config(config)
    answered = answered_questions(reference, plan)
    located = [
        reference / "tables" / Path(OPEN_QUESTION_TABLES[q]).name
        for q in plan.enabled_questions
        if q in answered
    ]
    if not located or not all(p.exists() for p in located):
        return None
    return open_questions_report(
        {p.stem: pd.read_csv(p) for p in located}, f"{reference.resolve().name}/tables"
    )


def answered_questions(reference: Path, plan) -> list[str]:
    """The enabled questions but those newer than the reference run: a question the
    config the run was made with (``reference/manifest.json``) does not know (e.g. G7,
    added after the run) is left out of what is judged on the reference's tables."""
    import json

    manifest = reference / "manifest.json"
    if not manifest.exists():
        return plan.enabled_questions
    known = json.loads(manifest.read_text())["config"]["open_questions"]
    return [question for question in plan.enabled_questions if question in known]


def reference_scoreboard(reference: Path, config: dict, workflow: Path):
    """The scoreboard of regimes of ``reference/``'s tables: the regime tables and the
    claims' own tables, judged by :mod:`gatedrnn.claims.scoreboard` exactly as the
    ``protocol_scoreboard`` checkpoint does. None while a table is missing."""
    import pandas as pd

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.scoreboard import regime_frame, regime_verdicts, scoreboard
    from gatedrnn.plan import CORPUS_SIZE, REGIME_SENSITIVITY, Plan
    from gatedrnn.plan.published import regime_view_tables

    plan = Plan.from_config(config)
    published = workflow / "workflow/resources/published.yaml"
    regime_paths = ([REGIME_SENSITIVITY] if plan.sweep_points else []) + [CORPUS_SIZE]
    needed = regime_view_tables(str(published))
    located = {path: reference / "tables" / Path(path).name for path in [*needed, *regime_paths]}
    if not all(p.exists() for p in located.values()):
        return None
    regimes = regime_frame(*(pd.read_csv(located[path]) for path in regime_paths))
    tables = {path: pd.read_csv(located[path]) for path in needed}
    verdicts = regime_verdicts(load_claims(published), tables, plan.claim_models, regimes)
    return scoreboard(verdicts, regimes)


CONFIRMATION_FILES = ("summary.json", "history.csv", "gates")


def reference_answer(reference: Path, config: dict, workflow: Path, ledger: bool = False) -> str:
    """The protocol's answer in words from ``reference/``'s tables
    (:func:`gatedrnn.report.protocol_answer.render_answer`)."""
    import pandas as pd

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.front import with_confirmation
    from gatedrnn.plan import Plan
    from gatedrnn.plan.published import regime_view_tables
    from gatedrnn.report.protocol_answer import AnswerInputs, render_answer

    published = workflow / "workflow/resources/published.yaml"
    front = reference_front(reference, config, workflow)
    if front is None:
        return render_answer(None)
    tables = {p: pd.read_csv(reference / "tables" / Path(p).name) for p in regime_view_tables(str(published))}
    again = reference / "tables" / "protocol_confirmation_regimes.csv"
    regimes = with_confirmation(
        reference_regimes(reference, config), pd.read_csv(again) if again.exists() else None
    )
    both = reference_both_rounds(reference, config)
    names, confirm_seeds = Plan.from_config(config).claim_models, len(config["protocol"]["confirm"]["seeds"])
    if both is not None:  # round two's front, once its confirmation is in the reference
        front, regimes = both
        # confirmed against this config's confirmation, as round one's front is recomputed
        front = front.assign(confirmed=front["seeds"] >= confirm_seeds)
    inputs = AnswerInputs(front, load_claims(published), tables, names, regimes, confirm_seeds)
    return render_answer(inputs, ledger)


def reference_both_rounds(reference: Path, config: dict):
    """Round two's front over both rounds (``protocol_round_two_front.csv``, the rule
    ``protocol_round_two_confirmation``'s) and the regime rows it measured: round
    one's, then round two's, each confirmed regime's rows (either round's
    confirmation, the later taking a regime in both) in place of its first; None
    while ``reference/`` lacks one of round two's tables."""
    import pandas as pd

    from gatedrnn.claims.front import later_confirmation, with_confirmation
    from gatedrnn.plan.paths import (
        PROTOCOL_CONFIRMATION_REGIMES,
        PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES,
        PROTOCOL_ROUND_TWO_FRONT,
        PROTOCOL_ROUND_TWO_REGIMES,
    )

    def located(path: str) -> Path:
        return reference / "tables" / Path(path).name

    regimes = reference_regimes(reference, config)  # round one's
    round_two = (PROTOCOL_ROUND_TWO_FRONT, PROTOCOL_ROUND_TWO_REGIMES)
    needed = [
        located(p)
        for p in (*round_two, PROTOCOL_CONFIRMATION_REGIMES, PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES)
    ]
    if regimes is None or not all(p.exists() for p in needed):
        return None
    front, second, confirmed, again = (pd.read_csv(p) for p in needed)
    regimes = pd.concat([regimes, second.reindex(columns=regimes.columns)], ignore_index=True)
    return front, with_confirmation(regimes, later_confirmation(confirmed, again))


def reference_regimes(reference: Path, config: dict):
    """The regime tables of ``reference/`` as one (:func:`gatedrnn.claims.scoreboard.regime_frame`),
    or None while one is missing."""
    import pandas as pd

    from gatedrnn.claims.scoreboard import regime_frame
    from gatedrnn.plan import CORPUS_SIZE, REGIME_SENSITIVITY, Plan

    plan = Plan.from_config(config)
    paths = [reference / "tables" / Path(p).name for p in ([REGIME_SENSITIVITY] if plan.sweep_points else [])]
    paths.append(reference / "tables" / Path(CORPUS_SIZE).name)
    if not all(p.exists() for p in paths):
        return None
    return regime_frame(*(pd.read_csv(p) for p in paths))


def reference_front(reference: Path, config: dict, workflow: Path, confirmed: bool = True):
    """The loss and gate distances of ``reference/``'s regimes with their front
    (:func:`gatedrnn.claims.front.protocol_front`), the confirmation's regime rows
    (more seeds) in place of their first where ``confirmed`` and committed; None while
    a table is missing."""
    import pandas as pd

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.front import protocol_front
    from gatedrnn.plan import Plan
    from gatedrnn.plan.published import regime_view_tables

    regimes = reference_regimes(reference, config)
    published = workflow / "workflow/resources/published.yaml"
    located = {path: reference / "tables" / Path(path).name for path in regime_view_tables(str(published))}
    if regimes is None or not all(p.exists() for p in located.values()):
        return None
    tables = {path: pd.read_csv(p) for path, p in located.items()}
    again = reference / "tables" / "protocol_confirmation_regimes.csv"
    rows = pd.read_csv(again) if confirmed and again.exists() else None
    names, confirm_seeds = Plan.from_config(config).claim_models, len(config["protocol"]["confirm"]["seeds"])
    return protocol_front(regimes, load_claims(published), tables, names, rows, confirm_seeds=confirm_seeds)


def confirmation_files(reference: Path, config: dict, workflow: Path) -> dict[str, list[str]]:
    """What the confirmation trains, as Snakemake targets: each run's
    ``summary.json``, ``history.csv`` and probe gates, by kind (the regimes on the
    distance front and near it, read from ``reference/``'s regime tables' first seeds)."""
    from gatedrnn.claims.front import regimes_to_confirm
    from gatedrnn.plan import Plan
    from gatedrnn.plan.paths import run_files

    distances = reference_front(reference, config, workflow, confirmed=False)
    if distances is None:
        raise ValueError(
            "the reference lacks tables the scoreboard reads: collect stages regimes and protocol"
        )
    runs = Plan.from_config(config).confirmation_runs(regimes_to_confirm(distances))
    return {name: run_files(runs, name) for name in CONFIRMATION_FILES}


def complete_protocol(reference: Path, results: Path, config: dict, workflow: Path) -> list[Path]:
    """The protocol stage's last outputs for a run whose ``results/`` lacks the earlier
    stages' models: the scoreboard of ``reference/``'s tables, its confirmation on
    the runs ``results`` trained (:func:`confirmation_files`) and the figure, written
    into ``results`` by the functions and in the order of the rules
    ``protocol_scoreboard``, ``protocol_confirmation`` and ``protocol_scoreboard_figure``."""
    import pandas as pd

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.front import protocol_front, regimes_to_confirm
    from gatedrnn.claims.scoreboard import confirmation
    from gatedrnn.plan import PROTOCOL_CONFIRMATION, PROTOCOL_FIGURE, PROTOCOL_SCOREBOARD, Plan
    from gatedrnn.plan.paths import PROTOCOL_DISTANCE, PROTOCOL_FRONT
    from gatedrnn.plan.published import regime_view_tables
    from gatedrnn.report.protocol import plot_front
    from gatedrnn.tables.regime_sweep import load_runs, seed_row

    def located(path: str) -> Path:  # results/x -> <results>/x
        return results / Path(path).relative_to("results")

    by_kind = confirmation_files(reference, config, workflow)
    files = [path for paths in by_kind.values() for path in paths]
    missing = [f for f in files if not located(f).exists()]
    if missing:
        raise ValueError(
            f"{len(missing)} of the confirmation's {len(files)} files are missing, e.g. {missing[0]}: "
            "train them first (python -m gatedrnn.reference confirm --targets lists them for snakemake)"
        )
    plan = Plan.from_config(config)
    published = workflow / "workflow/resources/published.yaml"
    board_path, table_path, figure_path, distance_path, front_path = map(
        located,
        (PROTOCOL_SCOREBOARD, PROTOCOL_CONFIRMATION, PROTOCOL_FIGURE, PROTOCOL_DISTANCE, PROTOCOL_FRONT),
    )
    regimes_path = table_path.with_name("protocol_confirmation_regimes.csv")
    board_path.parent.mkdir(parents=True, exist_ok=True)
    figure_path.parent.mkdir(parents=True, exist_ok=True)
    reference_scoreboard(reference, config, workflow).to_csv(board_path, index=False)
    reference_front(reference, config, workflow, confirmed=False).to_csv(distance_path, index=False)
    runs = load_runs(*(map(located, by_kind[name]) for name in CONFIRMATION_FILES))
    rows = [seed_row(run) for run in runs]
    tables = {
        path: pd.read_csv(reference / "tables" / Path(path).name)
        for path in regime_view_tables(str(published))
    }
    points = [*plan.sweep_points, *plan.corpus_size_points]
    claims = load_claims(published)
    chosen = regimes_to_confirm(pd.read_csv(distance_path))
    table, regimes = confirmation(chosen, points, rows, claims, tables, plan.claim_models)
    regimes.to_csv(regimes_path, index=False)
    table.to_csv(table_path, index=False)
    first = reference_regimes(reference, config)
    confirm_seeds = len(config["protocol"]["confirm"]["seeds"])
    front = protocol_front(first, claims, tables, plan.claim_models, regimes, confirm_seeds=confirm_seeds)
    front.to_csv(front_path, index=False)
    plot_front(pd.read_csv(front_path), figure_path)
    return [board_path, distance_path, table_path, regimes_path, front_path, figure_path]


def render_ledger(ledger, out: Path) -> dict[Path, str]:
    """``claims.{csv,md,html}`` under ``out``, path -> text, for the caller to write whole."""
    from gatedrnn.claims import render_html, render_markdown

    return {out / "claims.csv": ledger.to_csv(index=False), out / "claims.md": render_markdown(ledger),
            out / "claims.html": render_html(ledger)}  # fmt: skip


def write_ledger(ledger, out: Path) -> None:
    for path, text in render_ledger(ledger, out).items():
        path.write_text(text)


def load_config(files: list[str]) -> dict:
    import yaml
    from snakemake.utils import update_config

    config: dict = {}
    for path in files:
        update_config(config, yaml.safe_load(Path(path).read_text()))
    return config
