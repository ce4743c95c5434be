"""Invalid configs, generated from the schema itself (hypothesis strategies).

Each strategy starts from the valid smoke config and breaks exactly one thing; it
returns ``(config, description, evidence)`` where ``evidence`` is the text the
refusal must contain to count as naming the offending key:

- a wrong value (wrong type or out of range) at a leaf: ``On instance['train']['lr']``;
- an unknown key in a closed mapping: ``'learnig_rate' was unexpected``;
- a missing required key: ``'steps' is a required property``;
- an unknown cell: ``On instance['grid']['models'][1]['cell']``.

Integer-valued floats (``steps: 40.0``) are not among the wrong values here: JSON
Schema counts them as integers, so ``snakemake.utils.validate`` accepts them and the
workflow refuses them in a second check of its own (workflow/rules/common.smk);
:func:`float_integer` makes those, for the command-line tests.
"""

from __future__ import annotations

import copy

import jsonschema
import yaml
from conftest import REPO
from hypothesis import strategies as st

SCHEMA_PATH = REPO / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())

Path_ = tuple  # a path into the config: keys and list indices


def resolve(node: dict) -> dict:
    while "$ref" in node:
        target = SCHEMA
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = {**{k: v for k, v in node.items() if k != "$ref"}, **target}
    return node


def child_schema(node: dict, key) -> dict:
    node = resolve(node)
    if isinstance(key, int):
        return resolve(node["items"])
    if key in node.get("properties", {}):
        return resolve(node["properties"][key])
    extra = node.get("additionalProperties", {})
    return resolve(extra) if isinstance(extra, dict) else {}  # a key the schema lacks


def get(config, path: Path_):
    for key in path:
        config = config[key]
    return config


def with_value(config: dict, path: Path_, value) -> dict:
    out = copy.deepcopy(config)
    get(out, path[:-1])[path[-1]] = value
    return out


def instance_text(path: Path_) -> str:
    """How jsonschema names a location in its message: ``On instance['a'][0]['b']``."""
    return "On instance" + "".join(f"[{part!r}]" for part in path)


def walk(config, node: dict, path: Path_ = ()):
    """(path, schema node, value) of every mapping, list and scalar in ``config``."""
    node = resolve(node)
    yield path, node, config
    if isinstance(config, dict):
        for key, value in config.items():
            yield from walk(value, child_schema(node, key), path + (key,))
    elif isinstance(config, list):
        for index, value in enumerate(config):
            yield from walk(value, child_schema(node, index), path + (index,))


def _is_valid(node: dict, value) -> bool:
    return jsonschema.Draft202012Validator({"$defs": SCHEMA.get("$defs", {}), **node}).is_valid(value)


def wrong_values(node: dict, current) -> list:
    """Values that break ``node``: wrong types, out of range, outside an enum or pattern
    (never an integer-valued float; see the module docstring)."""
    candidates = ["seven", "", True, None, [], {"a": 1}, -1, 0, 2.5, -0.5, 1.5, 1e9, "Bad-Name!", "ftp://x"]
    for bound in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        if bound in node:
            candidates += [node[bound], node[bound] - 1, node[bound] + 1, node[bound] + 0.5]
    if "enum" in node:
        candidates += [str(v).upper() for v in node["enum"]] + ["transformer"]
    if isinstance(current, list) and current:
        candidates += [[current[0], current[0]], [current[0], "x"], ["x"], [-1], [0.5]]
    unique = {}
    for value in candidates:
        if isinstance(value, float) and value.is_integer():
            continue
        if not _is_valid(node, value):
            unique.setdefault((type(value).__name__, repr(value)), value)  # True is not 1
    return list(unique.values())


def smoke_sites(config: dict) -> dict:
    """Where the smoke config can be broken, by kind of fault (with the wrong values of
    each leaf: computing them builds validators, so it is done once per config)."""
    leaves, closed, required = [], [], []
    for path, node, value in walk(config, SCHEMA):
        wrong = wrong_values(node, value) if path else []
        if wrong:
            leaves.append((path, node, value, wrong))
        if isinstance(value, dict):
            if node.get("additionalProperties") is False:
                closed.append((path, node))
            for key in node.get("required", []):
                if key in value:
                    required.append((path, key))
    cells = [path for path, _, _ in walk(config, SCHEMA) if path and path[-1] == "cell"]
    return {"leaves": leaves, "closed": closed, "required": required, "cells": cells}


KEY_NAMES = st.from_regex(r"\A[a-z][a-z_]{1,14}\Z")


@st.composite
def wrong_value(draw, config: dict, sites: dict):
    path, _, _, wrong = draw(st.sampled_from(sites["leaves"]))
    bad = draw(st.sampled_from(wrong))
    key = next(p for p in reversed(path) if isinstance(p, str))
    return with_value(config, path, bad), f"{'.'.join(map(str, path))} = {bad!r}", instance_text(path), key


@st.composite
def unknown_key(draw, config: dict, sites: dict):
    path, node = draw(st.sampled_from(sites["closed"]))
    known = set(node.get("properties", {}))
    key = draw(KEY_NAMES.filter(lambda k: k not in known))
    out = copy.deepcopy(config)
    get(out, path)[key] = draw(st.sampled_from([1, "x", 0.5, None, {}]))
    where = ".".join(map(str, path)) or "(top level)"
    return out, f"unknown key {key!r} in {where}", f"{key!r} was unexpected", key


@st.composite
def missing_key(draw, config: dict, sites: dict):
    path, key = draw(st.sampled_from(sites["required"]))
    out = copy.deepcopy(config)
    del get(out, path)[key]
    where = ".".join(map(str, path + (key,)))
    return out, f"missing {where}", f"{key!r} is a required property", key


@st.composite
def unknown_cell(draw, config: dict, sites: dict):
    path = draw(st.sampled_from(sites["cells"]))
    cell = draw(KEY_NAMES.filter(lambda c: c not in ("rnn", "gru", "lstm")))
    return with_value(config, path, cell), f"unknown cell {cell!r}", instance_text(path), "cell"


def invalid_configs(config: dict):
    """One broken thing per config: (config, description, evidence, offending key)."""
    sites = smoke_sites(config)
    return st.one_of(*(kind(config, sites) for kind in (wrong_value, unknown_key, missing_key, unknown_cell)))


def _integer_sites(config: dict) -> list:
    def wants_integer(node: dict) -> bool:
        options = [node] + [resolve(option) for option in node.get("oneOf", [])]
        return any(option.get("type") == "integer" for option in options)

    return [
        (path, value)
        for path, node, value in walk(config, SCHEMA)
        if type(value) is int and wants_integer(node)
    ]


@st.composite
def float_integer(draw, config: dict):
    """An integer setting written as a float (``steps: 40.0``): valid JSON Schema,
    refused by the workflow's own check."""
    path, value = draw(st.sampled_from(_integer_sites(config)))
    dotted = ".".join(map(str, path))
    return (
        with_value(config, path, float(value)),
        f"{dotted} = {float(value)!r}",
        f"{dotted} is {float(value)!r}",
    )
