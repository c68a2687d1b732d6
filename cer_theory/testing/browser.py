"""A headless Chromium driven over the DevTools protocol, to test pages in a real browser.

The browser is started with ``--remote-debugging-pipe``: it reads protocol commands from file descriptor 3 and
writes replies to 4, each message JSON ending in a NUL byte, so no WebSocket library is needed. :class:`Browser`
opens one page, presses keys (``Input.dispatchKeyEvent``, the events a person's keyboard produces), evaluates
JavaScript and takes screenshots.
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
from typing import Any

from cer_theory.core.outputs import write_output

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--remote-debugging-pipe")
KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35}


def find_chromium() -> str | None:
    """The path of a Chromium-family browser on PATH, if any."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


_RECORD_ERRORS = ("window.__pageErrors = []; window.addEventListener('error', e => "
                  "window.__pageErrors.push(String(e.message || e.type)), true);")
"""Run in every page before its own scripts: records each error event (:meth:`Browser.errors`)."""


class BrowserError(RuntimeError):
    """The browser failed, or answered a command with an error."""


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, executable: str, *, width: int = 1100, height: int = 800, timeout: float = 30) -> None:
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="cer-theory-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends on the descriptors Chromium reads and writes
            # Copied above 4 first, so that neither end is overwritten by the other's dup2 and both lose
            # close-on-exec (dup2 onto the same number would keep it).
            read_end, write_end = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self._profile}",
                                       f"--window-size={width},{height}", "about:blank"],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, preexec_fn=wire, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.session = ""

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browser this object started and remove its profile."""
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    # ------------------------------------------------------------------ the protocol

    def send(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> dict[str, Any]:
        """Send one command (to the page's session unless ``session=False``) and return its result."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline or self._proc.poll() is not None:
                raise BrowserError("no answer from the browser")
            chunk = os.read(self._from_browser, 65536)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    # ------------------------------------------------------------------ what a test does

    def open(self, path: Path) -> None:
        """Open a local file in a new page and wait until it has loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Page.addScriptToEvaluateOnNewDocument", {"source": _RECORD_ERRORS})
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        deadline = time.monotonic() + self.timeout
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise BrowserError(f"{path} did not load")
            time.sleep(0.05)

    def errors(self) -> list[str]:
        """The script errors the page has raised since it was opened (uncaught exceptions, scripts that failed to
        parse): a page that looks right but whose script died shows here."""
        return list(self.evaluate("window.__pageErrors || []"))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                      "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str) -> None:
        """Press and release a key as a keyboard does (``ArrowRight``, ``ArrowLeft``, ``Home``, ``End``)."""
        code = KEYS[key]
        for kind in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                                 "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def set_viewport(self, width: int, height: int) -> None:
        """Lay the page out at ``width`` × ``height`` CSS pixels (a screenshot is then exactly that size)."""
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})

    def screenshot(self, path: Path) -> None:
        """A PNG of the page as shown."""
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        write_output(path, base64.b64decode(data))


class Site(Browser):
    """A browser on a served site: go to addresses, fill forms and click as a person does, waiting for the page
    each click loads."""

    def goto(self, url: str) -> None:
        """Open ``url`` (http://…) in the page, opening the page first if there is none, and wait for it."""
        if not self.session:
            target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
            self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                     session=False)["sessionId"]
            self.send("Page.enable")
        before = self.evaluate("performance.timeOrigin")
        self.send("Page.navigate", {"url": url})
        self._loaded(before, url)

    def fill(self, selector: str, text: str) -> None:
        """Type ``text`` into the field ``selector`` (its value replaced)."""
        found = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return false;"
                              f" e.focus(); e.value = {json.dumps(text)}; return true; }})()")
        if not found:
            raise BrowserError(f"no field {selector} on {self.evaluate('location.href')}")

    def click(self, selector: str) -> None:
        """Click ``selector`` (a button or link) and wait for the page it loads."""
        before = self.evaluate("performance.timeOrigin")
        found = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return false;"
                              f" e.click(); return true; }})()")
        if not found:
            raise BrowserError(f"nothing to click at {selector} on {self.evaluate('location.href')}")
        self._loaded(before, selector)

    def text(self, selector: str = "body") -> str:
        return self.evaluate(f"document.querySelector({json.dumps(selector)})?.innerText ?? ''")

    def _loaded(self, before: float, what: str) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                if self.evaluate("performance.timeOrigin") != before and \
                        self.evaluate("document.readyState") == "complete":
                    return
            except BrowserError:  # the old page went away mid-question: ask the new one
                pass
            if time.monotonic() > deadline:
                raise BrowserError(f"{what}: no new page loaded")
            time.sleep(0.05)
