"""A small headless-Chromium driver for tests, over the DevTools protocol on a pipe.

Chromium started with ``--remote-debugging-pipe`` reads protocol messages on fd 3
and writes them on fd 4, each a JSON object ended by a NUL byte; no websocket
library, no network port. Enough for a test to open a page, run JavaScript in it,
click, wait for something to render and take a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
]


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process and one page; use as a context manager."""

    def __init__(
        self, executable: str = CHROMIUM, width: int = 1600, height: int = 1000, timeout: float = 60
    ):
        self.executable = executable
        self.width, self.height = width, height
        self.timeout = timeout
        self._next_id = 0
        self._buffer = b""
        self.console: list[str] = []
        self.exceptions: list[str] = []

    # ------------------------------------------------------------------ process
    def __enter__(self) -> Browser:
        self._profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def give_pipes():  # runs in the child: the protocol's fds 3 (in) and 4 (out)
            # Copy both ends above 4 first: a pipe end may already sit on fd 3 or 4.
            read_end, write_end = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [self.executable, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            preexec_fn=give_pipes,
            close_fds=False,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            self.send(f"{domain}.enable", session=True)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    # ------------------------------------------------------------------ protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("no answer from Chromium in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                self._stderr.seek(0)
                raise BrowserError(
                    f"Chromium closed the pipe:\n{self._stderr.read()[-3000:].decode(errors='replace')}"
                )
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(
        self, method: str, params: dict | None = None, session: bool = False, timeout: float | None = None
    ):
        """Send one command and return its result (events seen meanwhile are recorded)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._record_event(reply)

    def _record_event(self, event: dict) -> None:
        method = event.get("method")
        params = event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.console.append(
                " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            )
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.exceptions.append(details.get("exception", {}).get("description") or details.get("text", ""))

    # ------------------------------------------------------------------ page
    def open(self, url: str) -> None:
        self.send("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30, interval: float = 0.2):
        """Poll until ``expression`` is truthy in the page; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression!r}")
            time.sleep(interval)

    def screenshot(self, path: str | Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path
