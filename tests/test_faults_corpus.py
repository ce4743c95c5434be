"""Corpus faults through the real ``corpus`` rule (the snakemake CLI, sources file and url).

Every bad source must stop the run with one clear ``ERROR:`` line naming the problem
and the fix (on the console and in results/logs/corpus.log, no traceback), leave no
corpus file behind, and run nothing downstream (results/tables/matched_widths.csv
needs the corpus and is asked for in the same command).
"""

from __future__ import annotations

import json
import re
import tarfile

import pytest
from conftest import run_snakemake
from faults.runs import write_config
from faults.sources import closed_port, http_server, member_names, sha256, silent_server, tarball

pytestmark = pytest.mark.workflow

TARGETS = ("data/corpus.txt", "results/tables/matched_widths.csv")
PLAYS = {
    "pkg/texts/a_gut.txt": "To be, or not to be, that is the question.\n" * 40,
    "pkg/texts/b_gut.txt": "Now is the winter of our discontent.\n" * 40,
}
MEMBERS = "pkg/texts/*_gut.txt"
GOOD_MEMBERS = [(name, text.encode(), {}) for name, text in PLAYS.items()]
ANY_SHA = "0" * 64


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    directory = tmp_path_factory.mktemp("served")
    with http_server(directory) as base_url:
        yield directory, base_url


def corpus_run(tmp_path, corpus: dict, *args):
    configfile = write_config(tmp_path / "config.yaml", {"corpus": {"members": "*", "timeout": 5, **corpus}})
    workdir = tmp_path / "run"
    workdir.mkdir(exist_ok=True)
    proc = run_snakemake(workdir, "--cores", "1", *TARGETS, *args, configfile=configfile, check=False)
    return workdir, proc.returncode, proc.stdout + proc.stderr


def assert_refused_cleanly(workdir, rc, output, fragments):
    assert rc != 0, output[-3000:]
    assert "Error in rule corpus" in output
    log = (workdir / "results/logs/corpus.log").read_text()
    assert "ERROR: " in log and "Traceback" not in log, log
    for fragment in fragments:
        assert fragment in log, f"{fragment!r} not in the log:\n{log}"
        assert fragment in output, f"{fragment!r} not in snakemake's output"
    left = [p for p in (workdir / "data").rglob("*") if p.is_file()] if (workdir / "data").exists() else []
    assert not left, f"corpus files left behind: {left}"
    assert not (workdir / "results/tables/matched_widths.csv").exists()
    assert not (workdir / "results/logs/matched_widths.log").exists()
    assert not re.search(r"^\s*(local)?rule matched_widths:", output, re.M), "a downstream job started"


def file_source(tmp_path, data: bytes, sha: str | None = None) -> dict:
    path = tmp_path / "source.bin"
    path.write_bytes(data)
    return {"source": "file", "path": str(path), "sha256": sha256(data) if sha is None else sha}


def bad_tarball(extra) -> bytes:
    archive = tarball([*GOOD_MEMBERS, extra])
    assert extra[0] in member_names(archive)  # the hostile name went in as written
    return archive


