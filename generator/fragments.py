"""The built-in record fragments, written out in Python.

Every record is shown by three small templates of the default theme:
``partials/record.html`` (author pages), ``partials/record_brief.html`` (subject
pages) and ``partials/feed_entry.xml`` (Atom feeds). At 100,000 records, rendering
them through Jinja was about 70% of a cold build's render time: a Jinja render sets
up a context and escapes through several layers of calls for every field. The
functions here produce the same bytes with one f-string per record.

They are used only while the template a site would use is byte for byte the one
they were written from (``BUILTIN_DIGESTS``): a site that overrides a partial gets
its own template, rendered by Jinja. The test suite checks that the digests match
the theme's files and that both paths give identical output on many records,
hostile ones included; edit a partial and that test tells you to edit this file too.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Mapping

from markupsafe import escape

from generator.model import Record

try:  # MarkupSafe's own C escaper, without wrapping each field in a Markup object
    from markupsafe._speedups import _escape_inner
except ImportError:  # pure-Python MarkupSafe
    def _escape_inner(s: str, /) -> str:
        return str(escape(s))

Html = Callable[[Record], str]

# sha256 of the template sources these functions reproduce.
BUILTIN_DIGESTS = {
    "partials/record.html": "58186536c85a8cfd211e4f834b009478bf419ecc7fa87c2615ddb286537dac77",
    "partials/record_brief.html": "809f5f27f1e2ad20315e3473a41de64f08100552b25c87ebdbb21c74ab891db1",
    "partials/feed_entry.xml": "d961a5ea01fd26756e09b2d1083ccfaa69051a54b578633c5a85e0e2468d9a20",
}


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _e(value: object) -> str:
    """The field as MarkupSafe escapes it (what autoescape does to it in a template)."""
    return _escape_inner(value if type(value) is str else str(value))


def record_html(r: Record, tex: Callable[[str], str], authors_html: Html, subject_chips: Html) -> str:
    """partials/record.html"""
    link = _e(r.link)
    meta = _badge(r)
    if r.arxiv_id:
        meta += f' <span class="id">arXiv:{_e(r.arxiv_id)}{f"v{_e(r.version)}" if r.version else ""}</span>'
    meta += _time(r)
    parts = [
        f'<li class="record" data-subjects="{" ".join(_e(s) for s in r.subjects)}">\n',
        f'  <p class="record-meta">{meta}</p>\n',
        f'  <h3 class="record-title" id="{_e(r.anchor)}"><a href="{link}">{tex(r.title)}</a></h3>\n',
    ]
    if r.authors:
        parts.append(f'  <p class="record-authors">{authors_html(r)}</p>\n')
    if r.abstract:
        parts.append(f'  <details class="abstract"{" open" if len(r.abstract) < 1500 else ""}>\n'
                     f'    <summary>Abstract</summary>\n    <p>{tex(r.abstract)}</p>\n  </details>\n')
    if r.journal_ref or r.comment or r.doi:
        extra = '  <dl class="record-extra">\n'
        if r.comment:
            extra += f"<dt>Comment</dt><dd>{_e(r.comment)}</dd>"
        if r.journal_ref:
            extra += f"<dt>Journal</dt><dd>{_e(r.journal_ref)}</dd>"
        if r.doi:
            extra += f'<dt>DOI</dt><dd><a href="{_e(r.doi_url)}">{_e(r.doi)}</a></dd>'
        parts.append(extra + "  </dl>\n")
    pdf = f'<a class="pdf" href="{_e(r.pdf_url)}">PDF</a> ' if r.pdf_url else ""
    parts.append(f'  <p class="record-links">{subject_chips(r)}{pdf}{_source_link(link)}')
    return "".join(parts)


def record_brief(r: Record, tex: Callable[[str], str], authors_html: Html, subject_chips: Html,
                 profile_links: Callable[[Record], str]) -> str:
    """partials/record_brief.html"""
    link = _e(r.link)
    meta = _badge(r) + _time(r) + (f' <span class="id">arXiv:{_e(r.arxiv_id)}</span>' if r.arxiv_id else "")
    authors = f'  <p class="record-authors">{authors_html(r)}</p>\n' if r.authors else ""
    return (f'<li class="record brief">\n'
            f'  <h3 class="record-title"><a href="{link}">{tex(r.title)}</a></h3>\n'
            f'  <p class="record-meta">{meta}</p>\n{authors}'
            f'  <p class="record-links">{subject_chips(r)}{profile_links(r)}{_source_link(link)}')


def _badge(r: Record) -> str:
    return f'<span class="badge">{_e(r.source)}</span><span class="year">{_e(r.year or "")}</span>'


def _time(r: Record) -> str:
    return f' <time datetime="{_e(r.published)}">{_e(r.published[:10])}</time>' if r.published else ""


def _source_link(link: str) -> str:
    """The record's closing link to its original source, and the end of the item."""
    return (f'<a class="source" href="{link}" title="Original source"><span aria-hidden="true">↗</span>'
            '<span class="visually-hidden">Original source</span></a></p>\n</li>\n')


def profile_links(r: Record, record_authors: Mapping[str, tuple[str, ...]], names: Mapping[str, str],
                  url: Callable[[str], str]) -> str:
    """The "Abstract on NAME's page" links of a brief record."""
    anchor = _e(r.anchor)
    return "".join(f'<a href="{_e(url("authors/" + slug + "/"))}#{anchor}">Abstract on {_e(names[slug])}’s page</a> '
                   for slug in record_authors.get(r.key, ()))


def feed_entry(r: Record, tex_text: Callable[[str], str], subject_name: Callable[[str], str]) -> str:
    """partials/feed_entry.xml"""
    entry_id = r.abs_url or "tag:authorsite,2024:" + r.key.replace(":", "/")
    updated = r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"
    parts = [
        f"  <entry>\n    <title>{_e(tex_text(r.title))}</title>\n    <id>{_e(entry_id)}</id>\n"
        f'    <link rel="alternate" type="text/html" href="{_e(r.link)}"/>\n'
        f"    <updated>{_e(updated)}</updated>\n"
    ]
    if r.published:
        parts.append(f"    <published>{_e(r.published)}</published>\n")
    parts.extend(f"    <author><name>{_e(p.name)}</name></author>\n" for p in r.authors)
    if r.abstract:
        parts.append(f"    <summary>{_e(tex_text(r.abstract))}</summary>\n")
    parts.extend(f'    <category term="{_e(c)}" label="{_e(subject_name(c))}"/>\n' for c in r.subjects)
    parts.append("  </entry>\n")
    return "".join(parts)
