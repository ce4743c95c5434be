"""Code as a declared input (gatedrnn.code_version): which modules a rule script
runs, and which edits change its version. The workflow-level cases (a real edit,
then a dry run) are in tests/test_code_inputs.py."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from gatedrnn import code_version as cv
from gatedrnn.code_version import code_version, fingerprint, module_closure


@pytest.fixture(autouse=True)
def kept_analyses(tmp_path, monkeypatch):
    """Each test keeps its analyses in a file of its own (not the package's __pycache__)."""
    path = tmp_path / "kept" / "code_version.json"
    monkeypatch.setattr(cv, "ANALYSES", cv._KeptAnalyses(path))
    clear_caches()
    return path


def clear_caches() -> None:
    """What one process remembers; the kept analyses on disk stay."""
    for cached in (cv._analyse, cv._imported_names, cv._file_digest, cv._code_version):
        cached.cache_clear()


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


PACKAGE = {
    "src/gatedrnn/__init__.py": '"""Package."""\n',
    "src/gatedrnn/core/__init__.py": "",
    "src/gatedrnn/core/model.py": "import torch\n\nWIDTH = 3\n",
    "src/gatedrnn/core/unused.py": "X = 1\n",
    "src/gatedrnn/report/__init__.py": "",
    "src/gatedrnn/report/style.py": "DPI = 150\n",
    "src/gatedrnn/report/figures.py": """\
        from .style import DPI
        from ..core import model


        def draw():
            from gatedrnn.core.model import WIDTH  # a function-level import counts too
            return DPI, WIDTH
        """,
    "src/gatedrnn/tables.py": "from gatedrnn.core.model import WIDTH\n",
    "workflow/scripts/figure.py": "from gatedrnn.report import figures\n\nfigures.draw()\n",
    "workflow/scripts/table.py": "import pandas\nfrom gatedrnn.tables import WIDTH\n",
}


def test_closure_follows_imports_through_modules_packages_and_relative_imports(tmp_path):
    root = make_tree(tmp_path, PACKAGE)
    src = root / "src"
    figure = module_closure(root / "workflow/scripts/figure.py", src)
    assert list(figure) == [
        "gatedrnn",
        "gatedrnn.core",
        "gatedrnn.core.model",
        "gatedrnn.report",
        "gatedrnn.report.figures",
        "gatedrnn.report.style",
    ]
    table = module_closure(root / "workflow/scripts/table.py", src)
    assert list(table) == ["gatedrnn", "gatedrnn.core", "gatedrnn.core.model", "gatedrnn.tables"]
    assert "gatedrnn.core.unused" not in figure | table


def versions(root: Path) -> dict[str, str]:
    clear_caches()
    return {
        name: code_version(root / f"workflow/scripts/{name}.py", root / "src") for name in ("figure", "table")
    }


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_code_edit_changes_exactly_the_scripts_that_import_the_module(tmp_path):
    root = make_tree(tmp_path, PACKAGE)
    before = versions(root)
    edit(root, "src/gatedrnn/report/style.py", "DPI = 150", "DPI = 300")
    after = versions(root)
    assert after["figure"] != before["figure"]
    assert after["table"] == before["table"]

    edit(root, "src/gatedrnn/core/model.py", "WIDTH = 3", "WIDTH = 4")
    again = versions(root)
    assert again["figure"] != after["figure"] and again["table"] != after["table"]


def test_an_unimported_module_and_the_package_init_count_as_documented(tmp_path):
    root = make_tree(tmp_path, PACKAGE)
    before = versions(root)
    edit(root, "src/gatedrnn/core/unused.py", "X = 1", "X = 2")
    assert versions(root) == before
    edit(root, "src/gatedrnn/__init__.py", '"""Package."""\n', '"""Package."""\nVERSION = 2\n')
    after = versions(root)
    assert after["figure"] != before["figure"] and after["table"] != before["table"]


def test_comments_whitespace_formatting_and_docstrings_do_not_count(tmp_path):
    root = make_tree(tmp_path, PACKAGE)
    before = versions(root)
    edit(root, "src/gatedrnn/core/model.py", "WIDTH = 3\n", "# the width\nWIDTH   =   (\n    3\n)\n\n\n")
    edit(root, "src/gatedrnn/report/figures.py", "def draw():\n", 'def draw():\n    """Draw."""\n')
    edit(root, "src/gatedrnn/tables.py", "from", '"""The tables."""\n\nfrom')
    assert versions(root) == before


def test_a_change_inside_a_string_or_a_function_body_counts(tmp_path):
    root = make_tree(tmp_path, PACKAGE)
    before = versions(root)
    edit(root, "src/gatedrnn/report/figures.py", "return DPI, WIDTH", "return WIDTH, DPI")
    assert versions(root)["figure"] != before["figure"]


def test_the_script_itself_counts_and_versions_do_not_depend_on_where_the_tree_lies(tmp_path):
    one = make_tree(tmp_path / "one", PACKAGE)
    two = make_tree(tmp_path / "two", PACKAGE)
    assert versions(one) == versions(two)
    edit(two, "workflow/scripts/table.py", "import pandas\n", "import pandas\nimport numpy\n")
    assert versions(two)["table"] != versions(one)["table"]


def test_fingerprint_of_the_real_package_is_stable_and_the_train_rule_runs_the_model():
    repo = Path(__file__).resolve().parents[1]
    modules = module_closure(repo / "workflow/scripts/train.py", repo / "src")
    assert "gatedrnn.core.model" in modules and "gatedrnn.train.loop" in modules
    assert "gatedrnn.report.style" not in modules
    path = repo / "src/gatedrnn/core/model.py"
    assert fingerprint(path) == fingerprint(path)


def test_named_data_files_count_by_their_bytes(tmp_path):
    root = make_tree(tmp_path, PACKAGE | {"config/claims.yaml": "a: 1\n"})
    script, src, data = root / "workflow/scripts/table.py", root / "src", [root / "config/claims.yaml"]
    before = code_version(script, src, data)
    assert before != code_version(script, src)
    (root / "config/claims.yaml").write_text("a: 2\n")
    versions(root)  # clears the caches
    assert code_version(script, src, data) != before


def a_new_process(path: Path) -> None:
    """What a new process starts from: the kept analyses read again from ``path``."""
    cv.ANALYSES = cv._KeptAnalyses(path)
    clear_caches()


def test_kept_analyses_give_the_versions_a_fresh_parse_gives(tmp_path, kept_analyses, monkeypatch):
    root = make_tree(tmp_path / "tree", PACKAGE)
    first = versions(root)
    kept = json.loads(kept_analyses.read_text())
    modules = [p for p in (root / "src").rglob("*.py")]
    assert len(kept["entries"]) >= len(module_closure(root / "workflow/scripts/figure.py", root / "src"))

    a_new_process(kept_analyses)
    monkeypatch.setattr(cv, "_parse", lambda *a: pytest.fail("a kept file was parsed again"))
    assert versions(root) == first  # nothing parsed: every file's analysis was kept
    assert modules and all(p.is_file() for p in modules)


def test_an_edit_is_seen_whatever_the_files_size_and_time(tmp_path, kept_analyses):
    """Kept by content, not by size and modification time: an edit of the same length
    within the same clock tick still counts."""
    root = make_tree(tmp_path / "tree", PACKAGE)
    before = versions(root)
    path = root / "src/gatedrnn/core/model.py"
    stat = path.stat()
    edit(root, "src/gatedrnn/core/model.py", "WIDTH = 3", "WIDTH = 4")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    a_new_process(kept_analyses)
    assert versions(root)["table"] != before["table"]


@pytest.mark.parametrize(
    "damage",
    ["", "{not json", '{"analyser": "another", "entries": {}}', '{"entries": []}', "[1, 2]"],
    ids=["empty", "not JSON", "another analyser", "no analyser", "a list"],
)
def test_a_damaged_or_foreign_kept_file_is_ignored_and_written_again(tmp_path, kept_analyses, damage):
    root = make_tree(tmp_path / "tree", PACKAGE)
    first = versions(root)
    kept_analyses.write_text(damage)
    a_new_process(kept_analyses)
    assert versions(root) == first
    assert json.loads(kept_analyses.read_text())["analyser"] == cv.ANALYSES.analyser


def test_a_wrong_analysis_under_this_analyser_is_not_trusted_blindly(tmp_path, kept_analyses):
    """An entry of the wrong shape is parsed again, not used (a hand-edited or truncated
    entry); the kept file never holds half a write (written whole, then renamed)."""
    root = make_tree(tmp_path / "tree", PACKAGE)
    first = versions(root)
    kept = json.loads(kept_analyses.read_text())
    kept["entries"] = {key: "garbage" for key in kept["entries"]}
    kept_analyses.write_text(json.dumps(kept))
    a_new_process(kept_analyses)
    assert versions(root) == first
    assert not list(kept_analyses.parent.glob("*.tmp*"))


def test_a_read_only_folder_costs_the_parse_and_nothing_else(tmp_path, monkeypatch):
    root = make_tree(tmp_path / "tree", PACKAGE)
    blocked = tmp_path / "a-file-not-a-folder"
    blocked.write_text("")
    monkeypatch.setattr(cv, "ANALYSES", cv._KeptAnalyses(blocked / "code_version.json"))
    assert versions(root)["table"]
