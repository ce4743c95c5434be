"""Code as a declared input: a rule's outputs depend on the code its script runs.

Snakemake's ``code`` trigger reruns a script rule when the script file is newer
than its outputs (a comment, a ``cp -r``), but it does not see the package code the
script imports: edit a function in ``gatedrnn/analysis/closed_form.py`` and the
tables it made still look current. Every rule therefore carries a parameter
``code`` = :func:`code_version` of its script, and Snakemake's ``params`` rerun
trigger reruns the rule when that value changes; the ``code`` trigger is off
(``rerun-triggers`` in ``profiles/default/config.yaml``), so the script itself
counts here too, comments excluded, like every module.

What the version covers: the script and every module of this package that it
imports, directly or through other modules (static analysis of ``import``
statements anywhere in a module, function bodies included; each imported package's
``__init__.py`` too, since Python runs it). Third-party packages are the software
environment's business (pinned in pyproject.toml and envs/), not this one's.

Files of the workflow that a script reads as code-like data (the claims in
workflow/resources/published.yaml) can be named too: their bytes count.

What counts as a change: the module's syntax tree without its docstrings. So a
change to code reruns the rules that import it; comments, blank lines, formatting
(line wrapping, quotes style that parses the same) and docstrings do not.

Pure standard library, no import of the package itself. Parsing every module costs
about half a second, and every Snakemake command pays it (a dry run, each job of a
cluster run): what a file's analysis found is kept by the file's content hash in
``__pycache__/code_version.<python>.json`` beside this module (as Python keeps its
bytecode), so a file is parsed again only when its bytes change, or this module does.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from functools import cache
from pathlib import Path

PACKAGE = "gatedrnn"
SRC = Path(__file__).resolve().parents[1]  # the directory holding the package


def _strip_docstrings(tree: ast.Module) -> ast.Module:
    """Drop the docstring of the module and of every class and function."""
    for node in [tree, *_statements(tree.body)]:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
    return tree


def _statements(body):
    """Every statement of a body, nested bodies included (imports are statements, so
    expressions need not be visited)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(node, field, ()))
        for handler in getattr(node, "handlers", ()):
            yield from _statements(handler.body)
        for case in getattr(node, "cases", ()):
            yield from _statements(case.body)


@cache
def _analyse(path: Path) -> tuple[tuple, str]:
    """(the file's import statements as (level, module, names), its fingerprint)."""
    data = Path(path).read_bytes()
    key = hashlib.sha256(data).hexdigest()
    found = ANALYSES.get(key)
    if found is None:
        found = ANALYSES.add(key, _parse(data, path))
    return found


def _parse(data: bytes, path: Path) -> tuple[tuple, str]:
    tree = ast.parse(data.decode("utf-8"), filename=str(path))
    imports = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            imports.append((0, None, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.level, node.module, tuple(alias.name for alias in node.names)))
    digest = hashlib.sha256(ast.dump(_strip_docstrings(tree)).encode()).hexdigest()
    return tuple(imports), digest


class _KeptAnalyses:
    """The analyses of earlier processes, by content hash, in one JSON file. Valid only
    for this very analyser (its own bytes) and Python version (``ast.dump`` changes
    between versions); anything else, a damaged file included, is ignored and rewritten.
    Written whole to a temporary file then renamed, so a reader never sees half of one;
    two writers at once lose at most each other's new entries, which are parsed again."""

    LIMIT = 4000  # entries; past it, those this process did not use are dropped

    def __init__(self, path: Path):
        self.path, self.new, self.used = path, False, set()
        self.analyser = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
        self.entries: dict = {}
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            if kept.get("analyser") == self.analyser:
                self.entries = kept["entries"]
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
            pass

    def get(self, key: str) -> tuple[tuple, str] | None:
        entry = self.entries.get(key)
        try:
            imports, digest = entry
            found = tuple((level, module, tuple(names)) for level, module, names in imports), str(digest)
        except (TypeError, ValueError):
            return None
        self.used.add(key)
        return found

    def add(self, key: str, analysis: tuple[tuple, str]) -> tuple[tuple, str]:
        self.entries[key], self.new = analysis, True
        self.used.add(key)
        return analysis

    def save(self) -> None:
        """Keep the new analyses for the next process (nothing when none is new, or the
        folder is read-only). Written under PYTHONDONTWRITEBYTECODE too: it is no bytecode,
        and CI's machines set that variable."""
        if not self.new:
            return
        if len(self.entries) > self.LIMIT:
            self.entries = {k: v for k, v in self.entries.items() if k in self.used}
        temp = self.path.with_name(f"{self.path.name}.tmp{os.getpid()}")
        try:
            self.path.parent.mkdir(exist_ok=True)
            kept = {"analyser": self.analyser, "entries": self.entries}
            temp.write_text(json.dumps(kept), encoding="utf-8")
            os.replace(temp, self.path)
            self.new = False
        except OSError:
            try:
                temp.unlink(missing_ok=True)
            except OSError:  # no folder to write in at all
                pass


