#!/usr/bin/env python3
"""A built site's sitemap against sitemaps.org's schemas and limits (issue 44, acceptance 4).

  python bench/sitemap_check.py OUTPUT_DIR BASE_URL

OUTPUT_DIR: a finished build (bench/deploy_row.py --keep DIR leaves the bench site in DIR), built
for BASE_URL, an absolute URL ending in / (the protocol takes absolute URLs only: build with
``--base-url`` when site.yaml's is '/'). Validates sitemap.xml and, when it is a sitemap index,
every part with lxml against tests/fixtures/sitemaps-org/ (tests/render/sitemap_schema.py, the
check the tests make) and prints each file's URLs and bytes; exit 1 on any problem. Needs the
test extra (lxml).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "render"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1] if __doc__ else None)
    ap.add_argument("output", type=Path)
    ap.add_argument("base_url")
    args = ap.parse_args(argv)
    from sitemap_schema import MOST_BYTES, MOST_URLS, check_output

    parts, problems = check_output(args.output, args.base_url)
    index = (args.output / "sitemap.xml").stat().st_size
    if len(parts) > 1 or parts[0].path != "sitemap.xml":
        print(f"sitemap.xml: a sitemap index of {len(parts)} parts, {index:,} bytes (siteindex.xsd)")
    for p in parts:
        print(f"  {p.path}: {len(p.urls):,} URLs, {p.size:,} bytes ({p.size / MOST_BYTES:.1%} of "
              f"{MOST_BYTES:,}; {len(p.urls) / MOST_URLS:.1%} of {MOST_URLS:,} URLs) (sitemap.xsd)")
    urls = [u for p in parts for u in p.urls]
    print(f"{len(urls):,} URLs, {len(set(urls)):,} distinct; "
          f"{sum(u.startswith(args.base_url + 'papers/') for u in urls):,} paper pages")
    for problem in problems:
        print(f"problem: {problem}")
    print("valid, within the limits" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
