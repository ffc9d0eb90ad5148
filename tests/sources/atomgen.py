"""Build arXiv-like Atom responses (the 2025+ layout) for the fake server and the unit tests.

Values are XML-escaped here, so a test can put ``<script>`` in a title and get what
arXiv would send: ``&lt;script&gt;``. ``raw=`` arguments go in unescaped, to build
hostile documents on purpose.
"""

from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

HEAD = ('<?xml version=\'1.0\' encoding=\'UTF-8\'?>\n'
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n')


def entry_xml(arxiv_id: str, version: int = 1, *, title: str = "A title", summary: str = "An abstract.",
              authors: Sequence[str | tuple[str, Sequence[str]]] = ("Jane Doe",),
              published: str = "2024-05-22T16:11:45Z", updated: str | None = None,
              categories: Sequence[str] = ("cs.DB",), primary: str | None = None,
              doi: str | None = None, journal_ref: str | None = None, comment: str | None = None,
              links: Sequence[str] = (), raw_id: str | None = None, extra: str = "") -> str:
    eid = raw_id if raw_id is not None else f"http://arxiv.org/abs/{arxiv_id}v{version}"
    parts = [f"  <entry>\n    <id>{escape(eid)}</id>\n    <title>{escape(title)}</title>",
             f"    <updated>{escape(updated or published)}</updated>",
             f"    <link href=\"https://arxiv.org/abs/{arxiv_id}v{version}\" rel=\"alternate\" type=\"text/html\"/>",
             f"    <link href=\"https://arxiv.org/pdf/{arxiv_id}v{version}\" rel=\"related\" "
             f"type=\"application/pdf\" title=\"pdf\"/>",
             f"    <summary>{escape(summary)}</summary>"]
    parts += [f"    <category term={quoteattr(c)} scheme=\"http://arxiv.org/schemas/atom\"/>" for c in categories]
    parts.append(f"    <published>{escape(published)}</published>")
    if comment is not None:
        parts.append(f"    <arxiv:comment>{escape(comment)}</arxiv:comment>")
    prim = primary if primary is not None else (categories[0] if categories else None)
    if prim is not None:
        parts.append(f"    <arxiv:primary_category term={quoteattr(prim)}/>")
    if journal_ref is not None:
        parts.append(f"    <arxiv:journal_ref>{escape(journal_ref)}</arxiv:journal_ref>")
    for a in authors:
        name, affs = (a, ()) if isinstance(a, str) else a
        inner = "".join(f"\n      <arxiv:affiliation>{escape(x)}</arxiv:affiliation>" for x in affs)
        parts.append(f"    <author>\n      <name>{escape(name)}</name>{inner}\n    </author>")
    if doi is not None:
        parts.append(f"    <arxiv:doi>{escape(doi)}</arxiv:doi>")
        parts.append(f"    <link rel=\"related\" href={quoteattr('https://doi.org/' + doi)} title=\"doi\"/>")
    parts += [f"    <link rel=\"related\" href={quoteattr(h)} title=\"x\"/>" for h in links]
    if extra:
        parts.append(extra)
    parts.append("  </entry>")
    return "\n".join(parts) + "\n"


def feed_xml(entries: Sequence[str], *, total: int | None = None, start: int = 0, per_page: int = 10,
             total_text: str | None = None) -> bytes:
    total_el = total_text if total_text is not None else str(len(entries) if total is None else total)
    head = (HEAD + "  <id>https://arxiv.org/api/fake</id>\n"
            "  <title>arXiv Query: search_query=test</title>\n  <updated>2026-04-12T22:10:08Z</updated>\n"
            "  <link href=\"https://arxiv.org/api/query?search_query=test\" type=\"application/atom+xml\"/>\n"
            f"  <opensearch:itemsPerPage>{per_page}</opensearch:itemsPerPage>\n"
            f"  <opensearch:totalResults>{total_el}</opensearch:totalResults>\n"
            f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n")
    return (head + "".join(entries) + "</feed>\n").encode("utf-8")


def corpus(n: int, *, prefix: str = "2401", author: str = "Jane Doe", category: str = "cs.DB",
           year: int = 2024) -> list[str]:
    """``n`` distinct entries, newest first (ids 2401.10000+n-1 ... 2401.10000)."""
    out = []
    for i in reversed(range(n)):
        day = 1 + i % 28
        out.append(entry_xml(f"{prefix}.{10000 + i}", 1, title=f"Paper number {i}", authors=(author, "Co Author"),
                             published=f"{year}-{1 + i % 12:02d}-{day:02d}T10:00:00Z", categories=(category,)))
    return out
