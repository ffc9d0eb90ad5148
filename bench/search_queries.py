"""Search as a reader meets it, in Chromium over loopback (issue 12, acceptance 9).

    python bench/search_queries.py OURS_OUTPUT [HUGO_PUBLIC] [--queries a b c]

For each query, from a fresh page: ours is typed into the header's search box of the home
page (themes/default/static/search.js over our index, generator/write/search.py), timed from the
first key (and from the last) to the first result row, with the count it shows; "ours-page"
opens the search page with ?q= from a blank page, timed to the first result row. The peer is
Pagefind's single index over Hugo's output (run here with the bench extra's ``pagefind[bin]``
when HUGO_PUBLIC has no pagefind/ yet), queried through Pagefind's JS API from a blank page
of the same server, timed from the query to the first five results' data (what the rows
need). Ours counts the requests made after the page loaded (search.js, on a fresh page; meta,
term shards, document chunks; the index's files fetched are listed), the peer's likewise (pagefind.js, its worker and WebAssembly,
entries, metadata, index chunks, fragments). Prints a table and, as JSON, the rows. Needs
Debian's Chromium (tests/browser_util.py).
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

_API = """async ([q, bundle]) => {
  const t0 = performance.now();
  const pf = await import(bundle + 'pagefind.js');
  await pf.init();
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
    # the first row, or the count of a query that finds nothing (an abstract's word without abstracts)
    first = page.locator(".site-header .hit-title").or_(page.locator(".site-header .search-count", has_text="No results"))
    first.first.wait_for(state="visible", timeout=30000)
    ms = (time.monotonic() - t0) * 1000
    after = (time.monotonic() - t1) * 1000
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)   # the first rows may be of a prefix typed ("diffusion"): read the last count
    count = page.inner_text(".site-header .search-count")
    page.close()
    index = sorted({u[len(base):] for u in reqs if u.startswith(base) and "/search/index/" in u})
    return {"query": q, "ms": round(ms), "after_last_key_ms": round(after), "requests": len(reqs), "count": count,
            "index_files": index}


def ours_page(browser, base: str, q: str) -> dict:  # noqa: ANN001
    """Ours without the box: the search page opened with ?q= from a blank page of the same server,
    timed from navigation to the first result row (the page, its CSS and scripts count too)."""
    page = browser.new_page()
    page.goto(base + "__blank__", wait_until="load")   # the server's 404: same origin
    page.wait_for_load_state("networkidle")
    reqs: list[str] = []
    page.on("request", lambda r: reqs.append(r.url))
    t0 = time.monotonic()
    page.goto(base + "search/?q=" + q.replace(" ", "+"), wait_until="commit")
    page.locator("main .hit-title").first.wait_for(state="visible", timeout=30000)
    ms = (time.monotonic() - t0) * 1000
    page.wait_for_load_state("networkidle")
    count = page.inner_text("main .search-count")
    index = sum(1 for u in reqs if "/search/index/" in u)
    page.close()
    return {"query": q, "ms": round(ms), "requests": len(reqs), "index_requests": index, "count": count}


def peer(browser, base: str, q: str) -> dict:  # noqa: ANN001
    page = browser.new_page()
    reqs: list[str] = []
    page.goto(base + "__blank__", wait_until="load")   # the server's 404: same origin, no script
    page.wait_for_load_state("networkidle")
    page.on("request", lambda r: reqs.append(r.url))
    got = page.evaluate(_API, [q, "/pagefind/"])
    page.wait_for_load_state("networkidle")
    page.close()
    return {"query": q, "ms": round(got["ms"]), "requests": len(reqs), "count": f"{got['count']} results"}


def index_peer(public: Path) -> None:
    """Pagefind's index over Hugo's output, made once (the bench extra installs pagefind[bin])."""
    if (public / "pagefind").is_dir():
        return
    import importlib.util
    import subprocess

    spec = importlib.util.find_spec("pagefind_bin")
    if spec is None or spec.origin is None:
        sys.exit("the peer needs Pagefind: pip install -e '.[bench]'")
    binary = Path(spec.origin).parent / "pagefind"
    t0 = time.monotonic()
    subprocess.run([str(binary), "--site", str(public), "--silent"], check=True)
    print(f"peer: Pagefind indexed {public} in {time.monotonic() - t0:.1f} s", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours", type=Path)
    ap.add_argument("peer", type=Path, nargs="?")
    ap.add_argument("--queries", nargs="+", default=list(QUERIES))
    args = ap.parse_args()
    rows = []
    if args.peer is not None:
        index_peer(args.peer)
    with chromium_browser() as browser:
        for name, site, run in (("ours", args.ours, ours), ("ours-page", args.ours, ours_page),
                                ("peer", args.peer, peer)):
            if site is None:
                continue
            with static_server(site, "/") as base:
                run(browser, base, args.queries[0])   # warm the server and disk cache, not the page
                for q in args.queries:
                    rows.append({"side": name, **run(browser, base, q)})
    for r in rows:
        print(f"{r['side']:8} {r['query']!r:22} {r['ms']:6d} ms {r['requests']:4d} requests  {r['count']}")
    for side in ("ours", "ours-page", "peer"):
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
