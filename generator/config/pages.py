"""Free pages (content/pages/*.md): YAML front matter read against ``schema.PAGE``, then Markdown.

The front matter starts on the file's second line (after '---'), so the line numbers the
YAML parser gives are shifted by one to name the file's own lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.core import ids
from generator.config.check import OUTSIDE, Checker, outside, read_table
from generator.config.schema import PAGE
from generator.core.errors import Problem, SiteError
from generator.core.yamlfile import YMap, parse_yaml

MAX_PAGE_BYTES = 2_000_000
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?\n?", re.S | re.M)


@dataclass(frozen=True, slots=True)
class PageSource:
    name: str
    path: str
    title: str
    body: str                    # Markdown
    description: str = PAGE.default("description")
    weight: int = PAGE.default("weight")
    in_nav: bool = PAGE.default("nav")


def load_pages(root: Path) -> tuple[PageSource, ...]:
    """Every page of the site, by weight then name; one ``SiteError`` for all their problems."""
    folder = root / "content" / "pages"
    if not folder.is_dir():
        return ()
    problems: list[Problem] = []
    pages = []
    for f in sorted(folder.glob("*.md")):
        display = f.relative_to(root).as_posix()
        text = _read_page(f, root, display, problems)
        if text is None:
            continue
        page, found = _parse_page(text, f.stem, display)
        problems.extend(found)
        if page is not None:
            pages.append(page)
    if problems:
        raise SiteError.from_problems(problems)
    return tuple(sorted(pages, key=lambda p: (p.weight, p.name)))


def _read_page(f: Path, root: Path, display: str, problems: list[Problem]) -> str | None:
    """The page's text, or None with the reason added to ``problems``."""
    if outside(f, root):
        problems.append(Problem(display, None, OUTSIDE))
        return None
    if not ids.is_slug(f.stem):
        problems.append(Problem(display, None, f"file name '{f.name}' does not make a safe page address; "
                                "use lower-case letters, digits and hyphens"))
        return None
    size = f.stat().st_size
    if size > MAX_PAGE_BYTES:   # checked before reading: parsing 10 MB of front matter takes ~500 MB
        problems.append(Problem(display, None, f"file is {size} bytes, more than the {MAX_PAGE_BYTES} allowed"))
        return None
    try:
        return f.read_bytes().decode("utf-8").removeprefix("\ufeff")   # editors on Windows write a BOM
    except UnicodeDecodeError:
        problems.append(Problem(display, None, "file is not valid UTF-8"))
        return None


def _parse_page(text: str, name: str, display: str) -> tuple[PageSource | None, list[Problem]]:
    match = _FRONT.match(text)
    if not match and re.match(r"---[ \t]*\r?\n", text):
        return None, [Problem(display, 1, "the front matter that starts here is never closed: end it with "
                              "a line of '---' before the page's text")]
    if not match:
        return None, [Problem(display, 1, "missing front matter: start the file with '---', "
                              "a 'title: ...' line and '---'")]
    try:
        data, found = parse_yaml(match.group(1), display)
    except SiteError as exc:
        line = exc.line + 1 if exc.line else None  # the front matter starts on line 2
        return None, [Problem(display, line, exc.message)]
    ck = Checker(display)
    ck.problems.extend(Problem(p.path, (p.line or 0) + 1, p.message) for p in found)
    m = ck.mapping(data if data is not None else YMap(), "front matter", 1)
    if m is None:
        return None, ck.problems
    _shift_lines(m, 1)
    v = read_table(ck, m, PAGE)
    if v["title"] is None or ck.problems:
        return None, ck.problems
    return PageSource(name=name, path=display, title=v["title"], body=text[match.end():],
                      description=v["description"], weight=v["weight"], in_nav=v["nav"]), ck.problems


def _shift_lines(m: YMap, by: int) -> None:
    m.line += by
    for k in m.lines:
        m.lines[k] += by
