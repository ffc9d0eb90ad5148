"""Author files (content/authors/*.yaml): the profile, its links, filters and sources.

Read against ``schema.AUTHOR``; the sources are read by ``sources.read_sources``. The file
name is the page address, so unsafe names and two files with one slug are refused here,
before their contents are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from generator import ids
from generator.config.check import OUTSIDE, Checker, outside, read_table
from generator.config.schema import AUTHOR, FILTERS, LINKS
from generator.config.sources import Source, read_sources
from generator.errors import Problem, SiteError
from generator.model import Link
from generator.yamlfile import decode_yaml, read_bytes

if TYPE_CHECKING:
    from generator.parsed import ParsedInputs


@dataclass(frozen=True, slots=True)
class Filters:
    categories: tuple[str, ...] = FILTERS.default("categories")
    since: int | None = FILTERS.default("since")
    until: int | None = FILTERS.default("until")
    coauthors: tuple[str, ...] = FILTERS.default("coauthors")


@dataclass(frozen=True, slots=True)
class AuthorConfig:
    slug: str
    name: str
    path: str                    # as shown in messages, relative to the site root
    affiliation: str | None = AUTHOR.default("affiliation")
    links: tuple[Link, ...] = ()
    bio: str = AUTHOR.default("bio")                # Markdown
    aliases: tuple[str, ...] = AUTHOR.default("aliases")
    sources: tuple[Source, ...] = AUTHOR.default("sources")
    include: tuple[str, ...] = AUTHOR.default("include")
    exclude: tuple[str, ...] = AUTHOR.default("exclude")
    filters: Filters = Filters()
    template: str = AUTHOR.default("template")
    separate: tuple[tuple[str, str], ...] = AUTHOR.default("separate")   # record ids never merged


def load_authors(root: Path, parsed: ParsedInputs | None = None,
                 unchanged: Mapping[str, AuthorConfig] | None = None) -> tuple[AuthorConfig, ...]:
    """Every author file of the site, in file name order; one ``SiteError`` for all their problems.
    With ``parsed``, a file whose bytes were parsed before is not parsed again. ``unchanged``:
    the preview's authors by file (``AuthorConfig.path``) that the watcher saw no change to."""
    folder = root / "content" / "authors"
    if not folder.is_dir():
        return ()
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    problems: list[Problem] = []
    authors: list[AuthorConfig] = []
    seen: dict[str, str] = {}
    for f in files:
        display = f.relative_to(root).as_posix()
        prior = unchanged.get(display) if unchanged else None
        if prior is not None:
            seen[f.stem] = display
            authors.append(prior)
            continue
        refused = _refuse_file(f, root, display, seen)
        if refused:
            problems.append(refused)
            continue
        seen[f.stem] = display
        try:
            data = read_bytes(f, display)
            if parsed is None:
                author, found = _load_author(data, f.stem, display)
            else:
                author, found = parsed.get("author", display, data, partial(_load_author, slug=f.stem, display=display))
        except SiteError as exc:
            message = f"{exc.message} ({exc.hint})" if exc.hint else exc.message
            problems.extend(exc.problems or (Problem(exc.path or display, exc.line, message),))
            continue
        problems.extend(found)
        if author is not None:
            authors.append(author)
    if problems:
        raise SiteError.from_problems(problems)
    return tuple(authors)


def _refuse_file(f: Path, root: Path, display: str, seen: dict[str, str]) -> Problem | None:
    """Why the file is not read at all, or None."""
    slug = f.stem
    if outside(f, root):
        return Problem(display, None, OUTSIDE)
    if not ids.is_slug(slug):
        return Problem(display, None, f"file name '{f.name}' does not make a safe page address; "
                       "use lower-case letters, digits and hyphens, e.g. 'jane-doe.yaml'")
    if slug in seen:
        return Problem(display, None, f"two authors have the slug '{slug}' "
                       f"({seen[slug]} and {display}); rename one file")
    return None


def _load_author(raw: bytes, slug: str, display: str) -> tuple[AuthorConfig | None, list[Problem]]:
    data, parse_problems = decode_yaml(raw, display)
    ck = Checker(display)
    ck.problems.extend(parse_problems)
    m = ck.mapping(data, "author file", 1)
    if m is None:
        return None, ck.problems
    v = read_table(ck, m, AUTHOR, readers={"sources": read_sources})
    author = AuthorConfig(
        slug=slug, name=v["name"] or slug, path=display, affiliation=v["affiliation"],
        links=links_of(v["links"]), bio=v["bio"], aliases=v["aliases"], sources=v["sources"],
        include=v["include"], exclude=v["exclude"], filters=Filters(**v["filters"]) if v["filters"] else Filters(),
        template=v["template"], separate=v["separate"],
    )
    return author, ck.problems


def links_of(values: dict[str, Any] | None) -> tuple[Link, ...]:
    """The links given, in the schema's order, each labelled as the schema says."""
    if not values:
        return ()
    return tuple(Link(key.label, values[key.name], key.name) for key in LINKS.keys if values[key.name])
