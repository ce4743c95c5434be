"""The config as the user wrote it, before the schema sees it: the files and ``--config``.

- A key given twice in one mapping of a config file (two ``train:`` blocks) is an error:
  PyYAML, and so Snakemake, keep the last one silently, and an edit to the first does
  nothing (:class:`UniqueKeyLoader`, :func:`config_file_problem`). The shipped YAML files
  are held to the same rule by tests/test_faults_config.py.
- An empty file, or one that is not a mapping, is named (Snakemake's own words name no
  file).
- ``--config train='{steps: 1600}'``: Snakemake reads a nested value with YAML's base
  loader, so every number in it arrives as a string (``'1600'``). :func:`typed_overrides`
  reads such a string as YAML where the schema does not take a string there and does
  take what it reads as (``1600``); a string the schema takes (``corpus.path: 2024``)
  stays a string.
- A whole number written with a decimal point (``steps: 40.0``), which JSON Schema takes
  for an integer, is refused where the schema asks for one (:func:`refuse_float_integers`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path

import yaml

from gatedrnn.plan.values import ConfigError

# libyaml's safe loader where PyYAML has it: the schema is read each time the DAG is
# built (about 0.4 s with the pure-Python loader, every snakemake call)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML, but a key given twice in one mapping is a ConstructorError naming the key."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        twice = sorted({str(k) for k in keys if keys.count(k) > 1})
        if twice:
            raise yaml.constructor.ConstructorError(
                None, None, f"key(s) {', '.join(twice)} given twice", node.start_mark
            )
        return super().construct_mapping(node, deep=deep)


def config_file_problem(path) -> str | None:
    """What is wrong with config file ``path`` as a whole (empty, not a mapping, a key
    given twice, not YAML), naming the file and the fix; None if nothing."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return f"config file {path} cannot be read ({err}); give a readable UTF-8 YAML file"
    try:
        loaded = yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.constructor.ConstructorError as err:
        line = f" (line {err.problem_mark.line + 1})" if err.problem_mark else ""
        return (
            f"config file {path}: {err.problem}{line}; YAML keeps only the last of them, so an "
            "edit to the first would do nothing: merge them into one block"
        )
    except yaml.YAMLError as err:
        return f"config file {path} is not valid YAML ({err}); fix its syntax"
    if loaded is None:
        return (
            f"config file {path} is empty; give it the keys it changes at top level "
            "(train:, grid:, ...: config/README.md), or leave it out"
        )
    if not isinstance(loaded, Mapping):
        kind = type(loaded).__name__
        return f"config file {path} holds a {kind}, not keys at top level; write `key: value` lines"
    return None


def refuse_config_files(paths, error: type[Exception] = ConfigError) -> None:
    """Refuse (``error``) the first of ``paths`` with a :func:`config_file_problem`."""
    for path in paths:
        problem = config_file_problem(path)
        if problem:
            raise error(f"Error validating config file: {problem}")


def refuse_float_integers(config: Mapping, schema_path, error: type[Exception] = ConfigError) -> None:
    """JSON Schema counts 40.0 as an integer; range(), tensor shapes and file names
    (s0.0) do not. Refuse (``error``) a decimal point wherever the schema at
    ``schema_path`` asks for an integer, naming the key."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", lambda _, value: type(value) is int)
    strict = jsonschema.validators.extend(base, type_checker=checker)
    schema = yaml.load(Path(schema_path).read_text(), Loader=SAFE_LOADER)
    for problem in strict(schema).iter_errors(config):
        key = ".".join(str(part) for part in problem.absolute_path)
        raise error(
            f"Error validating config file: {key} is {problem.instance!r}, not an integer; "
            "write integer settings without a decimal point (40, not 40.0)."
        )


# ------------------------------------------------------------------ --config values


def _resolve(schema: Mapping, node: Mapping) -> Mapping:
    while "$ref" in node:
        target = schema
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = {**{k: v for k, v in node.items() if k != "$ref"}, **target}
    return node


def _child(schema: Mapping, node: Mapping, key) -> Mapping:
    node = _resolve(schema, node)
    if isinstance(key, int):
        return _resolve(schema, node.get("items", {}))
    if key in node.get("properties", {}):
        return _resolve(schema, node["properties"][key])
    extra = node.get("additionalProperties", {})
    return _resolve(schema, extra) if isinstance(extra, Mapping) else {}


def keys_the_schema_lacks(
    config: dict, schema: Mapping, node: Mapping | None = None, at: str = ""
) -> list[str]:
    """Dotted paths of ``config``'s keys that the schema does not allow (an object with
    ``additionalProperties: false`` and no such property), removed from ``config`` in place:
    a config recorded under an older schema (a reference's) run under this one."""
    node = _resolve(schema, schema if node is None else node)
    dropped = []
    for key in list(config):
        path = f"{at}{key}"
        if node.get("additionalProperties", True) is False and key not in node.get("properties", {}):
            del config[key]
            dropped.append(path)
        elif isinstance(config[key], dict):
            dropped += keys_the_schema_lacks(config[key], schema, _child(schema, node, key), path + ".")
    return dropped


def typed_overrides(overrides, schema: Mapping):
    """``overrides`` (Snakemake's parsed ``--config``) with every nested string that the
    schema refuses, but whose YAML reading it takes, replaced by that reading."""
    import jsonschema

    defs = {"$defs": schema.get("$defs", {})}

    def valid(node, value) -> bool:
        return jsonschema.Draft202012Validator({**defs, **node}).is_valid(value)

    def typed(value, node, depth):
        node = _resolve(schema, node)
        if isinstance(value, Mapping):
            return {k: typed(v, _child(schema, node, k), depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [typed(v, _child(schema, node, i), depth + 1) for i, v in enumerate(value)]
        if depth == 0 or not isinstance(value, str) or not node or valid(node, value):
            return value
        try:
            read = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        return read if valid(node, read) else value

    return {key: typed(value, _child(schema, schema, key), 0) for key, value in dict(overrides).items()}


def retype_overrides(config: dict, overrides: Mapping, schema: Mapping) -> None:
    """Give ``config`` the :func:`typed_overrides` of ``overrides`` in place, wherever it
    still holds the string ``--config`` gave (a module's own config is left alone)."""

    def put(target, raw, typed):
        for key, value in raw.items():
            if key not in target:
                continue
            if isinstance(value, Mapping) and isinstance(target[key], Mapping):
                put(target[key], value, typed[key])
            elif target[key] == value and typed[key] != value:
                target[key] = copy.deepcopy(typed[key])

    put(config, dict(overrides), typed_overrides(overrides, schema))
