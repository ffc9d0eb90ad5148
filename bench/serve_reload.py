#!/usr/bin/env python3
"""The preview's reload time after a one-author edit, measured in Chromium (issue 12, acceptance 3).

  python bench/serve_reload.py SITE [--edits 3] [--author SLUG]

Starts ``authorsite serve --port 0`` on SITE (its first build is not timed), opens the
author's page in Debian's Chromium (Playwright, headless), then, per edit: writes the author
file with a new affiliation and times from the write to the new text in the page (the
watcher's debounce, the update, the reload and the page's own load), each edit ``REST`` seconds
after the page showed the one before: as a person who reads the page between two edits meets
it, the preview at rest (the last edit's search planning done), not still busy with it. The author file is
replaced by a file of its own first (a corpus copied with ``cp -al`` shares its inodes with
the original, which must not change) and written back as it was at the end.
``bench/run.py`` calls ``reload_times`` for its "serve reload" row.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import against  # noqa: E402   (bench/against.py: serve by another checkout)

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def _start(site: Path, timeout: float, log: Path, code: Path | None = None) -> tuple[subprocess.Popen[bytes], str, float]:
    """The serve process (its log, with -v, in ``log``), its URL, and the seconds its first build took.
    ``code``: another authorsite checkout to serve with (bench/against.py)."""
    t0 = time.perf_counter()
    with open(log, "wb") as sink:    # a file, not a pipe: a pipe nobody reads would block serve's logging
        proc = subprocess.Popen([sys.executable, "-m", "generator", "-v", "-C", str(site), "serve", "--port", "0"],
                                stderr=sink, stdout=subprocess.DEVNULL, start_new_session=True, **against.where(code))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        m = re.search(r"serving (http://\S+/)", log.read_text("utf-8", "replace"))
        if m:
            return proc, m.group(1), time.perf_counter() - t0
        time.sleep(0.2)
    _stop(proc)
    raise RuntimeError("serve did not start:\n" + log.read_text("utf-8", "replace")[-3000:])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


REST = 2.0   # seconds between the new text showing and the next edit
# When the reloaded page first painted, on the system clock (ms): Playwright's selector wait polls
# the new document and adds its own delay to what a reader sees.
_PAINTED = """() => { const p = performance.getEntriesByName('first-contentful-paint')[0];
  return p ? performance.timeOrigin + p.startTime : null; }"""


def _edited(text: str, n: int) -> str:
    """The author file with a new affiliation (added when it has none)."""
    mark = f"Reload bench {n}"
    if re.search(r"^affiliation:", text, flags=re.M):
        return re.sub(r"^affiliation:.*$", f"affiliation: '{mark}'", text, count=1, flags=re.M)
    return text + f"affiliation: '{mark}'\n"


def reload_times(site: Path, author_file: Path, edits: int = 3, timeout: float = 3600,
                 log: Path | None = None, code: Path | None = None) -> tuple[list[float], float]:
    """(seconds from each write to the new text in the page, seconds of serve's first build).
    serve's log goes to ``log`` (default: a temporary file, removed)."""
    from playwright.sync_api import sync_playwright

    original = author_file.read_bytes()
    author_file.unlink()                 # a file of its own: never write through a shared hard link
    author_file.write_bytes(original)
    slug = author_file.stem
    log_file = log or Path(tempfile.mkstemp(prefix="serve-reload-", suffix=".log")[1])
    proc, url, first = _start(site, timeout, log_file, code)
    times = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page()
            page.goto(url + f"authors/{slug}/", timeout=120_000)
            page.wait_for_timeout(500)   # the reload script starts its long poll
            for n in range(1, edits + 1):
                text = _edited(original.decode("utf-8"), n)
                t0, wall0 = time.perf_counter(), time.time()
                author_file.write_text(text, encoding="utf-8")
                page.wait_for_selector(f"text=Reload bench {n}", timeout=120_000)
                seen = time.perf_counter() - t0
                painted = page.evaluate(_PAINTED)
                times.append(min(seen, painted / 1000 - wall0) if painted else seen)
                print(f"    edit {n}: selector seen after {seen:.3f} s, first paint "
                      f"{painted / 1000 - wall0 if painted else float('nan'):.3f} s after the write", flush=True)
                page.wait_for_timeout(REST * 1000)   # a person reads the page between two edits
            browser.close()
    finally:
        _stop(proc)
        author_file.write_bytes(original)
        if log is None:
            log_file.unlink(missing_ok=True)
    return times, first


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--author", help="the author's slug (default: the middle author file)")
    ap.add_argument("--log", type=Path, help="keep serve's log (-v) in this file")
    args = ap.parse_args(argv)
    files = sorted((args.site / "content/authors").glob("*.yaml"))
    author = args.site / "content/authors" / f"{args.author}.yaml" if args.author else files[len(files) // 2]
    times, first = reload_times(args.site.resolve(), author.resolve(), args.edits, log=args.log)
    print(f"{len(files)} authors; serve's first build {first:.1f} s; load average {os.getloadavg()[0]:.1f}")
    print("write -> new text in the page: " + ", ".join(f"{t:.3f} s" for t in times)
          + f" (median {statistics.median(times):.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
