"""Shared helpers for tests that drive Debian's Chromium with Playwright.

Never ``playwright install``: the browser is /usr/bin/chromium (apt), launched
headless with background networking off so nothing leaves the machine.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
CLI = [sys.executable, "-m", "generator"]


def require_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"chromium not found at {CHROMIUM}: .ci/run installs it with apt")


@contextmanager
def chromium_browser() -> Iterator[object]:
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def borrowed(browser) -> Iterator[object]:  # noqa: ANN001 - playwright Browser
    """The shared browser (conftest's ``chromium``) for one block: every context and page opened
    in the block is closed on leaving it, as closing a browser of its own did, so a page never
    outlives the block (and the server it talks to)."""
    before = set(browser.contexts)
    try:
        yield browser
    finally:
        for context in browser.contexts:
            if context not in before:
                context.close()


@contextmanager
def serve_site(root: Path, extra: list[str] | None = None) -> Iterator[str]:
    """Run ``authorsite serve --port 0`` on a site and yield its URL."""
    proc = subprocess.Popen([*CLI, "-C", str(root), "serve", "--port", "0", *(extra or [])],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    url = None
    lines = []
    deadline = time.monotonic() + 30
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"serving (http://\S+/)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        raise AssertionError("serve did not start:\n" + "".join(lines) + (proc.stderr.read() or ""))
    try:
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stderr.close()
