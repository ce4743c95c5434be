"""The config schema documents every setting: each property has a description, and
each setting config/config.yaml gives has that value as its `default`, so the
schema (what the workflow catalog renders) and the config cannot drift apart.
The walk is generic: a property added to both is checked without a change here."""

from __future__ import annotations

import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO

SCHEMA = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
CONFIG = yaml.safe_load(DEFAULT_CONFIG.read_text())


def properties(node: dict, path: tuple[str, ...] = ()):
    """(dotted path, schema node) of every property under ``node``: the properties of
    objects, of a map's values (``*``) and of a list's items (``[]``)."""
    for name, child in node.get("properties", {}).items():
        yield (*path, name), child
        yield from properties(child, (*path, name))
    if isinstance(node.get("additionalProperties"), dict):
        yield from properties(node["additionalProperties"], (*path, "*"))
    if isinstance(node.get("items"), dict):
        yield from properties(node["items"], (*path, "[]"))


def is_setting(node: dict) -> bool:
    """A value the config gives whole (not an object whose keys are properties)."""
    return "properties" not in node


def defaults(node: dict) -> dict:
    """The config the schema's defaults make: each object's properties, recursively."""
    made = {}
    for name, child in node.get("properties", {}).items():
        made[name] = child["default"] if is_setting(child) and "default" in child else defaults(child)
    return made


ALL = list(properties(SCHEMA))


def test_the_walk_sees_every_property():
    assert len(ALL) > 90
    assert ("train", "lr") in {path for path, _ in ALL}


@pytest.mark.parametrize("path", [".".join(path) for path, _ in ALL])
def test_every_property_has_a_description(path):
    node = dict(ALL)[tuple(path.split("."))]
    assert str(node.get("description", "")).strip(), f"{path} has no description"


def test_config_yaml_is_the_schemas_defaults():
    assert defaults(SCHEMA) == CONFIG


def test_every_default_is_valid_under_its_own_schema():
    import jsonschema

    jsonschema.Draft202012Validator(SCHEMA).validate(defaults(SCHEMA))
