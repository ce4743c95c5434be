"""The alphabet check (issue #17): the vocabulary the study's parameter counts imply
(gatedrnn.tables.alphabet, gatedrnn.claims.counts), the corpus inventory
(gatedrnn.io.inventory), and the two rules on the smoke config."""

from __future__ import annotations

import copy
import fnmatch
import io
import json
import math
import tarfile

import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO, SMOKE_CONFIG, run_snakemake
from torch import nn

from gatedrnn.claims import ClaimError, load_claims, parse_claims
from gatedrnn.claims.counts import published_counts
from gatedrnn.core.sizes import model_parameters
from gatedrnn.errors import CorpusError
from gatedrnn.io.corpus import CorpusSpec, build_corpus
from gatedrnn.io.inventory import build_inventory, write_inventory
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.plan import ALPHABET_CHECK, Plan
from gatedrnn.tables.alphabet import (
    alphabet_check_table,
    candidate_rows,
    configured_row,
    implied_vocabulary,
    vocabulary_line,
)

DEFAULT = yaml.safe_load(DEFAULT_CONFIG.read_text())
SMOKE = yaml.safe_load(SMOKE_CONFIG.read_text())
COUNTS_TABLE = "results/tables/gru_vs_lstm.csv"
RECURRENT = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}


def torch_parameters(cell: str, width: int, vocab: int, embed_dim: int = 128, norm: bool = False) -> int:
    """The model's parameters counted by PyTorch on its own modules (not CharModel);
    ``norm``: with LayerNorm(width) before the read-out."""
    modules = [nn.Embedding(vocab, embed_dim), RECURRENT[cell](embed_dim, width), nn.Linear(width, vocab)]
    modules += [nn.LayerNorm(width)] if norm else []
    return sum(p.numel() for module in modules for p in module.parameters())


CONFIGURED = {"embed_dim": 128, "readout_norm": "layernorm", "vocabulary": "printable", "vocab_size": 100}


def study_counts() -> list[dict]:
    plan = Plan.from_config(DEFAULT)
    claims = [c.fill(plan.claim_models) for c in load_claims(REPO / "workflow/resources/published.yaml")]
    return published_counts(claims, COUNTS_TABLE, "params")


# ------------------------------------------------------------------ the published counts


def test_the_published_counts_are_the_three_d3_claims():
    counts = {c["claim"]: c for c in study_counts()}
    published = {c.id: c.published for c in load_claims(REPO / "workflow/resources/published.yaml")}
    assert set(counts) == {f"D3.gru_vs_lstm.{m}.params" for m in ("gru_budget", "gru_w325", "lstm")}
    for claim, count in counts.items():
        assert count["published"] == published[claim]
    budget = counts["D3.gru_vs_lstm.gru_budget.params"]
    # the study's matched width, not this run's: the A4 claim's published value
    assert budget["width"] == published["A4.matched_widths.gru_budget.width"]
    assert budget["width_from"] == "A4.matched_widths.gru_budget.width"
    assert counts["D3.gru_vs_lstm.lstm.params"]["width"] == DEFAULT["grid"]["reference_width"]


@pytest.mark.parametrize("index", [0, 1, 2])
@pytest.mark.parametrize("readout_norm", ["none", "layernorm"])
def test_implied_vocabulary_agrees_with_pytorchs_own_count(index, readout_norm):
    count = study_counts()[index]
    cell, width, published = count["cell"], count["width"], count["published"]
    found = implied_vocabulary(published, cell, width, readout_norm=readout_norm)
    nearest = found["nearest_vocab"]
    # PyTorch's count at the nearest integer vocabulary and the next one
    norm = readout_norm == "layernorm"
    at_nearest = torch_parameters(cell, width, nearest, norm=norm)
    per_character = torch_parameters(cell, width, nearest + 1, norm=norm) - at_nearest
    assert found["nearest_params"] == at_nearest
    assert found["params_difference"] == published - at_nearest
    solved = nearest + (published - at_nearest) / per_character
    assert found["implied_vocab"] == pytest.approx(solved, abs=1e-9)
    assert abs(found["implied_vocab"] - nearest) <= 0.5
    assert per_character == 128 + width + 1  # one embedding row, one output column and bias
    if norm:  # the study's model: every count is exactly 100 characters
        assert (found["implied_vocab"], found["params_difference"]) == (100, 0)