# Each case: (how to make the source, what the message must say).
CASES = {
    "checksum mismatch": (
        lambda tmp, srv: file_source(tmp, b"The pinned text.\n" * 50, sha=sha256(b"another text")),
        ["checksum mismatch", "expected sha256 " + sha256(b"another text"), "corpus.sha256"],
    ),
    "unreachable url (nothing listening)": (
        lambda tmp, srv: {
            "source": "url",
            "url": f"http://127.0.0.1:{closed_port()}/t.txt",
            "sha256": ANY_SHA,
        },
        ["could not download the corpus from http://127.0.0.1:", "Connection refused", "corpus.source: file"],
    ),
    "url not found (404)": (
        lambda tmp, srv: {"source": "url", "url": f"{srv[1]}/no-such-file.txt", "sha256": ANY_SHA},
        ["could not download the corpus from", "File not found", "corpus.source: file"],
    ),
    "url that never answers": (
        lambda tmp, srv: {"source": "url", "url": f"{srv[2]}/t.txt", "sha256": ANY_SHA, "timeout": 1},
        ["could not download the corpus from", "timed out", "corpus.source: file"],
    ),
    "tar member escaping with ../": (
        lambda tmp, srv: {
            **file_source(tmp, bad_tarball(("pkg/texts/../../../evil_gut.txt", b"owned\n", {}))),
            "members": MEMBERS,
        },
        ["unsafe archive", "'pkg/texts/../../../evil_gut.txt'", "outside the archive", "trusted archive"],
    ),
    "tar member with an absolute path": (
        lambda tmp, srv: {
            **file_source(tmp, bad_tarball(("/tmp/evil_gut.txt", b"owned\n", {}))),
            "members": MEMBERS,
        },
        ["unsafe archive", "'/tmp/evil_gut.txt'", "outside the archive", "trusted archive"],
    ),
    "tar member that is a symlink": (
        lambda tmp, srv: {
            **file_source(
                tmp,
                bad_tarball(
                    ("pkg/texts/c_gut.txt", None, {"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"})
                ),
            ),
            "members": MEMBERS,
        },
        ["unsafe archive", "'pkg/texts/c_gut.txt' is a link", "trusted archive"],
    ),
    "empty corpus": (
        lambda tmp, srv: file_source(tmp, b""),
        ["is empty", "choose a source with text in it"],
    ),
    "bytes that are not UTF-8": (
        lambda tmp, srv: file_source(tmp, "Café au lait, s'il vous plaît.\n".encode("latin-1") * 20),
        ["is not valid UTF-8", "byte 3", "convert it to UTF-8"],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_corpus_source_is_refused_cleanly(case, served, tmp_path, fault_ledger):
    make, fragments = CASES[case]
    name = fault_ledger.tried(f"corpus: {case}")
    with silent_server() as silent:
        corpus = make(tmp_path, (*served, silent))
        workdir, rc, output = corpus_run(tmp_path, corpus)
    assert_refused_cleanly(workdir, rc, output, fragments)
    fault_ledger.rejected(name)


def test_corpus_over_http_then_a_changed_upstream_file(served, tmp_path, fault_ledger):
    """The success path through the real ``url`` code (a tarball on a loopback server);
    then the file changes upstream and a forced refetch refuses it without keeping the
    old corpus."""
    directory, base_url = served
    archive = tarball(GOOD_MEMBERS + [("pkg/metadata.txt", b"not a play\n", {})])
    (directory / "plays.tar.gz").write_bytes(archive)
    corpus = {
        "source": "url",
        "url": f"{base_url}/plays.tar.gz",
        "sha256": sha256(archive),
        "members": MEMBERS,
    }
    workdir, rc, output = corpus_run(tmp_path, corpus)
    assert rc == 0, output[-4000:]
    text = (workdir / "data/corpus.txt").read_text(encoding="utf-8")
    assert text == "\n\n".join(PLAYS[name] for name in sorted(PLAYS))
    provenance = json.loads((workdir / "data/corpus.json").read_text())
    assert provenance["url"] == corpus["url"] and provenance["archive_sha256"] == sha256(archive)
    assert provenance["members"] == sorted(PLAYS)
    assert (workdir / "results/tables/matched_widths.csv").is_file()

    name = fault_ledger.tried("corpus: the pinned url changed upstream (forced refetch)")
    (directory / "plays.tar.gz").write_bytes(tarball(GOOD_MEMBERS[:1]))
    workdir, rc, output = corpus_run(tmp_path, corpus, "--forcerun", "corpus")
    assert rc != 0 and "checksum mismatch" in output and "corpus.sha256" in output
    assert not (workdir / "data/corpus.txt").exists() and not (workdir / "data/corpus.json").exists()
    fault_ledger.rejected(name)
