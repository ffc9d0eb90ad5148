"""site.yaml: the site's settings and the fetch policy, read against ``schema.SITE``.

``load_site`` is the entry point of the whole configuration: it reads site.yaml, then
every author file and page, and raises one ``SiteError`` listing every problem of every file.
The typed objects are made from the schema tables (generator.config.typed): each key is declared once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar
from urllib.parse import urlsplit

from generator.config.accent import problem as accent_problem
from generator.config.authors import AuthorConfig, load_authors
from generator.config.check import CONTROLS, OUTSIDE, Checker, outside, read_table
from generator.config.pages import PageSource, load_pages
from generator.config.schema import DEPLOY, FETCH, SEARCH, SITE
from generator.config.typed import config_class
from generator.core.errors import Problem, SiteError
from generator.core.parse_cache import ParseCache
from generator.core.yamlfile import YMap, read_yaml


T = TypeVar("T")


FetchPolicy = config_class("FetchPolicy", FETCH, __name__, doc="How 'authorsite fetch' talks to servers.")
SearchOptions = config_class("SearchOptions", SEARCH, __name__, doc="What the search index holds.")
DeploySettings = config_class("DeploySettings", DEPLOY, __name__, doc="Where 'authorsite deploy' sends the site.")


class _Site:
    """What a site's configuration derives from its keys."""

    __slots__ = ()
    root: Path
    base_url: str
    output_dir: str

    @property
    def base_path(self) -> str:
        """The path part of base_url: '/' at a domain root, '/repo/' under a project path."""
        return urlsplit(self.base_url).path or "/"

    @property
    def output_path(self) -> Path:
        return self.root / self.output_dir

    @property
    def cache_path(self) -> Path:
        return self.root / "content" / "cache"


# The site's configuration: ``root``, then every key of site.yaml (base_url ends with '/'), then
# its authors and pages.
SiteConfig = config_class(
    "SiteConfig", SITE, __name__, head=(("root", "Path"),), base=_Site,
    own={"fetch": ("FetchPolicy", FetchPolicy()), "search": ("SearchOptions", SearchOptions()),
         "deploy": ("DeploySettings", DeploySettings())},
    tail=(("authors", "tuple[AuthorConfig, ...]", ()), ("pages", "tuple[PageSource, ...]", ())),
    doc="The site: site.yaml's keys (generator.config.schema.SITE), its authors and its pages.")


def load_site(root: Path, base_url: str | None = None, parsed: ParseCache | None = None,
              helper: bool = False) -> SiteConfig:
    """Read the whole site configuration; raise one ``SiteError`` listing every problem.
    ``parsed``: the parsed-input cache, for the author files (generator.incremental.parsed), which a forked
    process may parse in part meanwhile (``helper``: the build has more than one core)."""
    root = root.resolve()
    site_file = root / "site.yaml"
    if not site_file.is_file():
        raise SiteError("no site.yaml here", path=str(root),
                        hint="run this inside a site folder, or create one with 'authorsite init DIR'")
    if outside(site_file, root):
        raise SiteError(OUTSIDE, path="site.yaml")
    data, problems = read_yaml(site_file, "site.yaml")
    ck = Checker("site.yaml")
    ck.problems.extend(problems)
    m = ck.mapping(data if data is not None else YMap(), "site.yaml", 1) or YMap()
    values = read_table(ck, m, SITE, given={"base_url": base_url} if base_url is not None else None)
    values["output_dir"] = _output_dir(ck, m, root, values["output_dir"])
    values["fetch"] = FetchPolicy(**values["fetch"]) if values["fetch"] else FetchPolicy()
    values["search"] = SearchOptions(**values["search"]) if values["search"] else SearchOptions()
    values["deploy"] = DeploySettings(**values["deploy"]) if values["deploy"] else DeploySettings()
    values["extra"] = dict(values["extra"])
    values["venue_names"] = _venue_names(ck, m, values["venue_names"])
    if values["accent"] and (wrong := accent_problem(values["accent"])):
        ck.err(m.lines.get("accent"), wrong)
    authors = _collect(ck, lambda: load_authors(root, parsed, groups=values["groups"], helper=helper))
    pages = _collect(ck, lambda: load_pages(root))
    if ck.problems:
        raise SiteError.from_problems(ck.problems)
    return SiteConfig(root=root, **values, authors=authors, pages=pages)


def _venue_names(ck: Checker, m: YMap, names: dict) -> dict[str, str]:
    """site.yaml's venue_names, each a venue (a DBLP key or a venue's text) and its short name, both text."""
    wrong = [k for k, v in names.items() if not isinstance(k, str) or not isinstance(v, str) or not v.strip()]
    for k in wrong:
        ck.err(m.lines.get("venue_names"), f"'venue_names' maps a venue to its short name as text, such as "
               f"pvldb: PVLDB; found {k!r}: {names[k]!r}")
    return {k: v.strip() for k, v in names.items() if k not in wrong}


def _collect(ck: Checker, load: Callable[[], tuple[T, ...]]) -> tuple[T, ...]:
    """What ``load`` reads, its problems added to ``ck``'s: a site.yaml typo never hides the
    problems of the author files and pages (every problem of the site is reported at once)."""
    try:
        return load()
    except SiteError as exc:
        message = f"{exc.message} ({exc.hint})" if exc.hint else exc.message
        ck.problems.extend(exc.problems or (Problem(exc.path or "site.yaml", exc.line, message),))
        return ()


def domain_mismatch(config: SiteConfig) -> list[str]:
    """A CNAME that is not the base URL's host: GitHub Pages serves the site there, while every
    canonical URL, og:url and the sitemap name the base URL's."""
    host = urlsplit(config.base_url).hostname
    if not config.cname or not host or host == config.cname.lower():
        return []
    return [f"site.yaml: 'cname' is {config.cname} but the pages' addresses are under {config.base_url}; "
            f"set base_url: https://{config.cname}/ (or pass it with --base-url)"]


def _output_dir(ck: Checker, m: YMap, root: Path, output_dir: str) -> str:
    raw = m.get("output_dir")
    if isinstance(raw, str) and CONTROLS.search(raw):
        output_dir = raw   # refused below: a control character in a path is never a typo to ignore
    if _safe_output_dir(root, output_dir):
        return output_dir
    ck.err(m.lines.get("output_dir"), f"'output_dir' must be {SITE['output_dir'].expect}, found {output_dir!r}"
           " (not the site root, a parent, 'content', 'themes' or 'templates')")
    return SITE.default("output_dir")


def _safe_output_dir(root: Path, output_dir: str) -> bool:
    # No NUL or control characters (Path.resolve raises on NUL), no Windows paths (a
    # backslash or 'C:' would make a strangely named folder here), no '~' (never expanded).
    if (any(ord(c) < 32 or c == "\\" for c in output_dir) or output_dir.startswith("~")
            or re.match(r"[A-Za-z]:", output_dir)):
        return False
    try:
        target = (root / output_dir).resolve()
    except (OSError, ValueError):
        return False
    if target == root or root not in target.parents:
        return False
    first = target.relative_to(root).parts[0]
    return first not in ("content", "themes", "templates", "static", "generator", "tests", ".git")