def test_the_vocabulary_line_is_the_closed_form():
    slope, intercept = vocabulary_line("lstm", 325)
    for vocab in (1, 84, 101, 5000):
        assert intercept + slope * vocab == model_parameters("lstm", 325, vocab)


def test_the_study_model_gives_the_reference_tables_own_counts_and_the_studys():
    """The committed reference is trained on the study's model (issue 27): the formula
    and PyTorch's own modules give the params column of its gru_vs_lstm.csv, and those
    are the study's printed counts."""
    reference = pd.read_csv(REPO / "reference/tables/gru_vs_lstm.csv").set_index("model")
    vocab, embed = CONFIGURED["vocab_size"], CONFIGURED["embed_dim"]
    for count in study_counts():
        row = reference.loc[count["model"]]
        width = int(row["width"])
        assert model_parameters(row["cell"], width, vocab, embed) == row["params"]
        assert torch_parameters(row["cell"], width, vocab, embed, norm=True) == row["params"]
        assert row["params"] == count["published"]


def test_a_count_below_the_recurrent_layer_is_refused():
    with pytest.raises(ValueError, match="fewer than"):
        implied_vocabulary(1000, "lstm", 325)


def test_a_budget_model_needs_a_published_width():
    entry = {"id": "x.params", "experiment": "D3", "description": "d", "rule": "within", "published": 10,
             "table": COUNTS_TABLE, "column": "params", "where": {"model": "gru_budget325"},
             "tolerance": {"rel": 0.1}}  # fmt: skip
    with pytest.raises(ClaimError, match="no claim publishes it"):
        published_counts(parse_claims({"claims": [entry]}), COUNTS_TABLE)
    width = {**entry, "id": "x.width", "column": "width", "published": 40, "table": "other.csv"}
    (count,) = published_counts(parse_claims({"claims": [entry, width]}), COUNTS_TABLE)
    assert (count["cell"], count["width"], count["width_from"]) == ("gru", 40, "x.width")
    with pytest.raises(ClaimError, match="no claim publishes column"):
        published_counts(parse_claims({"claims": [width]}), COUNTS_TABLE)


# ------------------------------------------------------------------ the inventory

TEXTS = {
    "pkg-1/texts/b_gut.txt": "Second, Zed.\n",
    "pkg-1/texts/a_gut.txt": "first\r\nline — ünï",
    "pkg-1/texts/a_gut_f.txt": "folio ſ",
    "pkg-1/other/notes.txt": "{notes}",
}
BINARY = {
    "pkg-1/img/logo.png": b"\x89PNG\r\n\x1a\n\xff\x00",
    "pkg-1/texts/latin1.txt": "café".encode("latin-1"),
}


