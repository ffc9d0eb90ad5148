"""A site's sitemap checked as search engines read it: sitemap.xml, and when it is a sitemap index every
part it names, validated by lxml (libxml2's XML Schema validator) against sitemaps.org's schemas
(tests/fixtures/sitemaps-org/, SOURCE.md says where they come from) and held to the protocol's
limits: at most 50,000 URLs and 50 MB (52,428,800 bytes, uncompressed) in one file.

Used by tests/render/test_sitemap_schema.py and, on a bench site's output, by bench/sitemap_check.py.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lxml import etree

SCHEMAS = Path(__file__).resolve().parents[1] / "fixtures" / "sitemaps-org"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MOST_URLS = 50_000          # sitemaps.org: URLs in one sitemap file, and sitemaps in one index
MOST_BYTES = 52_428_800     # ... and bytes of one file, uncompressed
# what sitemaps.org's siteindex.xsd asks of an index's loc and the fixture's transcription does not (SOURCE.md)
LOC_CHARS = (12, 2048)


@dataclass(frozen=True)
class Part:
    """One sitemap file: its path in the output, its URLs and its bytes."""
    path: str
    urls: tuple[str, ...]
    size: int


@functools.cache
def schema(name: str) -> etree.XMLSchema:
    """sitemap.xsd (urlset) or siteindex.xsd (sitemapindex), parsed once."""
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def _parse(data: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    return etree.fromstring(data, parser)


def invalid(data: bytes, schema_name: str) -> list[str]:
    """What the schema finds wrong with ``data`` (line: message), empty when it validates."""
    xsd = schema(schema_name)
    if xsd.validate(_parse(data)):
        return []
    return [f"line {e.line}: {e.message}" for e in xsd.error_log]


def _locs(root: etree._Element, entry: str) -> tuple[str, ...]:
    return tuple(e.text or "" for e in root.iterfind(f"{{{NS}}}{entry}/{{{NS}}}loc"))


def check(read: Callable[[str], bytes], base_url: str) -> tuple[list[Part], list[str]]:
    """The sitemap files of a site whose files ``read`` gives by output path, and every problem:
    schema errors, files over the limits, an index entry off ``base_url`` or outside sitemaps.org's
    loc lengths. ``base_url``: absolute, ending in /; an index's entries map to output paths by it."""
    data = read("sitemap.xml")
    root = _parse(data)
    if root.tag == f"{{{NS}}}urlset":
        parts, problems = [Part("sitemap.xml", _locs(root, "url"), len(data))], []
        problems += [f"sitemap.xml {p}" for p in invalid(data, "sitemap.xsd")]
        return parts, problems + _over_limits(parts)
    problems = [f"sitemap.xml (index) {p}" for p in invalid(data, "siteindex.xsd")]
    names = _locs(root, "sitemap")
    if not names:
        problems.append("sitemap.xml is an index of no sitemap (sitemaps.org asks for one at least)")
    if len(names) > MOST_URLS or len(data) > MOST_BYTES:
        problems.append(f"sitemap.xml (index) names {len(names):,} sitemaps in {len(data):,} bytes, over the limits")
    parts = []
    for loc in names:
        if not LOC_CHARS[0] <= len(loc) <= LOC_CHARS[1] or not loc.startswith(base_url):
            problems.append(f"sitemap.xml (index) names {loc!r}: not a URL of {base_url} of 12 to 2,048 characters")
            continue
        path = loc[len(base_url):]
        part = read(path)
        problems += [f"{path} {p}" for p in invalid(part, "sitemap.xsd")]
        parts.append(Part(path, _locs(_parse(part), "url"), len(part)))
    return parts, problems + _over_limits(parts)


def _over_limits(parts: list[Part]) -> list[str]:
    return [f"{p.path} holds {len(p.urls):,} URLs in {p.size:,} bytes: over sitemaps.org's "
            f"{MOST_URLS:,} URLs or {MOST_BYTES:,} bytes" for p in parts
            if len(p.urls) > MOST_URLS or p.size > MOST_BYTES]


def check_output(out: Path, base_url: str) -> tuple[list[Part], list[str]]:
    """``check`` over a built output folder."""
    return check(lambda path: (out / path).read_bytes(), base_url)
