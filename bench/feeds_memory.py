#!/usr/bin/env python3
"""Issue 42: the memory of the feeds' step alone (the entry ids and announcements), over the index,
in this process: today's resolve in memory (``feed_ids.resolve(feed_ids.read(root), authors)``,
each author's records loaded from the index) beside the index's (generator.index.feeds).

  python bench/feeds_memory.py SITE     (a site built once over the index: pipeline.FLAT)

Prints each one's tracemalloc peak (what Python allocated during the step, above what it held
before; SQLite's own allocations are not Python's), its peak RSS above the RSS before it, and seconds (under tracemalloc, so slower than in a build): cold (no feed-ids.json),
warm with the file imported into the index (its bytes not the ones the index holds), and warm
with the index holding them (a rebuild after a build that wrote it). Both answers are checked equal.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator import pipeline  # noqa: E402
from generator.assemble import feed_ids  # noqa: E402
from generator.core.taxonomy import load_taxonomy  # noqa: E402
from generator.incremental.inputs import read_inputs  # noqa: E402
from generator.incremental.parsed import ParsedInputs  # noqa: E402
from generator.index import feeds, lazy  # noqa: E402
from generator.index.site import site_orders  # noqa: E402


def _status(name: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS: now; VmHWM: the peak since clear_refs)."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(name + ":"))


def measure(label: str, step: Callable[[], Any]) -> Any:  # noqa: ANN401
    lazy.forget()
    gc.collect()
    with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
        f.write("5")   # (VmHWM from now: Linux)
    before = _status("VmRSS")
    tracemalloc.start()
    start = time.perf_counter()
    out = step()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = (_status("VmHWM") - before) / 1e6
    print(f"{label:<40} peak {peak / 1e6:8.1f} MB (tracemalloc), {rss:8.1f} MB (RSS)  {seconds:6.2f} s")
    return out


def main(root: Path) -> None:
    pipeline.FLAT = True
    parsed = ParsedInputs(root)
    inputs = read_inputs(root, {"base_url": None, "search": True})
    config = pipeline.load_config(root, None, parsed)
    index = pipeline._index(config, None)
    assert index is not None, "not a site built over the index"
    authors, _ = pipeline._read_cache(config, False, parsed, inputs, 1, index)
    site_orders(index, [a.slug for a in config.authors], load_taxonomy(), config.feed_size)
    n = sum(len(a.records) for a in authors.authors)
    print(f"{len(authors.authors)} authors, {n} records")
    path = root / feed_ids.MEMORY
    path.unlink(missing_ok=True)
    in_memory = lambda: feed_ids.resolve(feed_ids.read(root), authors.authors)  # noqa: E731
    over_index = lambda: feeds.resolve(index, root)  # noqa: E731
    # (over the index first: RSS that the in-memory step grew is not given back to the system)
    new = measure("cold, over the index", over_index)
    measure("writing the memory, over the index", lambda: feeds.written(new.memory, feed_ids.save(root, new.memory)[1]))
    print(f"feed-ids.json: {path.stat().st_size / 1e6:.1f} MB")
    warm = measure("warm, over the index, held", over_index)
    index.db.execute("DELETE FROM meta WHERE name = 'feeds'")
    warm2 = measure("warm, over the index, file imported", over_index)
    written = path.read_bytes()
    path.unlink()
    old = measure("cold, in memory (today)", in_memory)
    assert (old.ids, old.announced, feed_ids.to_bytes(old.memory)) == (new.ids, new.announced, written)
    feed_ids.write(root, old.memory)
    old = measure("warm, in memory (today)", in_memory)
    new, new2 = warm, warm2
    assert old.memory is new.memory is new2.memory is None
    assert (old.ids, old.announced) == (new.ids, new.announced) == (new2.ids, new2.announced)
    index.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