KEPT_FILE = f"__pycache__/code_version.{sys.implementation.cache_tag}.json"
ANALYSES = _KeptAnalyses(Path(__file__).parent / KEPT_FILE)


def fingerprint(path: Path) -> str:
    """sha256 of a Python file's syntax tree without docstrings (comments and
    formatting never reach the tree)."""
    return _analyse(Path(path))[1]


@cache
def module_file(name: str, src: Path = SRC) -> Path | None:
    """The file of package module ``name`` (``gatedrnn.core.model``), or None if
    ``name`` is not a module of the package (an attribute, or a missing module)."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = src.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(name: str, path: Path) -> str:
    """The package a module's relative imports are relative to."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_names(path: Path, name: str | None = None) -> set[str]:
    """Dotted names of the package's modules (and candidate attributes) that the
    file imports anywhere in its body. ``name`` is the file's own module name
    (needed for relative imports; None for a rule script)."""
    return set(_imported_names(Path(path), name))


@cache  # the DAG asks for the closure of every script; their modules overlap
def _imported_names(path: Path, name: str | None) -> frozenset[str]:
    found: set[str] = set()
    for level, module, names in _analyse(Path(path))[0]:
        if module is None and level == 0:  # import a.b, c
            found.update(names)
            continue
        if level:
            if name is None:
                continue
            anchor = _package_of(name, Path(path)).split(".")
            anchor = anchor[: len(anchor) - (level - 1)]
            base = ".".join(anchor + ([module] if module else []))
        else:
            base = module
        found.add(base)
        found.update(f"{base}.{alias}" for alias in names)
    return frozenset(n for n in found if n == PACKAGE or n.startswith(PACKAGE + "."))


def _with_parents(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: importing a module runs its packages' __init__."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def module_closure(script: str | Path, src: Path = SRC) -> dict[str, Path]:
    """Every package module ``script`` runs when it is executed: name -> file."""
    seen: dict[str, Path] = {}
    todo = [(None, Path(script))]
    while todo:
        own_name, path = todo.pop()
        for imported in _imported_names(path, own_name):
            for name in _with_parents(imported):
                if name in seen:
                    continue
                file = module_file(name, src)
                if file is not None:
                    seen[name] = file
                    todo.append((name, file))
    return dict(sorted(seen.items()))


@cache
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _code_version(script: Path, src: Path, data: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    digest.update(f"script {fingerprint(script)}\n".encode())
    for name, path in module_closure(script, src).items():
        digest.update(f"{name} {fingerprint(path)}\n".encode())
    for path in data:
        digest.update(f"data {path.name} {_file_digest(path)}\n".encode())
    ANALYSES.save()
    return digest.hexdigest()[:16]


def code_version(script: str | Path, src: str | Path = SRC, data=()) -> str:
    """A short hash of the code ``script`` runs: the script and the package modules
    it imports, each as a syntax tree without docstrings, and the bytes of the
    workflow's own ``data`` files it reads (e.g. workflow/resources/published.yaml). Equal
    versions mean the same code; see the module docstring for what does and does not
    count. Paths never enter the hash, so a moved checkout has the same versions."""
    files = tuple(Path(d).resolve() for d in data)
    return _code_version(Path(script).resolve(), Path(src).resolve(), files)


def describe(script: str | Path, src: str | Path = SRC) -> list[str]:
    """The package modules behind ``script``'s version, for a person to read."""
    return list(module_closure(Path(script).resolve(), Path(src).resolve()))


if __name__ == "__main__":  # python -m gatedrnn.code_version workflow/scripts/train.py
    import sys

    for arg in sys.argv[1:]:
        if not os.path.isfile(arg):
            sys.exit(f"ERROR: {arg} is not a file: give a rule script, e.g. workflow/scripts/train.py")
        print(f"{arg}: {code_version(arg)}")
        for module in describe(arg):
            print(f"  {module}")