def make_archive(path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        directory = tarfile.TarInfo("pkg-1/texts")
        directory.type = tarfile.DIRTYPE
        tar.addfile(directory)
        for name, data in [*((n, t.encode("utf-8")) for n, t in TEXTS.items()), *BINARY.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("pkg-1/link.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "texts/b_gut.txt"
        tar.addfile(link)


def file_spec(path, members="*/texts/*_gut.txt") -> CorpusSpec:
    return CorpusSpec.from_config({"source": "file", "path": str(path), "members": members})


def test_inventory_lists_text_members_and_skips_the_rest(tmp_path):
    make_archive(tmp_path / "a.tar.gz")
    record = write_inventory(file_spec(tmp_path / "a.tar.gz"), tmp_path / "inventory.json")
    assert json.loads((tmp_path / "inventory.json").read_text(encoding="utf-8")) == record
    assert record["archive"] is True
    assert [m["name"] for m in record["members"]] == sorted(TEXTS)
    for member in record["members"]:
        text = TEXTS[member["name"]]
        assert (member["characters"], member["vocab_size"]) == (len(text), len(set(text)))
        assert set(member["vocabulary"]) == set(text)
    skipped = {s["name"]: s["reason"] for s in record["skipped"]}
    assert set(skipped) == {*BINARY, "pkg-1/link.txt"}
    assert "not valid UTF-8" in skipped["pkg-1/texts/latin1.txt"] and skipped["pkg-1/link.txt"] == "link"


def test_candidate_alphabets_are_those_of_the_joined_texts(tmp_path):
    make_archive(tmp_path / "a.tar.gz")
    inventory = build_inventory(file_spec(tmp_path / "a.tar.gz"))
    candidates = {"modern": "*/texts/*_gut.txt", "both": "*/texts/*_gut*.txt", "one": "*/b_gut.txt",
                  "every": "*.txt", "texts": "*/texts/*", "none": "*.xml"}  # fmt: skip
    rows = {row["name"]: row for row in candidate_rows(inventory, candidates, implied=[9.0, 10.0])}
    for name, pattern in candidates.items():
        names = sorted(n for n in TEXTS if fnmatch.fnmatchcase(n, pattern))
        joined = "\n\n".join(TEXTS[n] for n in names)
        row = rows[name]
        found = (row["members"], row["characters"], row["vocab_size"])
        assert found == (len(names), len(joined), len(set(joined)))
        expected = sum(abs(len(set(joined)) - v) for v in (9.0, 10.0)) / 2 if names else math.nan
        assert row["distance"] == pytest.approx(expected, nan_ok=True)
    assert rows["texts"]["skipped_members"] == 1 and rows["modern"]["skipped_members"] == 0
    assert math.isnan(rows["none"]["distance"]) and not rows["none"]["closest"]
    best = min(r["distance"] for r in rows.values() if r["members"])
    assert [r["closest"] for r in rows.values()] == [r["distance"] == best for r in rows.values()]
    assert sum(r["closest"] for r in rows.values()) >= 1


def test_the_configured_row_is_the_corpus_rules_own_corpus(tmp_path):
    make_archive(tmp_path / "a.tar.gz")
    spec = file_spec(tmp_path / "a.tar.gz")
    inventory = build_inventory(spec)
    text, provenance = build_corpus(spec)
    row = configured_row(inventory, provenance, spec.members, implied=[float(len(set(text)))])
    assert (row["characters"], row["vocab_size"], row["distance"]) == (len(text), len(set(text)), 0.0)
    # an inventory of another source cannot stand for this corpus
    _, other = build_corpus(file_spec(tmp_path / "a.tar.gz", "*/texts/*_gut*.txt"))
    with pytest.raises(ValueError, match="rebuild both"):
        configured_row(inventory, other, spec.members, implied=[])


def test_plain_and_synthetic_sources_are_one_member(tmp_path):
    (tmp_path / "input.txt").write_text("To be, or not.\n", encoding="utf-8")
    plain = build_inventory(file_spec(tmp_path / "input.txt"))
    assert [(m["name"], m["characters"]) for m in plain["members"]] == [("input.txt", 15)]
    assert plain["archive"] is False
    synthetic = build_inventory(CorpusSpec.from_config(SMOKE["corpus"]))
    text = synthetic_prose(SMOKE["corpus"]["synthetic_chars"], SMOKE["corpus"]["synthetic_seed"])
    (member,) = synthetic["members"]
    assert (member["name"], member["vocab_size"]) == ("synthetic", len(set(text)))
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9")
    with pytest.raises(CorpusError, match="not valid UTF-8"):
        build_inventory(file_spec(tmp_path / "bad.txt"))


def test_the_inventory_refuses_what_the_corpus_rule_refuses(tmp_path):
    make_archive(tmp_path / "a.tar.gz")
    spec = CorpusSpec.from_config({"source": "file", "path": str(tmp_path / "a.tar.gz"), "sha256": "0" * 64})
    with pytest.raises(CorpusError, match="checksum mismatch"):
        build_inventory(spec)
    with pytest.raises(CorpusError, match="sha256 is required"):
        build_inventory(CorpusSpec.from_config({"source": "url", "url": "https://example.org/x.txt"}))


def test_the_table_has_one_row_per_count_candidate_and_corpus(tmp_path):
    make_archive(tmp_path / "a.tar.gz")
    spec = file_spec(tmp_path / "a.tar.gz")
    _, provenance = build_corpus(spec)
    counts = study_counts()
    inventory = build_inventory(spec)
    table = alphabet_check_table(
        counts, inventory, {"modern": spec.members}, provenance, spec.members, CONFIGURED
    )
    assert list(table["kind"]) == KINDS
    assert table.loc[table["kind"] == "candidate", "closest"].tolist() == [True]
    published = table[table["kind"] == "published"]
    assert (published["params_at_corpus_vocab"] == [
        model_parameters(c["cell"], c["width"], provenance["vocab_size"]) for c in counts
    ]).all()  # fmt: skip
    # the study's model has every count; torch's own modules agree
    assert (published["configured_difference"] == 0).all()
    assert list(published["configured_params"]) == [
        torch_parameters(c["cell"], c["width"], 100, norm=True) for c in counts
    ]
    (model,) = table[table["kind"] == "configured_model"].itertuples()
    assert bool(model.reproduces) and model.configured_difference == 0
    old = alphabet_check_table(counts, inventory, {}, provenance, spec.members,
                               CONFIGURED | {"readout_norm": "none", "vocab_size": 84})  # fmt: skip
    (model,) = old[old["kind"] == "configured_model"].itertuples()
    misses = [
        c["published"] - model_parameters(c["cell"], c["width"], 84, readout_norm="none") for c in counts
    ]
    assert not bool(model.reproduces) and model.configured_difference == max(misses, key=abs) > 0


KINDS = ["published"] * 3 + ["derivation"] * 9 + ["configured_model", "joint_fit", "candidate", "configured"]


def test_the_derivation_solves_e_biases_v_and_k_from_the_counts_alone():
    """Counts PyTorch's modules give for a known model (E, V, a LayerNorm's 2 per unit) come
    back as that model, the only whole solution; the study's counts give E 128, 2 biases,
    V 100, k 2."""
    from gatedrnn.tables.alphabet import derivation_rows

    def solved(counts, configured=CONFIGURED):
        return {r["name"]: r["value"] for r in derivation_rows(counts, configured)}

    study = solved(study_counts())
    assert {k: study[k] for k in ("embed_dim", "biases_per_gate_block", "vocab_size", "per_unit_params")} == {
        "embed_dim": 128, "biases_per_gate_block": 2, "vocab_size": 100, "per_unit_params": 2}  # fmt: skip
    assert (study["solutions"], study["largest_miss"]) == (1, 0)
    assert study["rest_per_unit"] == pytest.approx(102) and study["rest_at_width_0"] == pytest.approx(12_900)
    made = [{"model": f"{c}_w{w}", "cell": c, "width": w, "published": torch_parameters(c, w, 65, 64, norm)}
            for c, w in (("gru", 90), ("gru", 70), ("lstm", 70)) for norm in [False]]  # fmt: skip
    found = solved(made, CONFIGURED | {"embed_dim": 64})
    assert (found["embed_dim"], found["vocab_size"], found["per_unit_params"], found["largest_miss"]) == (
        64, 65, 0, 0)  # fmt: skip
    # one width, or no two cells at one width: nothing to solve
    assert derivation_rows(made[:1], CONFIGURED) == [] and derivation_rows(made[:2], CONFIGURED) == []


# ------------------------------------------------------------------ the plan and the rules


def test_the_table_is_a_protocol_target_while_enabled():
    assert Plan.from_config(DEFAULT).targets["protocol"][0] == ALPHABET_CHECK
    off = copy.deepcopy(DEFAULT)
    off["protocol"]["enabled"] = False
    assert Plan.from_config(off).targets["protocol"] == []


@pytest.mark.workflow
def test_the_rules_on_the_smoke_config(tmp_path):
    run_snakemake(tmp_path, "--cores", "1", ALPHABET_CHECK)
    table = pd.read_csv(tmp_path / ALPHABET_CHECK)
    provenance = json.loads((tmp_path / "data/corpus.json").read_text())
    inventory = json.loads((tmp_path / "data/corpus_inventory.json").read_text(encoding="utf-8"))
    assert [m["name"] for m in inventory["members"]] == ["synthetic"]
    assert list(table["kind"]) == KINDS
    candidate = table[table["kind"] == "candidate"].iloc[0]
    assert candidate["name"] == "all" and bool(candidate["closest"])
    assert candidate["vocab_size"] == provenance["vocab_size"] == inventory["members"][0]["vocab_size"]
    # the smoke model's embedding (16) and the study's counts: the same formula, solved
    published = table[table["kind"] == "published"]
    for row in published.itertuples():
        found = implied_vocabulary(
            row.published_params, row.cell, row.width, SMOKE["train"]["embed_dim"],
            readout_norm=SMOKE["train"]["readout_norm"],
        )  # fmt: skip
        assert row.implied_vocab == pytest.approx(found["implied_vocab"])
    # the rules train nothing
    assert not (tmp_path / "results/models").exists()


def test_the_joint_fit_solves_every_count_at_once_and_torch_agrees():
    """Counts made by PyTorch modules with a known vocabulary and a LayerNorm (two
    parameters per hidden unit) are fitted back to that vocabulary and k = 2, exactly."""
    import torch

    from gatedrnn.tables.alphabet import joint_fit

    def count(cell, width, vocab):
        torch.manual_seed(0)
        recurrent = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell](128, width)
        modules = [
            torch.nn.Embedding(vocab, 128),
            recurrent,
            torch.nn.LayerNorm(width),
            torch.nn.Linear(width, vocab),
        ]
        return sum(p.numel() for m in modules for p in m.parameters())

    counts = [
        {"cell": c, "width": w, "published": count(c, w, 97)}
        for c, w in (("gru", 381), ("gru", 325), ("lstm", 325))
    ]
    fit = joint_fit(counts, readout_norm="none")
    assert fit["nearest_vocab"] == 97 and fit["params_difference"] == 0
    assert fit["implied_vocab"] == pytest.approx(97, abs=1e-6)
    assert fit["extra_per_unit"] == pytest.approx(2, abs=1e-6)
    assert joint_fit(counts[:1]) is None  # one count cannot tell V from k
    # the configured model has the LayerNorm: nothing left per unit
    fit = joint_fit(counts)
    assert (fit["nearest_vocab"], fit["params_difference"]) == (97, 0)
    assert fit["extra_per_unit"] == pytest.approx(0, abs=1e-6)


def _page_words(tmp_path, implied, k):
    from gatedrnn.report.protocol_page import alphabet_part

    rows = [{"kind": "published", "model": f"m{i}", "width": 1, "published_params": 1, "implied_vocab": v,
             "nearest_vocab": round(v), "params_difference": 0} for i, v in enumerate(implied)]  # fmt: skip
    rows.append({"kind": "joint_fit", "implied_vocab": implied[0], "extra_per_unit": k, "nearest_vocab": 100,
                 "params_difference": 0})  # fmt: skip
    (tmp_path / "tables").mkdir(parents=True)
    pd.DataFrame(rows).assign(closest=False).to_csv(tmp_path / "tables" / "alphabet_check.csv", index=False)
    return alphabet_part(tmp_path)[0]


def test_the_page_says_one_whole_vocabulary_only_when_every_count_gives_it(tmp_path):
    """The results page's alphabet sentence is computed from the table: one whole number
    when the counts agree on it, the span otherwise; a fit's float noise reads as 0."""
    assert "each imply 100 characters" in _page_words(tmp_path / "a", [100.0, 100.0, 100.0], -3e-13)
    assert "k = 0;" in _page_words(tmp_path / "b", [100.0, 100.0, 100.0], -3e-13)
    mixed = _page_words(tmp_path / "c", [99.5, 100.0, 100.25], 1.5)
    assert "imply 99.5 to 100.2" in mixed and "not one whole number" in mixed, mixed
