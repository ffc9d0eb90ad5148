"""generator.write.linkcheck on a small hand-made site: what a link may lead to and why it is broken.

The reader moved from html.parser to Lexbor (selectolax) and links are resolved once per
address: these cases hold the answers the old reader gave."""

from __future__ import annotations

from pathlib import Path

from generator.write.linkcheck import check_links


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    for rel, body in pages.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>", "utf-8")
    return tmp_path


def test_links_to_files_ids_and_elsewhere(tmp_path: Path) -> None:
    out = _site(tmp_path, {
        "index.html": (
            '<link rel="canonical" href="https://u.github.io/repo/missing/">'        # a canonical is not a link
            '<meta property="og:url" content="/repo/missing/">'
            '<a href="/repo/a/">a</a> <a href="/repo/a">a, no slash</a> <a href="a/#x">relative, id</a>'
            '<a href="#top" id="top">self</a> <a href="#nowhere">self, no id</a>'
            '<a href="https://arxiv.org/abs/2401.01234">away</a> <a href="mailto:x@example.org">mail</a>'
            '<a href="https://u.github.io/repo/a/#y">own origin, no id y</a>'
            '<a href="/elsewhere/">outside the base path</a> <img src="/repo/static/gone.png" alt="">'
            '<script type="application/ld+json">{"url": "/repo/not-a-link/"}</script>'
            '<a href="/repo/a/?q=1&amp;r=2#x">query and entity</a>'),
        "a/index.html": '<p id="x">x</p> <script src="/repo/static/app.js"></script>',
        "static/app.js": "",
    })
    (out / "static" / "app.js").write_text("", "utf-8")
    broken = {(b.page, b.target, b.reason) for b in check_links(out, "https://u.github.io/repo/")}
    assert broken == {
        ("index.html", "#nowhere", "has no element with id 'nowhere'"),
        ("index.html", "https://u.github.io/repo/a/#y", "has no element with id 'y'"),
        ("index.html", "/elsewhere/", "is outside the base path /repo/"),
        ("index.html", "/repo/static/gone.png", "has no file"),
    }


def test_a_link_is_judged_on_every_page_it_is_on(tmp_path: Path) -> None:
    """Resolved once per address, reported once per page: two pages with the same broken link."""
    out = _site(tmp_path, {"index.html": '<a href="/gone/">x</a>', "b/index.html": '<a href="/gone/">x</a>'})
    assert sorted(b.page for b in check_links(out, "/")) == ["b/index.html", "index.html"]
