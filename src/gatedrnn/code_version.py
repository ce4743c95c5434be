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

Pure standard library, no import of the package itself: planning the full DAG
parses each module once (cached), which costs milliseconds.
"""

from __future__ import annotations

import ast
import hashlib
import os
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
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=str(path))
    imports = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            imports.append((0, None, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.level, node.module, tuple(alias.name for alias in node.names)))
    digest = hashlib.sha256(ast.dump(_strip_docstrings(tree)).encode()).hexdigest()
    return tuple(imports), digest


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
