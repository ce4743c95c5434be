"""The documents: links resolve in a clone, nothing points outside the repository,
CITATION.cff and LICENSE agree with pyproject.toml, and the experiment catalogue
names files and rules that exist."""

from __future__ import annotations

import importlib
import re
import subprocess
import tomllib
from datetime import date
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from conftest import REPO

# Documents whose links must resolve (every other tracked Markdown file is checked too).
LINKED_DOCS = ["README.md", "config/README.md", "bench/README.md", "profiles/README.md"]
# The docs pages the README links for what it leaves out.
PAGES = [
    "docs/experiments.md",
    "docs/sources.md",
    "docs/protocol.md",
    "docs/ledger.md",
    "docs/report.md",
    "docs/open-questions.md",
    "docs/regime-sweep.md",
    "docs/claims-language.md",
    "docs/forget-bias-check.md",
    "docs/protocol-scoreboard.md",
    "docs/api.md",
    "docs/results.md",
    "docs/numerics.md",
    "docs/reruns.md",
    "docs/layout.md",
    "docs/deploy.md",
    "reference/README.md",
]
# Generated from reference/ (gatedrnn.report.results_page), not written by hand.
GENERATED_DOCS = {"docs/results.md"}
# Paths that exist only beside this checkout, never in a clone.
OUTSIDE = ["../shared", "shared/spec", "EXPERIMENTS.md"]
THIS_FILE = "tests/test_docs.py"
CFF_KEYS = ["cff-version", "message", "title", "authors", "version", "license", "references"]

FENCED_CODE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
# [text](target) and ![alt](target); the target may be <...> and carry a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+[\"'(][^)]*)?\s*\)")
# [label]: target
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.MULTILINE)
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True)
    return [path for path in out.stdout.split("\0") if path]


@pytest.fixture(scope="module")
def tracked() -> list[str]:
    return tracked_files()


def markdown_docs(tracked: list[str]) -> list[str]:
    docs = sorted({path for path in tracked if path.endswith(".md")} | set(LINKED_DOCS))
    docs += sorted(str(path.relative_to(REPO)) for path in (REPO / "docs").glob("*.md"))
    return sorted(set(docs))


def links(markdown: str) -> list[str]:
    """Every link target of a Markdown text, code blocks and code spans left out."""
    text = INLINE_CODE.sub("", FENCED_CODE.sub("", markdown))
    found = [
        m.group(1) for pattern in (INLINE_LINK, REFERENCE_DEF, HTML_LINK) for m in pattern.finditer(text)
    ]
    return [target.strip("<>") for target in found]


def is_relative(target: str) -> bool:
    return not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) and not target.startswith("//")


def anchors(markdown: str) -> set[str]:
    """GitHub's ids for the headings of a Markdown text (lower case, punctuation dropped,
    spaces to hyphens, -1, -2, ... for repeats)."""
    seen: dict[str, int] = {}
    ids = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", FENCED_CODE.sub("", markdown), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def test_link_parser_finds_the_forms_used():
    text = (
        'See [the catalogue](docs/experiments.md#a-closed-form-tables) and ![fig](<a b.png> "t").\n'
        "`[not](a/link.md)` and\n```\n[not](either.md)\n```\n[ref]: ../LICENSE\n"
        '<a href="x/y.md">x</a> [web](https://example.org) [[nested]](z.md)\n'
    )
    assert links(text) == [
        "docs/experiments.md#a-closed-form-tables",
        "a b.png",
        "https://example.org",
        "z.md",
        "../LICENSE",
        "x/y.md",
    ]


def test_anchors_follow_github():
    text = "# A. Closed-form tables (no training)\n## The trained LSTM's gates\n## Notes\n## Notes\n"
    assert anchors(text) == {
        "a-closed-form-tables-no-training",
        "the-trained-lstms-gates",
        "notes",
        "notes-1",
    }


def test_the_documents_exist(tracked):
    for doc in [*LINKED_DOCS, *PAGES, "CHANGELOG.md"]:
        assert doc in tracked or (REPO / doc).is_file(), f"{doc} is missing"


