"""Markdown for bios and free pages, sanitised with an allow-list.

Python-Markdown passes raw HTML through (``<script>`` in a bio stays a script), so
its output goes through nh3 (the Ammonia sanitizer) with a tight list of tags,
attributes and URL schemes before it reaches a template as safe markup.

* Images are not allowed: a remote ``src`` would make every visitor's browser call a third
  party.
* A root-relative link (``/authors/jane-doe/``) in a free page is under the site's base path,
  as the generated pages' are: on a project site (https://USER.github.io/REPO/) it is written
  ``/REPO/authors/jane-doe/`` (it led outside the site, which only ``check`` reported).
"""

from __future__ import annotations

import functools

import markdown
import nh3

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
}
_ATTRS = {
    "a": {"href", "title", "hreflang"},
    "abbr": {"title"},
    "td": {"align"},
    "th": {"align", "scope"},
    "h2": {"id"}, "h3": {"id"}, "h4": {"id"},
}


def markdown_to_html(text: str, base_path: str = "/") -> str:
    """Markdown -> sanitised HTML (h1 is reserved for the page title, so headings shift down one);
    root-relative addresses put under ``base_path`` (the site's, "/REPO/" on a project site)."""
    md = markdown.Markdown(extensions=["extra", "sane_lists"], output_format="html")
    html = md.convert(text)
    html = _shift_headings(html)
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRS,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        strip_comments=True,
        attribute_filter=functools.partial(_address, base_path),
    )


def _address(base_path: str, element: str, attribute: str, value: str) -> str | None:
    """An href as the page writes it: under the base path when root-relative."""
    if attribute != "href" or base_path == "/":
        return value
    if value.startswith("/") and not value.startswith(("//", base_path)):   # ("//host" is another site)
        return base_path + value[1:]
    return value


def _shift_headings(html: str) -> str:
    for level in range(5, 0, -1):
        html = html.replace(f"<h{level}", f"<h{level + 1}").replace(f"</h{level}>", f"</h{level + 1}>")
    return html
