"""Search as a reader meets it, in Chromium over loopback (issue 12, acceptance 9).

    python bench/search_queries.py OURS_OUTPUT [HUGO_PUBLIC_WITH_PAGEFIND] [--queries a b c]

For each query, from a fresh page: ours is typed into the header's search box of the home
page (themes/default/static/search.js), timed from the first key (and from the last) to the first result row,
with the count it shows; the peer is Pagefind's single index over Hugo's output
(``pagefind --site hugo-public`` first), queried through Pagefind's JS API from a blank page
of the same server, timed from the query to the first result's data (what a row needs).
Both count the requests made after the page loaded (pagefind.js, its worker and
WebAssembly, entries, metadata, index chunks, fragments). Prints a table and, as JSON, the
rows. Needs Debian's Chromium (tests/browser_util.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser_util import chromium_browser  # noqa: E402
from quality_util import static_server  # noqa: E402

QUERIES = ("spectral", "graph learning", "kernel", "stochastic network", "causal", "diffusion models")

_API = """async ([q, bundles]) => {
  const t0 = performance.now();
  const pf = await import(bundles[0] + 'pagefind.js');
  await Promise.all([pf.init(), ...bundles.slice(1).map(b => pf.mergeIndex(b))]);
  const s = await pf.search(q);
  await Promise.all(s.results.slice(0, 5).map(r => r.data()));
  return {ms: performance.now() - t0, count: s.results.length};
}"""


def ours(browser, base: str, q: str) -> dict:  # noqa: ANN001
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    reqs: list[str] = []
    page.goto(base, wait_until="load")
    page.wait_for_load_state("networkidle")   # the favicon, fetched after load
    page.on("request", lambda r: reqs.append(r.url))
    page.keyboard.press("/")
    t0 = time.monotonic()
    page.keyboard.type(q)
    t1 = time.monotonic()
    page.locator(".site-header .hit-title").first.wait_for(state="visible", timeout=30000)
    ms = (time.monotonic() - t0) * 1000
    after = (time.monotonic() - t1) * 1000
    page.wait_for_load_state("networkidle")
    count = page.inner_text(".site-header .search-count")
    page.close()
    return {"query": q, "ms": round(ms), "after_last_key_ms": round(after), "requests": len(reqs), "count": count}


def ours_api(browser, base: str, q: str) -> dict:  # noqa: ANN001
    """Ours through the same harness as the peer (the index alone, no box, no typing)."""
    return peer(browser, base, q, "ours")


def peer(browser, base: str, q: str, side: str = "peer") -> dict:  # noqa: ANN001
    page = browser.new_page()
    reqs: list[str] = []
    page.goto(base + "__blank__", wait_until="load")   # the server's 404: same origin, no script
    bundles = ["/pagefind/"]
    if side == "ours":
        page.goto(base, wait_until="load")
        bundles = page.get_attribute("form[data-bundles]", "data-bundles").split()
    page.wait_for_load_state("networkidle")
    page.on("request", lambda r: reqs.append(r.url))
    got = page.evaluate(_API, [q, bundles])
    page.wait_for_load_state("networkidle")
    page.close()
    return {"query": q, "ms": round(got["ms"]), "requests": len(reqs), "count": f"{got['count']} results"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours", type=Path)
    ap.add_argument("peer", type=Path, nargs="?")
    ap.add_argument("--queries", nargs="+", default=list(QUERIES))
    args = ap.parse_args()
    rows = []
    with chromium_browser() as browser:
        for name, site, run in (("ours", args.ours, ours), ("ours-api", args.ours, ours_api),
                                ("peer", args.peer, peer)):
            if site is None:
                continue
            with static_server(site, "/") as base:
                run(browser, base, args.queries[0])   # warm the server and disk cache, not the page
                for q in args.queries:
                    rows.append({"side": name, **run(browser, base, q)})
    for r in rows:
        print(f"{r['side']:8} {r['query']!r:22} {r['ms']:6d} ms {r['requests']:4d} requests  {r['count']}")
    for side in ("ours", "ours-api", "peer"):
        mine = [r for r in rows if r["side"] == side]
        if mine:
            last = [r["after_last_key_ms"] for r in mine if "after_last_key_ms" in r]
            print(f"{side}: median {statistics.median(r['ms'] for r in mine):.0f} ms"
                  + (f" ({statistics.median(last):.0f} ms after the last key)" if last else "") + ", "
                  f"requests {min(r['requests'] for r in mine)}-{max(r['requests'] for r in mine)}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
