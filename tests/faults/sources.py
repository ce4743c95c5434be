"""Corpus sources, good and hostile: tarballs built member by member, an HTTP server on
loopback, a port with nothing listening and a server that never answers."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import socket
import tarfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tarball(members: list[tuple[str, bytes | None, dict]]) -> bytes:
    """A .tar.gz of ``(name, data, tarinfo attributes)``; data None for links and the like.
    Names go in exactly as given (``tarfile.add`` would strip a leading slash)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data, attributes in members:
            info = tarfile.TarInfo(name)
            for key, value in attributes.items():
                setattr(info, key, value)
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def member_names(archive: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
        return tar.getnames()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@contextlib.contextmanager
def http_server(directory: Path):
    """Serve ``directory`` on 127.0.0.1 (a free port) from a thread; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def closed_port() -> int:
    """A loopback port with nothing listening (bound for a moment, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def silent_server():
    """A loopback port that accepts connections (the kernel completes the handshake from
    the backlog) but never answers: a download from it can only time out."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
