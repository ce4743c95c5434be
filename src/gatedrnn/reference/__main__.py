"""``python -m gatedrnn.reference``: collect, restore, ledger, scoreboard, confirm, collect-another-cpu,
pages, changes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from gatedrnn.io.files import atomic_write_bytes
from gatedrnn.plan.checks import non_finite_numbers
from gatedrnn.reference import __doc__ as PACKAGE_DOC
from gatedrnn.reference import another_cpu, manifest, restore, tables


class BadArgument(ValueError):
    """An argument that names no file of the kind its command reads: refused before any write."""


def _directory(flag: str, value: str, holds: tuple[str, ...] = ()) -> Path:
    path = Path(value)
    if not path.is_dir():
        kind = "is a file" if path.exists() else "does not exist"
        raise BadArgument(f"{flag} {value}: {kind}; it must be a directory")
    lacking = [name for name in holds if not (path / name).exists()]
    if lacking:
        raise BadArgument(f"{flag} {value}: has no {', '.join(lacking)}; is it the right directory?")
    return path


def _file(flag: str, value: str) -> Path:
    path = Path(value)
    if not path.is_file():
        kind = "is a directory" if path.is_dir() else "does not exist"
        raise BadArgument(f"{flag} {value}: {kind}; it must be a file")
    return path


def _json_file(flag: str, value: str) -> Path:
    path = _file(flag, value)
    try:
        json.loads(path.read_text())
    except ValueError as err:
        raise BadArgument(f"{flag} {value}: not JSON ({err})") from err
    return path


def _new_file(flag: str, value: str) -> Path:
    """A file the command writes whole: an existing file, or a new one in an existing directory."""
    path = Path(value)
    if path.is_dir() or not path.parent.is_dir():
        kind = "is a directory" if path.is_dir() else f"is in {path.parent}, which does not exist"
        raise BadArgument(f"{flag} {value}: {kind}; it must be a file")
    return path


def _config(files: list[str]) -> dict:
    for value in files:
        _file("--configfile", value)
        try:
            content = yaml.safe_load(Path(value).read_text())
        except yaml.YAMLError as err:
            raise BadArgument(f"--configfile {value}: not YAML ({err})") from err
        if not isinstance(content, dict):
            raise BadArgument(f"--configfile {value}: not a mapping of config keys")
    config = tables.load_config(files)
    problems = non_finite_numbers(config)
    if problems:
        raise BadArgument(f"--configfile {' '.join(files)}: {'; '.join(problems)}: not a finite number")
    return config


REFERENCE_HOLDS = (manifest.MANIFEST, "tables")


def _complete_reference(flag: str, value: str, holds: tuple[str, ...] = REFERENCE_HOLDS) -> Path:
    """A reference folder holding every file its manifest.json lists (a copy that lost
    tables would render pages with whole sections gone)."""
    path = _directory(flag, value, holds)
    try:
        listed = json.loads((path / manifest.MANIFEST).read_text()).get("files", {})
    except ValueError as err:
        raise BadArgument(f"{flag} {value}: its {manifest.MANIFEST} is not JSON ({err})") from err
    lacking = sorted(name for name in listed if not (path / name).is_file())
    if lacking:
        shown = ", ".join(lacking[:5]) + (f" and {len(lacking) - 5} more" if len(lacking) > 5 else "")
        raise BadArgument(
            f"{flag} {value}: lacks {len(lacking)} of the files its {manifest.MANIFEST} lists ({shown}); "
            "copy the whole folder (git checkout -- reference/) or collect those stages again"
        )
    return path


def write_whole(files: dict[Path, str]) -> None:
    """Every file rendered before any is written, each written atomically."""
    for path, text in files.items():
        atomic_write_bytes(path, text.encode())


def main(argv: list[str] | None = None) -> int:
    try:
        return run(argv)
    except BadArgument as err:
        print(f"ERROR: {err}; nothing written", file=sys.stderr)
        return 2


def run(argv: list[str] | None = None) -> int:
    summary = PACKAGE_DOC.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.reference", description=summary)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="copy a finished stage's outputs into reference/")
    c.add_argument("--stage", required=True, help="study | regimes | questions | ledger (any name)")
    c.add_argument("--results", default="results")
    c.add_argument("--out", default=str(manifest.REFERENCE))
    c.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    c.add_argument("--provenance", default="data/corpus.json")
    c.add_argument("--note", default="", help="how the stage was run, where that is not plain")
    c.add_argument("--partial", action="store_true", help="some of the stage's targets are still to come")
    c.add_argument(
        "--remade",
        action="store_true",
        help="the run made earlier stages' analyses again after their code changed: files that "
        "differ from the collected ones replace them, and the manifest records which",
    )
    c.add_argument(
        "--projection",
        help="the file `python -m gatedrnn.estimate --json FILE` wrote before the stage ran: "
        "the manifest sets its projected CPU time against the actual",
    )
    r = sub.add_parser(
        "restore",
        help="put collected stages' tables, figures and seed rows back into a run's results/, for a "
        "stage that goes on from them on a machine without the earlier stages' results/",
    )
    r.add_argument("--reference", default=str(manifest.REFERENCE))
    r.add_argument("--results", default="results")
    r.add_argument("--stage", nargs="+", help="the stages to restore (default: every stage collected)")
    s = sub.add_parser(
        "ledger",
        help="claims.{csv,md,html} and open_questions.md from reference/'s tables (once every stage is in)",
    )
    s.add_argument("--reference", default=str(manifest.REFERENCE))
    s.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    b = sub.add_parser(
        "scoreboard", help="the scoreboard of regimes from reference/'s tables, against its own"
    )
    b.add_argument("--reference", default=str(manifest.REFERENCE))
    b.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    f = sub.add_parser(
        "confirm",
        help="the scoreboard, its confirmation and figure into a run's results/, from reference/'s "
        "tables and the confirmation runs it trained (a stage protocol run without the earlier models)",
    )
    f.add_argument("--reference", default=str(manifest.REFERENCE))
    f.add_argument("--results", default="results")
    f.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    f.add_argument("--targets", action="store_true", help="only list the files to train, for snakemake")
    a = sub.add_parser(
        "collect-another-cpu",
        help="keep a run's tables of models a stage trained again on another CPU model, for "
        "reference/README.md's section Another CPU model",
    )
    a.add_argument(
        "--stage", required=True, help="the stage whose retrained models the tables were built from"
    )
    a.add_argument("--results", default="results")
    a.add_argument("--out", default=str(manifest.REFERENCE))
    a.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    a.add_argument("--built-by", required=True, help="the snakemake command that built the tables")
    g = sub.add_parser(
        "pages",
        help="render docs/results.md, the README's summary and docs/protocol-scoreboard.md's findings "
        "from reference/",
    )
    g.add_argument("--reference", default=str(manifest.REFERENCE))
    g.add_argument("--page", default="docs/results.md")
    g.add_argument("--readme", default="README.md")
    g.add_argument(
        "--scoreboard",
        default="docs/protocol-scoreboard.md",
        help="the page carrying the protocol section, its answer and the ledger under it",
    )
    g.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    h = sub.add_parser(
        "changes",
        help="the ledger's counts per family beside an older ledger's, and every verdict that changed",
    )
    h.add_argument("--old", required=True, help="the older ledger's claims.csv")
    h.add_argument("--reference", default=str(manifest.REFERENCE))
    h.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    args = parser.parse_args(argv)
    published = Path("workflow/resources/published.yaml")
    if args.command != "collect" and not published.is_file():  # they read the study's claims
        raise BadArgument(f"no {published} in {Path.cwd()}: run this command from the checkout's root")
    if args.command == "ledger":
        reference = _complete_reference("--reference", args.reference)
        config = _config(args.configfile)
        try:
            manifest.clean_commit(Path.cwd(), reference)  # before any file is written
        except ValueError as err:
            print(f"ERROR: {err}", file=sys.stderr)
            return 1
        ledger = tables.reference_ledger(reference, config, Path.cwd())
        if ledger is None:
            print("the reference lacks tables the ledger reads: collect every stage first", file=sys.stderr)
            return 1
        files = tables.render_ledger(ledger, reference)
        answers = tables.reference_open_questions(reference, config)
        if answers is not None:
            files[reference / "open_questions.md"] = answers
        written = [path.name for path in files]
        if manifest.derived_unchanged(reference, "ledger", files):
            print(f"nothing changed: {', '.join(written)} and {manifest.MANIFEST} left as they are")
            return 0
        write_whole(files)
        manifest.record_derived(reference, "ledger", written, Path.cwd(),
                       "computed from reference/tables by python -m gatedrnn.reference ledger")  # fmt: skip
        from gatedrnn.claims import summary_line

        print(summary_line(ledger))
        print("wrote " + ", ".join(written))
        return 0
    if args.command == "changes":
        import pandas as pd

        from gatedrnn.report.ledger_changes import render_changes

        old_path = _file("--old", args.old)
        reference = _directory("--reference", args.reference, REFERENCE_HOLDS)
        try:
            old = pd.read_csv(old_path, keep_default_na=False)
        except (ValueError, pd.errors.ParserError) as err:
            raise BadArgument(f"--old {args.old}: not a CSV ({err})") from err
        needed = {"id", "experiment", "kind", "description", "published", "reproduced", "verdict"}
        lacking = ", ".join(sorted(needed - set(old.columns)))
        if lacking:
            raise BadArgument(f"--old {args.old}: not a claims ledger (lacks {lacking})")
        new = tables.page_ledger(reference, _config(args.configfile), Path.cwd())
        if new is None:
            print("the reference has no ledger yet: collect a stage first", file=sys.stderr)
            return 1
        print(render_changes(old, new))
        return 0
    if args.command == "scoreboard":
        board = tables.reference_scoreboard(
            _directory("--reference", args.reference, REFERENCE_HOLDS), _config(args.configfile), Path.cwd()
        )
        if board is None:
            print(
                "the reference lacks tables the scoreboard reads: collect stage protocol first",
                file=sys.stderr,
            )
            return 1
        print(board.to_string(index=False))
        committed = Path(args.reference) / "tables" / "protocol_scoreboard.csv"
        if committed.exists():
            import pandas as pd

            same = pd.read_csv(committed).equals(board.astype(pd.read_csv(committed).dtypes.to_dict()))
            print(
                "the committed scoreboard is "
                + ("what these tables give" if same else "NOT what these tables give")
            )
            return 0 if same else 1
        return 0
    if args.command == "restore":
        reference = _complete_reference("--reference", args.reference)
        results = Path(args.results)
        if results.exists() and not results.is_dir():
            raise BadArgument(f"--results {args.results}: is a file; it must be a directory")
        try:
            done = restore.restore(reference, results, args.stage)
        except ValueError as err:
            print(f"ERROR: {err}; nothing written", file=sys.stderr)
            return 1
        print(f"restored {len(done['restored'])} files into {args.results}, kept {len(done['kept'])} "
              "that were there with the same bytes; every one stamped now")  # fmt: skip
        return 0
    if args.command == "confirm":
        _directory("--reference", args.reference, REFERENCE_HOLDS)
        config = _config(args.configfile)
        if not args.targets:
            _directory("--results", args.results)
        try:
            if args.targets:
                by_kind = tables.confirmation_files(Path(args.reference), config, Path.cwd())
                print("\n".join(path for paths in by_kind.values() for path in paths))
                return 0
            written = tables.complete_protocol(Path(args.reference), Path(args.results), config, Path.cwd())
        except ValueError as err:
            print(f"ERROR: {err}", file=sys.stderr)
            return 1
        print("wrote " + ", ".join(str(p) for p in written))
        return 0
    if args.command == "pages":
        from gatedrnn.report.protocol_answer import replace_answer
        from gatedrnn.report.protocol_page import render_protocol_section, replace_protocol_section
        from gatedrnn.report.results_page import (
            render_readme_summary,
            render_results_page,
            replace_block,
            replace_readme_summary,
        )

        reference = _complete_reference("--reference", args.reference, (*REFERENCE_HOLDS, "README.md"))
        page, readme = _new_file("--page", args.page), _file("--readme", args.readme)
        board = _file("--scoreboard", args.scoreboard)
        config = _config(args.configfile)
        notes = reference / "README.md"
        ledger = tables.page_ledger(reference, config, Path.cwd())
        # each generated block into the page that carries it (one page may carry both)
        texts = {readme: readme.read_text(), board: board.read_text()}
        try:
            texts[readme] = replace_readme_summary(texts[readme], render_readme_summary(reference, ledger))
            answer = tables.reference_answer(reference, config, Path.cwd())
            texts[readme] = replace_answer(texts[readme], answer)
            protocol = render_protocol_section(reference, Path.cwd())
            texts[board] = replace_protocol_section(texts[board], protocol, str(board))
            texts[board] = replace_answer(
                texts[board], tables.reference_answer(reference, config, Path.cwd(), ledger=True), str(board)
            )
            section = another_cpu.render_another_cpu_section(reference, config, Path.cwd())
            notes_text = replace_block(notes.read_text(), another_cpu.BEGIN, another_cpu.END, section,
                                       str(notes))  # fmt: skip
        except ValueError as err:  # a page without its generated block
            flags = f"--readme {args.readme}, --scoreboard {args.scoreboard} or --reference {args.reference}"
            raise BadArgument(f"{flags}: {err}") from err
        write_whole({page: render_results_page(reference, Path.cwd(), ledger), **texts, notes: notes_text})
        print(f"wrote {args.page}, the summary and the protocol's answer in {args.readme}, the protocol "
              f"section and its answer in {args.scoreboard}, {notes}'s Another CPU model")  # fmt: skip
        return 0
    if args.command == "collect-another-cpu":
        results = _directory("--results", args.results, ("tables",))
        out = _directory("--out", args.out, REFERENCE_HOLDS)
        config = _config(args.configfile)
        if not args.built_by.strip():
            raise BadArgument("--built-by is empty: give the snakemake command that built the tables")
        try:
            saved = another_cpu.collect_another_cpu(results, out, args.stage, config, Path.cwd(),
                                                    args.built_by)  # fmt: skip
        except ValueError as err:
            print(f"ERROR: {err}", file=sys.stderr)
            return 1
        print(f"kept {len(saved['another_cpu']['tables'])} tables under {args.out}/another_cpu/tables")
        return 0
    if args.command == "collect":
        if not args.stage.strip() or "/" in args.stage:
            raise BadArgument(f"--stage {args.stage!r}: give a stage name (study, regimes, ...)")
        results = _directory("--results", args.results, ("tables",))
        if not any((results / "tables").glob("*.csv")):
            raise BadArgument(f"--results {args.results}: its tables/ holds no CSV; has the stage run?")
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise BadArgument(f"--out {args.out}: is a file; it must be a directory")
        # a fresh reference/ may hold its README alone (the folder's notes, never collected)
        started = [p for p in out.iterdir() if p.name != "README.md"] if out.is_dir() else []
        if out.is_dir() and not (out / manifest.MANIFEST).is_file() and started:
            raise BadArgument(f"--out {args.out}: a directory with files and no {manifest.MANIFEST}")
        config = _config(args.configfile)
        provenance = _json_file("--provenance", args.provenance)
        projection = _json_file("--projection", args.projection) if args.projection else None
        try:
            saved = manifest.collect(
                results,
                out,
                args.stage,
                config,
                provenance,
                Path.cwd(),
                args.note,
                projection,
                args.partial,
                remade=args.remade,
            )
        except ValueError as err:
            print(f"ERROR: {err}", file=sys.stderr)
            return 1
        stage = saved["stages"][args.stage]
        print(f"stage {args.stage}: {len(stage['files'])} files into {args.out} (commit {stage['commit']})")
        if "remade" in stage:
            print(f"of them made again with other bytes than the stage that had them: {len(stage['remade'])}")
        print(f"training jobs recorded: {saved['totals']}")
        if "projection" in stage:
            print(f"projected against actual: {stage['projection']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