def test_relative_links_resolve_to_tracked_files(tracked):
    """A link must reach a file a clone has: tracked by git, inside the repository."""
    files = set(tracked)
    folders = {parent.as_posix() for path in tracked for parent in Path(path).parents}
    broken = []
    checked = 0
    for doc in markdown_docs(tracked):
        for target in links((REPO / doc).read_text(encoding="utf-8")):
            if not is_relative(target):
                continue
            path, _, anchor = unquote(target.split("?", 1)[0]).partition("#")
            checked += 1
            resolved = (REPO / doc).parent / path if path else REPO / doc
            try:
                relative = resolved.resolve().relative_to(REPO.resolve()).as_posix()
            except ValueError:
                broken.append(f"{doc}: {target} (outside the repository)")
                continue
            if relative not in files and relative not in folders:
                broken.append(f"{doc}: {target} (not a tracked file)")
            elif anchor and relative.endswith(".md"):
                if anchor not in anchors((REPO / relative).read_text(encoding="utf-8")):
                    broken.append(f"{doc}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)
    assert checked > 0


def test_no_tracked_file_points_outside_the_repository(tracked):
    offenders = []
    for path in tracked:
        if path == THIS_FILE:
            continue
        raw = (REPO / path).read_bytes() if (REPO / path).is_file() else b""
        if b"\0" in raw:
            continue
        text = raw.decode("utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            for needle in OUTSIDE:
                if needle in line:
                    offenders.append(f"{path}:{lineno}: {needle}")
    assert not offenders, "pointers to files a clone does not have:\n" + "\n".join(offenders)


def pyproject() -> dict:
    with open(REPO / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def test_citation_cff_parses_and_matches_pyproject():
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    missing = [key for key in CFF_KEYS if not cff.get(key)]
    assert not missing, f"CITATION.cff lacks {missing}"
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == pyproject()["version"]
    assert cff["license"] == pyproject()["license"] == "MIT"
    released = str(cff.get("date-released"))
    date.fromisoformat(released)
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{cff['version']}] - {released}" in changelog, "CITATION.cff's release is CHANGELOG's"
    for person in cff["authors"]:
        assert person.get("name") or person.get("family-names"), person
    assert len(cff["references"]) >= 5
    for ref in cff["references"]:
        assert ref.get("type") and ref.get("title") and ref.get("authors"), ref
        # no address is known for any source: none may be made up
        assert not {"url", "doi", "repository", "repository-code"} & set(ref), ref


def test_license_is_mit():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "The gatedrnn authors" in text
    assert pyproject()["license"] == "MIT"


def rule_column(markdown: str) -> set[str]:
    """The names in backticks in the last column of every table whose last column is "rule"."""
    names: set[str] = set()
    in_rule_table = False
    for line in markdown.splitlines():
        if not line.startswith("|"):
            in_rule_table = False
            continue
        last = line.rstrip().rstrip("|").rsplit("|", 1)[-1].strip()
        if last == "rule":
            in_rule_table = True
        elif in_rule_table:
            names |= set(re.findall(r"`(\w+)`", last))
    return names


def test_catalogue_names_existing_rules_and_outputs():
    """Every rule and results/ path the catalogue names is one the workflow defines."""
    rules_text = "\n".join(
        p.read_text(encoding="utf-8") for p in sorted((REPO / "workflow/rules").glob("*.smk"))
    )
    # paths the rules name through a constant of the plan (REGIME_SENSITIVITY, ...)
    from gatedrnn.plan import paths

    constants = {
        name: value for name, value in vars(paths).items() if name.isupper() and isinstance(value, str)
    }
    rules_text += "".join(
        f'\n"{value}"' for name, value in constants.items() if re.search(rf"\b{name}\b", rules_text)
    )
    rules = set(re.findall(r"^(?:rule|checkpoint) (\w+):", rules_text, re.MULTILINE))
    rules |= set(re.findall(r"^use rule \w+ as (\w+) with:", rules_text, re.MULTILINE))
    catalogue = (REPO / "docs" / "experiments.md").read_text(encoding="utf-8")
    named_rules = set(re.findall(r"rules? `(\w+)`", catalogue)) | rule_column(catalogue)
    assert named_rules, "no rule found in the catalogue"
    assert not named_rules - rules, f"unknown rules: {sorted(named_rules - rules)}"
    outputs = set(re.findall(r"`(results/(?:tables|figures)/[\w.]+)`", catalogue))
    assert outputs
    unknown = sorted(path for path in outputs if f'"{path}"' not in rules_text)
    assert not unknown, f"files no rule writes: {unknown}"
    # ... and every table or figure a rule writes is in the catalogue
    written = set(re.findall(r'"(results/(?:tables|figures)/[\w.]+)"', rules_text))
    index = set(re.findall(r"`((?:tables|figures)/[\w.]+)`", catalogue))
    absent = sorted(path for path in written if path not in outputs and path[len("results/") :] not in index)
    assert not absent, f"outputs missing from docs/experiments.md: {absent}"


# A dotted name of the package: gatedrnn.core.widths.matched_width, gatedrnn.plan.Plan.prefix_files.
DOTTED_NAME = re.compile(r"(?<![/\w.-])gatedrnn(?:\.[A-Za-z_]\w*)+")


def resolves(name: str) -> bool:
    """``name`` imports as a module, or is an attribute (of an attribute ...) of one."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_dotted_name_resolver():
    assert resolves("gatedrnn.core.widths")
    assert resolves("gatedrnn.core.widths.matched_width")
    assert resolves("gatedrnn.plan.Plan.prefix_files")
    assert not resolves("gatedrnn.bench")
    assert not resolves("gatedrnn.core.widths.no_such_function")
    assert DOTTED_NAME.findall("see `gatedrnn.io.corpus`, then gatedrnn.train.loop.train_model.") == [
        "gatedrnn.io.corpus",
        "gatedrnn.train.loop.train_model",
    ]


def test_every_package_name_the_documents_give_exists(tracked):
    """Each ``gatedrnn.x.y`` the README and the docs name imports as a module or resolves
    as an attribute of one (the generated results page aside), so a renamed module or
    function cannot leave a stale pointer behind."""
    docs = ["README.md", *LINKED_DOCS, *(d for d in markdown_docs(tracked) if d.startswith("docs/"))]
    docs += ["reference/README.md"]
    stale = []
    checked = 0
    for doc in sorted(set(docs) - GENERATED_DOCS):
        path = REPO / doc
        if not path.is_file():
            continue
        for name in sorted(set(DOTTED_NAME.findall(path.read_text(encoding="utf-8")))):
            checked += 1
            if not resolves(name):
                stale.append(f"{doc}: {name}")
    assert checked > 20
    assert not stale, "names that are no module or attribute of the package:\n" + "\n".join(stale)


# ---------------------------------------------------------------- the README as a front door (issue 52)

README_MOST_LINES = 200


def test_the_readme_is_a_front_door():
    """Under 200 lines; every page it leaves out is linked from one line of its own; the
    maintainer material that moved out stays out."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < README_MOST_LINES, f"README.md: {len(readme.splitlines())} lines"
    more = readme.split("\n## More\n", 1)[1].split("\n## ", 1)[0]
    for page in PAGES:
        if page.startswith("docs/") and page not in {"docs/experiments.md", "docs/sources.md"}:
            lines = [line for line in more.splitlines() if f"]({page})" in line]
            assert lines, f"{page} is not linked from a line of the README's More"
    for moved in ("## Layout", "From a number to its code", "What reruns, and why", "What is promised"):
        assert moved not in readme, f"{moved!r} belongs in docs/, not the README"


def test_the_readme_installs_from_a_clone_in_a_virtual_environment():
    """git clone, cd, a virtual environment, the two install lines; no placeholder address
    (CITATION.cff and pyproject.toml record none, so the README says so plainly)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = [
        line.split("#")[0].strip() for line in FENCED_CODE.search(install).group(0).splitlines()[1:-1]
    ]
    assert commands[0].startswith("git clone ") and "&& cd " in commands[0]
    assert commands[1].startswith("python3 -m venv .venv && source .venv/bin/activate")
    assert (
        commands[2].startswith("pip install torch==2.13.0 --index-url") and commands[3] == "pip install -e ."
    )
    assert "<repository-url>" not in readme and "this repository's clone URL" in install
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    urls = {cff.get(key) for key in ("url", "repository-code")} | set(pyproject().get("urls", {}).values())
    for url in urls - {None}:  # an address recorded there is the one to clone
        assert f"git clone {url}" in install


def test_no_document_names_a_tag_a_clone_lacks():
    """A fresh clone has no tags (`git tag -l` prints nothing): a release is named by the
    version in pyproject.toml, its CHANGELOG section, or a commit, never by a tag."""
    version = pyproject()["version"]
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(version)}\] - ", changelog, re.MULTILINE)
    docs = ["README.md", "docs/deploy.md", "docs/numerics.md", "config/README.md", "profiles/README.md"]
    for doc in docs:
        text = (REPO / doc).read_text(encoding="utf-8")
        for pattern in (r"--tag\b", r"--branch v\d", r"reference-\d{4}-\d\d", r"`v\d+\.\d+\.\d+`"):
            assert not re.search(pattern, text), f"{doc}: {pattern} names a tag a clone lacks"
    deploy = (REPO / "docs/deploy.md").read_text(encoding="utf-8")
    assert f'version = "{version}"' in deploy and "git checkout COMMIT" in deploy
    assert "--commit COMMIT" in deploy and "--branch main" in deploy


def test_the_readme_gives_the_full_runs_cpu_hours_from_the_reference():
    """Beside `snakemake --cores 8`: the CPU-hours of the reference run's trainings, each
    model once (reference/manifest.json), not typed from memory."""
    import json

    totals = json.loads((REPO / "reference/manifest.json").read_text())["totals"]
    hours = round(totals["cpu_hours_first_trainings"])
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"^snakemake --cores 8 +# .*about {hours} CPU-hours", readme, re.MULTILINE)
    assert len(re.findall(r"about (\d+) CPU-hours", readme)) == readme.count(f"about {hours} CPU-hours")
