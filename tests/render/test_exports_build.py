"""Built sites' plain-text outputs and BibTeX (issue 15 acceptance 4 and 8): the demo and a site made
from the two recorded arXiv samples. No TeX command in any feed title or summary or in any CSL
title or abstract, while the HTML still renders MathML; every BibTeX entry formats with pybtex's
plain style and has the type its fields call for."""

from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import bibtexparser
import pytest
from pybtex.database import parse_string
from pybtex.style.formatting.plain import Style

from generator.store import cache
from generator.config import load_site
from generator.sources.arxiv import parse_page
from helpers import build

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "arxiv-samples"
COMMAND = re.compile(r"\\[a-zA-Z]+")
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def samples_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-author site whose cache holds the 25 records of the two samples; built."""
    root = tmp_path_factory.mktemp("samples") / "site"
    (root / "content" / "authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Samples\nbase_url: /\n", "utf-8")
    (root / "content" / "authors" / "jane-doe.yaml").write_text(textwrap.dedent("""\
        name: Jane Doe
        sources:
          - arxiv: {query: 'au:"Jane Doe"'}
        """), "utf-8")
    records = [r for p in sorted(SAMPLES.glob("*.xml")) for r in parse_page(p.read_bytes()).records]
    config = load_site(root)
    source = config.authors[0].sources[0]
    path = cache.cache_file(config.cache_path, "jane-doe", source)
    assert path is not None
    cache.write_entry(path, cache.CacheEntry(cache.source_description(source), "2026-01-01T00:00:00Z",
                                             tuple(records)))
    return build(root)


def outputs(out: Path) -> tuple[list[Path], list[Path], list[Path]]:
    return (sorted(out.rglob("feed.xml")), sorted(out.rglob("publications.json")),
            sorted(out.rglob("publications.bib")))


def check_plain_text(out: Path) -> int:
    """Every feed title/summary and CSL title/abstract under ``out`` is free of TeX commands."""
    feeds, csl, _ = outputs(out)
    texts = 0
    for feed in feeds:
        for entry in ET.parse(feed).getroot().iter(f"{ATOM}entry"):
            for tag in ("title", "summary"):
                text = entry.findtext(f"{ATOM}{tag}") or ""
                assert not COMMAND.search(text), f"{feed}: {tag} {text[:200]!r}"
                texts += 1
    for path in csl:
        for item in json.loads(path.read_text("utf-8")):
            for key in ("title", "abstract"):
                assert not COMMAND.search(item.get(key, "")), f"{path}: {key} {item.get(key)!r}"
                texts += 1
    return texts


def check_bibtex(out: Path, under: str = "") -> int:
    """Every BibTeX file of the output parses and formats; the entries of those under ``under``."""
    entries = 0
    for path in outputs(out)[2]:
        text = path.read_text("utf-8")
        lib = bibtexparser.parse_string(text)
        assert lib.failed_blocks == []
        formatted = list(Style().format_bibliography(parse_string(text, "bibtex")))
        assert len(formatted) == len(lib.entries)
        for e in lib.entries:
            fields = e.fields_dict
            venue = "journal" in fields or "booktitle" in fields or "school" in fields
            assert e.entry_type == ("article" if "journal" in fields else
                                    "inproceedings" if "booktitle" in fields else
                                    "phdthesis" if "school" in fields else "misc")
            assert venue or e.entry_type == "misc"  # eprint (and doi) only: @misc
            assert "abstract" not in fields
        entries += len(lib.entries) if path.relative_to(out).as_posix().startswith(under) else 0
    return entries


def test_samples_site(samples_site: Path) -> None:
    assert check_plain_text(samples_site) > 50
    page = (samples_site / "authors" / "jane-doe" / "index.html").read_text("utf-8")
    assert check_bibtex(samples_site, "authors/") == page.count('class="record"') >= 24  # two comments share a title
    assert "<math" in page


def test_demo_site(demo) -> None:  # noqa: ANN001
    assert check_plain_text(demo.out) > 50
    assert check_bibtex(demo.out) > 10
    page = demo.read("authors/bin-cui/index.html")
    assert "<math" in page and r"\times" not in demo.read("authors/bin-cui/feed.xml")
