"""Load and validate ``site.yaml``, ``content/authors/*.yaml`` and ``content/pages/*.md``.

Validation is explicit code: small helpers read one key each and record a
``Problem`` (file, line, key path, what is allowed, what was found) instead of
raising, so that every problem of a file is reported together in one ``SiteError``.
Unknown keys are errors with a "did you mean" hint, as in Zola.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, TypeVar
from urllib.parse import urlsplit

from generator import ids
from generator.errors import Problem, SiteError
from generator.model import Link, Person, Record, record_key, title_digest  # noqa: F401 (title_digest re-exported)
from generator.taxonomy import load_taxonomy
from generator.yamlfile import YFloat, YList, YMap, parse_yaml, read_yaml

ARXIV_API = "https://export.arxiv.org/api/query"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    arxiv_api: str = ARXIV_API
    delay_seconds: float = 3.0
    page_size: int = 100
    max_results: int = 2000
    timeout_seconds: float = 30.0
    retries: int = 4
    retry_after_cap: float = 120.0


@dataclass(frozen=True, slots=True)
class ArxivSource:
    query: str
    categories: tuple[str, ...] = ()
    line: int = 1


@dataclass(frozen=True, slots=True)
class FeedSource:
    url: str
    label: str = "Feed"
    line: int = 1


@dataclass(frozen=True, slots=True)
class RecordsSource:
    records: tuple[Record, ...]
    line: int = 1


Source = ArxivSource | FeedSource | RecordsSource


@dataclass(frozen=True, slots=True)
class Filters:
    categories: tuple[str, ...] = ()
    since: int | None = None
    until: int | None = None
    coauthors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AuthorConfig:
    slug: str
    name: str
    path: str                    # as shown in messages, relative to the site root
    affiliation: str | None = None
    links: tuple[Link, ...] = ()
    bio: str = ""                # Markdown
    aliases: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    filters: Filters = Filters()
    template: str = "author.html"


@dataclass(frozen=True, slots=True)
class PageSource:
    name: str
    path: str
    title: str
    body: str                    # Markdown
    description: str = ""
    weight: int = 0
    in_nav: bool = True


@dataclass(frozen=True, slots=True)
class SiteConfig:
    root: Path
    title: str
    base_url: str                # ends with '/'
    description: str = ""
    language: str = "en"
    theme: str = "default"
    output_dir: str = "output"
    contact: str | None = None
    cname: str | None = None
    paginate: int = 50
    fetch: FetchPolicy = FetchPolicy()
    extra: Mapping[str, Any] = field(default_factory=dict)
    authors: tuple[AuthorConfig, ...] = ()
    pages: tuple[PageSource, ...] = ()

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


# ----------------------------------------------------------------------------- checking helpers

class _Checker:
    """Collects problems for one file; each getter returns a value or None."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def err(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def mapping(self, value: Any, where: str, line: int) -> YMap | None:  # noqa: ANN401
        if isinstance(value, YMap):
            return value
        self.err(line, f"{where}: expected a mapping (key: value lines), found {_describe(value)}")
        return None

    def keys(self, m: YMap, allowed: tuple[str, ...], where: str) -> None:
        for key in m:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                prefix = f"{where}." if where else ""
                self.err(m.lines[key], f"unknown key '{prefix}{key}'{hint}; allowed keys: {', '.join(allowed)}")

    def get(self, m: YMap, key: str, where: str, kind: type | tuple[type, ...], expected: str,
            required: bool = False) -> Any:  # noqa: ANN401
        name = f"{where}.{key}" if where else key
        if key not in m or m[key] is None:
            if required:
                self.err(m.line, f"missing required key '{name}' ({expected})")
            return None
        value = m[key]
        if isinstance(value, str):
            value = _no_controls(value)
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            ok = False
        else:
            ok = isinstance(value, kind)
        if not ok:
            self.err(m.lines[key], f"'{name}' must be {expected}, found {_describe(value)}")
            return None
        return value

    def text(self, m: YMap, key: str, where: str = "", required: bool = False) -> str | None:
        v = self.get(m, key, where, str, "text", required)
        if v is not None and not v.strip():
            if required:
                self.err(m.lines[key], f"'{_join(where, key)}' must not be empty")
            return None
        return v.strip() if isinstance(v, str) else None

    def integer(self, m: YMap, key: str, where: str, lo: int, hi: int, required: bool = False) -> int | None:
        v = self.get(m, key, where, int, f"a whole number from {lo} to {hi}", required)
        if v is not None and not lo <= v <= hi:
            self.err(m.lines[key], f"'{_join(where, key)}' must be from {lo} to {hi}, found {v}")
            return None
        return v

    def number(self, m: YMap, key: str, where: str, lo: float, hi: float) -> float | None:
        v = self.get(m, key, where, (int, float), f"a number from {lo} to {hi}")
        if v is not None and not lo <= v <= hi:
            self.err(m.lines[key], f"'{_join(where, key)}' must be from {lo} to {hi}, found {v}")
            return None
        return float(v) if v is not None else None

    def texts(self, m: YMap, key: str, where: str = "") -> tuple[tuple[str, int], ...]:
        """A list of strings, each with its line; a lone string counts as a list of one."""
        name = _join(where, key)
        if key not in m or m[key] is None:
            return ()
        v = m[key]
        if isinstance(v, str):
            return ((v.strip(), m.lines[key]),)
        if not isinstance(v, YList):
            self.err(m.lines[key], f"'{name}' must be a list of text, found {_describe(v)}")
            return ()
        out = []
        for i, item in enumerate(v):
            if isinstance(item, str) and _no_controls(item).strip():
                out.append((_no_controls(item).strip(), v.lines[i]))
            else:
                self.err(v.lines[i], f"'{name}[{i}]' must be text, found {_describe(item)}")
        return tuple(out)

    def arxiv_ids(self, m: YMap, key: str, where: str = "") -> tuple[str, ...]:
        """A list of arXiv ids; catches ids that YAML read as numbers."""
        name = _join(where, key)
        if key not in m or m[key] is None:
            return ()
        v = m[key]
        if isinstance(v, (YFloat, str)) and not isinstance(v, bool):
            one = self.one_arxiv_id(v, name, m.lines[key])  # a lone id: accept it, or explain (quote it)
            return (one,) if one else ()
        items = v if isinstance(v, YList) else None
        if items is None:
            self.err(m.lines[key], f"'{name}' must be a list of arXiv ids, found {_describe(v)}")
            return ()
        out = []
        for i, item in enumerate(items):
            self_id = self.one_arxiv_id(item, f"{name}[{i}]", items.lines[i])
            if self_id:
                out.append(self_id)
        return tuple(out)

    def one_arxiv_id(self, item: Any, name: str, line: int) -> str | None:  # noqa: ANN401
        if isinstance(item, (YFloat, int)) and not isinstance(item, bool):
            raw = item.raw if isinstance(item, YFloat) else str(item)
            self.err(line, f"'{name}': {raw} was read by YAML as the number {item!r}, not an arXiv id; "
                           f"put it in quotes: '{raw}'")
            return None
        if not isinstance(item, str) or ids.parse_arxiv_id(item) is None:
            self.err(line, f"'{name}' must be an arXiv id such as '2401.01234' or 'hep-th/9901001', "
                           f"found {_describe(item)}")
            return None
        return ids.parse_arxiv_id(item)[0]  # type: ignore[index]

    def categories(self, m: YMap, key: str, where: str = "") -> tuple[str, ...]:
        tax = load_taxonomy()
        out = []
        for code, line in self.texts(m, key, where):
            canon = tax.canonical(code)
            if canon is None:
                close = difflib.get_close_matches(code, list(tax.categories), n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.err(line, f"'{_join(where, key)}': '{code}' is not an arXiv category{hint}")
            else:
                out.append(canon)
        return tuple(out)


# C0/C1 control characters other than tab and line breaks (YAML lets "\x07" or "\e" through as
# escapes): not allowed in XML, so one of them would make an author's Atom feed unreadable.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")


def _no_controls(text: str) -> str:
    return _CONTROLS.sub("", text)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _describe(value: Any) -> str:  # noqa: ANN401
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"true/false ({str(value).lower()})"
    if isinstance(value, YFloat):
        return f"the number {value.raw}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(value, (YMap, dict)):
        return "a mapping"
    if isinstance(value, (YList, list)):
        return "a list"
    return type(value).__name__


# ----------------------------------------------------------------------------- site.yaml

SITE_KEYS = ("title", "description", "base_url", "language", "theme", "output_dir", "contact",
             "cname", "paginate", "fetch", "extra")
FETCH_KEYS = ("arxiv_api", "delay_seconds", "page_size", "max_results", "timeout_seconds", "retries",
              "retry_after_cap")


def load_site(root: Path, base_url: str | None = None) -> SiteConfig:
    """Read the whole site configuration; raise one ``SiteError`` listing every problem."""
    root = root.resolve()
    site_file = root / "site.yaml"
    if not site_file.is_file():
        raise SiteError("no site.yaml here", path=str(root),
                        hint="run this inside a site folder, or create one with 'authorsite init DIR'")
    if _outside(site_file, root):
        raise SiteError(_OUTSIDE, path="site.yaml")
    data, problems = read_yaml(site_file, "site.yaml")
    ck = _Checker("site.yaml")
    ck.problems.extend(problems)
    m = ck.mapping(data if data is not None else YMap(), "site.yaml", 1) or YMap()
    ck.keys(m, SITE_KEYS, "")
    title = ck.text(m, "title", required=True) or "Untitled"
    burl = base_url if base_url is not None else (ck.text(m, "base_url") or "/")
    burl = _check_base_url(ck, burl, m.lines.get("base_url") if base_url is None else None)
    output_dir = ck.text(m, "output_dir") or "output"
    raw_output = m.get("output_dir")
    if isinstance(raw_output, str) and _CONTROLS.search(raw_output):
        output_dir = raw_output   # refused below: a control character in a path is never a typo to ignore
    if not _safe_output_dir(root, output_dir):
        ck.err(m.lines.get("output_dir"), f"'output_dir' must be a new folder inside the site, found {output_dir!r}"
               " (not the site root, a parent, 'content', 'themes' or 'templates')")
        output_dir = "output"
    theme = ck.text(m, "theme") or "default"
    if not ids.is_slug(theme):
        ck.err(m.lines.get("theme"), f"'theme' must be a folder name under themes/, found {theme!r}")
        theme = "default"
    cname = ck.text(m, "cname")
    if cname and not re.fullmatch(r"[A-Za-z0-9.-]{1,253}", cname):
        ck.err(m.lines.get("cname"), f"'cname' must be a domain name such as example.org, found {cname!r}")
        cname = None
    fetch = _load_fetch(ck, m)
    extra = ck.get(m, "extra", "", YMap, "a mapping") or {}
    description = ck.text(m, "description") or ""
    language = ck.text(m, "language") or "en"
    if not re.fullmatch(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*", language):
        ck.err(m.lines.get("language"), f"'language' must be a language tag such as en or pt-BR, found {language!r}")
        language = "en"
    contact = ck.text(m, "contact")
    paginate = ck.integer(m, "paginate", "", 5, 10000) or 50
    if ck.problems:
        raise SiteError.from_problems(ck.problems)
    authors = load_authors(root)
    pages = load_pages(root)
    return SiteConfig(
        root=root, title=title, base_url=burl, description=description, language=language, theme=theme,
        output_dir=output_dir, contact=contact, cname=cname, paginate=paginate, fetch=fetch,
        extra=dict(extra), authors=authors, pages=pages,
    )


def _check_base_url(ck: _Checker, url: str, line: int | None) -> str:
    url = url.strip()
    if url.startswith("/") and not url.startswith("//"):
        ok = True
    else:
        ok = ids.safe_url(url) is not None
    if not ok:
        ck.err(line, f"'base_url' must be an http(s) URL such as https://user.github.io/repo/ "
                     f"or a path starting with '/', found {url!r}")
        return "/"
    return url if url.endswith("/") else url + "/"


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


def _load_fetch(ck: _Checker, m: YMap) -> FetchPolicy:
    f = ck.get(m, "fetch", "", YMap, "a mapping")
    if f is None:
        return FetchPolicy()
    ck.keys(f, FETCH_KEYS, "fetch")
    api = ck.text(f, "arxiv_api", "fetch")
    if api is not None and ids.safe_url(api) is None:
        ck.err(f.lines["arxiv_api"], f"'fetch.arxiv_api' must be an http(s) URL, found {api!r}")
        api = None
    d = FetchPolicy()
    return FetchPolicy(
        arxiv_api=api or d.arxiv_api,
        delay_seconds=_or(ck.number(f, "delay_seconds", "fetch", 0, 600), d.delay_seconds),
        page_size=_or(ck.integer(f, "page_size", "fetch", 1, 2000), d.page_size),
        max_results=_or(ck.integer(f, "max_results", "fetch", 1, 10000), d.max_results),
        timeout_seconds=_or(ck.number(f, "timeout_seconds", "fetch", 1, 600), d.timeout_seconds),
        retries=_or(ck.integer(f, "retries", "fetch", 0, 10), d.retries),
        retry_after_cap=_or(ck.number(f, "retry_after_cap", "fetch", 0, 3600), d.retry_after_cap),
    )


def _or(value: T | None, default: T) -> T:
    return default if value is None else value


# ----------------------------------------------------------------------------- authors

AUTHOR_KEYS = ("name", "affiliation", "links", "bio", "aliases", "sources", "include", "exclude",
               "filters", "template")
LINK_KINDS = ("homepage", "orcid", "arxiv", "dblp", "scholar", "github", "email")
FILTER_KEYS = ("categories", "since", "until", "coauthors")
ARXIV_KEYS = ("query", "categories")
FEED_KEYS = ("url", "label")
RECORD_KEYS = ("title", "year", "abstract", "subjects", "authors", "arxiv_id", "doi", "url",
               "journal_ref", "comment", "source", "published")


def load_authors(root: Path) -> tuple[AuthorConfig, ...]:
    folder = root / "content" / "authors"
    if not folder.is_dir():
        return ()
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    problems: list[Problem] = []
    authors: list[AuthorConfig] = []
    seen: dict[str, str] = {}
    for f in files:
        display = f.relative_to(root).as_posix()
        slug = f.stem
        if _outside(f, root):
            problems.append(Problem(display, None, _OUTSIDE))
            continue
        if not ids.is_slug(slug):
            problems.append(Problem(display, None, f"file name '{f.name}' does not make a safe page address; "
                                    "use lower-case letters, digits and hyphens, e.g. 'jane-doe.yaml'"))
            continue
        if slug in seen:
            problems.append(Problem(display, None, f"two authors have the slug '{slug}' "
                                    f"({seen[slug]} and {display}); rename one file"))
            continue
        seen[slug] = display
        try:
            author, found = _load_author(f, slug, display)
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


def _load_author(path: Path, slug: str, display: str) -> tuple[AuthorConfig | None, list[Problem]]:
    data, parse_problems = read_yaml(path, display)
    ck = _Checker(display)
    ck.problems.extend(parse_problems)
    m = ck.mapping(data, "author file", 1)
    if m is None:
        return None, ck.problems
    ck.keys(m, AUTHOR_KEYS, "")
    name = ck.text(m, "name", required=True)
    links = _load_links(ck, m)
    sources = _load_sources(ck, m)
    filters = _load_filters(ck, m)
    template = ck.text(m, "template") or "author.html"
    if not re.fullmatch(r"[a-z0-9_-]+\.html", template):
        ck.err(m.lines.get("template"), f"'template' must be a template file name such as author.html, found {template!r}")
    author = AuthorConfig(
        slug=slug, name=name or slug, path=display, affiliation=ck.text(m, "affiliation"), links=links,
        bio=ck.text(m, "bio") or "", aliases=tuple(a for a, _ in ck.texts(m, "aliases")), sources=sources,
        include=ck.arxiv_ids(m, "include"), exclude=ck.arxiv_ids(m, "exclude"), filters=filters,
        template=template,
    )
    return author, ck.problems


def _load_links(ck: _Checker, m: YMap) -> tuple[Link, ...]:
    lm = ck.get(m, "links", "", YMap, "a mapping of link kinds to URLs")
    if lm is None:
        return ()
    ck.keys(lm, LINK_KINDS, "links")
    out = []
    labels = {"homepage": "Homepage", "orcid": "ORCID", "arxiv": "arXiv", "dblp": "DBLP",
              "scholar": "Google Scholar", "github": "GitHub", "email": "Email"}
    for kind in LINK_KINDS:
        value = ck.text(lm, kind, "links")
        if value is None:
            continue
        url = _link_url(kind, value)
        if url is None:
            ck.err(lm.lines[kind], f"'links.{kind}' must be {_LINK_EXPECT[kind]}, found {value!r}")
            continue
        out.append(Link(labels[kind], url, kind))
    return tuple(out)


_LINK_EXPECT = {
    "orcid": "an ORCID iD such as 0000-0002-1825-0097 or its https://orcid.org/ URL",
    "arxiv": "an arXiv author id such as cui_b_1 or an https://arxiv.org/a/ URL",
    "email": "an e-mail address",
}
for _k in ("homepage", "dblp", "scholar", "github"):
    _LINK_EXPECT[_k] = "an http(s) URL"


def _link_url(kind: str, value: str) -> str | None:
    if kind == "orcid":
        m = re.fullmatch(r"(?:https?://orcid\.org/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", value)
        return f"https://orcid.org/{m.group(1)}" if m else None
    if kind == "arxiv" and re.fullmatch(r"[a-z0-9_]{2,64}", value):
        return f"https://arxiv.org/a/{value}"
    if kind == "email":
        return f"mailto:{value}" if re.fullmatch(r"[^@\s\"'<>]+@[^@\s\"'<>]+\.[A-Za-z]{2,}", value) else None
    return ids.safe_url(value)


def _load_filters(ck: _Checker, m: YMap) -> Filters:
    fm = ck.get(m, "filters", "", YMap, "a mapping")
    if fm is None:
        return Filters()
    ck.keys(fm, FILTER_KEYS, "filters")
    return Filters(
        categories=ck.categories(fm, "categories", "filters"),
        since=ck.integer(fm, "since", "filters", 1900, 2100),
        until=ck.integer(fm, "until", "filters", 1900, 2100),
        coauthors=tuple(a for a, _ in ck.texts(fm, "coauthors", "filters")),
    )


def _load_sources(ck: _Checker, m: YMap) -> tuple[Source, ...]:
    if "sources" not in m or m["sources"] is None:
        return ()
    seq = m["sources"]
    if not isinstance(seq, YList):
        ck.err(m.lines["sources"], f"'sources' must be a list (lines starting with '- '), found {_describe(seq)}")
        return ()
    out: list[Source] = []
    for i, item in enumerate(seq):
        where = f"sources[{i}]"
        sm = ck.mapping(item, where, seq.lines[i])
        if sm is None:
            continue
        kinds = [k for k in sm if k in ("arxiv", "feed", "records")]
        ck.keys(sm, ("arxiv", "feed", "records"), where)
        if len(kinds) != 1:
            if len(sm) and not [k for k in sm if k not in ("arxiv", "feed", "records")]:
                ck.err(sm.line, f"'{where}' must have exactly one of arxiv, feed, records; found {', '.join(map(str, kinds))}")
            elif not sm:
                ck.err(sm.line, f"'{where}' is empty: give one of arxiv, feed, records")
            continue
        kind = kinds[0]
        value, line = sm[kind], sm.lines[kind]
        if kind == "arxiv":
            src = _load_arxiv(ck, value, f"{where}.arxiv", line)
        elif kind == "feed":
            src = _load_feed(ck, value, f"{where}.feed", line)
        else:
            src = _load_records(ck, value, f"{where}.records", line)
        if src is not None:
            out.append(src)
    return tuple(out)


def _load_arxiv(ck: _Checker, value: Any, where: str, line: int) -> ArxivSource | None:  # noqa: ANN401
    if isinstance(value, str) and value.strip():
        return ArxivSource(query=value.strip(), line=line)
    am = ck.mapping(value, where, line)
    if am is None:
        return None
    ck.keys(am, ARXIV_KEYS, where)
    query = ck.text(am, "query", where, required=True)
    cats = ck.categories(am, "categories", where)
    return ArxivSource(query=query, categories=cats, line=line) if query else None


def _load_feed(ck: _Checker, value: Any, where: str, line: int) -> FeedSource | None:  # noqa: ANN401
    fm = ck.mapping(value, where, line)
    if fm is None:
        return None
    ck.keys(fm, FEED_KEYS, where)
    url = ck.text(fm, "url", where, required=True)
    if url is not None and ids.safe_url(url) is None:
        ck.err(fm.lines["url"], f"'{where}.url' must be an http(s) URL, found {url!r}")
        return None
    return FeedSource(url=url, label=ck.text(fm, "label", where) or "Feed", line=line) if url else None


def _load_records(ck: _Checker, value: Any, where: str, line: int) -> RecordsSource | None:  # noqa: ANN401
    if not isinstance(value, YList):
        ck.err(line, f"'{where}' must be a list of records, found {_describe(value)}")
        return None
    tax = load_taxonomy()
    records = []
    for i, item in enumerate(value):
        w = f"{where}[{i}]"
        rm = ck.mapping(item, w, value.lines[i])
        if rm is None:
            continue
        ck.keys(rm, RECORD_KEYS, w)
        title = ck.text(rm, "title", w, required=True)
        year = ck.integer(rm, "year", w, 1900, 2100, required=True)
        arxiv_id = None
        if rm.get("arxiv_id") is not None:
            arxiv_id = ck.one_arxiv_id(rm["arxiv_id"], f"{w}.arxiv_id", rm.lines["arxiv_id"])
        doi = ck.text(rm, "doi", w)
        if doi is not None:
            doi_n = ids.normalize_doi(doi)
            if doi_n is None:
                ck.err(rm.lines["doi"], f"'{w}.doi' must be a DOI such as 10.1145/3299869.3319893, found {doi!r}")
            doi = doi_n
        url = ck.text(rm, "url", w)
        if url is not None and ids.safe_url(url) is None:
            ck.err(rm.lines["url"], f"'{w}.url' must be an http(s) URL, found {url!r}")
            url = None
        subjects = ck.categories(rm, "subjects", w)
        published = rm.get("published")
        pub = None
        if published is not None:
            pub = _iso_date(published)
            if pub is None:
                ck.err(rm.lines["published"], f"'{w}.published' must be a date such as 2024-05-31, found {_describe(published)}")
        source = ck.text(rm, "source", w) or "arXiv"
        authors = tuple(Person(a) for a, _ in ck.texts(rm, "authors", w))
        abstract = " ".join((ck.text(rm, "abstract", w) or "").split())
        journal_ref, comment = ck.text(rm, "journal_ref", w), ck.text(rm, "comment", w)
        if title is None or year is None:
            continue
        records.append(Record(
            key=record_key(arxiv_id, doi, title, year),
            title=" ".join(title.split()), year=year, source=source, arxiv_id=arxiv_id, authors=authors,
            abstract=abstract, published=pub, updated=pub,
            primary_subject=subjects[0] if subjects else None, subjects=tuple(dict.fromkeys(subjects)),
            doi=doi, journal_ref=journal_ref, comment=comment, url=url, order=i,
        ))
    del tax
    return RecordsSource(records=tuple(records), line=line)


def _iso_date(value: Any) -> str | None:  # noqa: ANN401
    import datetime as dt

    if isinstance(value, dt.datetime):
        value = value.astimezone(dt.timezone.utc) if value.tzinfo else value
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.strftime("%Y-%m-%dT00:00:00Z")
    return None


# ----------------------------------------------------------------------------- pages

PAGE_KEYS = ("title", "description", "weight", "nav")
MAX_PAGE_BYTES = 2_000_000
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?\n?", re.S | re.M)


def load_pages(root: Path) -> tuple[PageSource, ...]:
    folder = root / "content" / "pages"
    if not folder.is_dir():
        return ()
    problems: list[Problem] = []
    pages = []
    for f in sorted(folder.glob("*.md")):
        display = f.relative_to(root).as_posix()
        if _outside(f, root):
            problems.append(Problem(display, None, _OUTSIDE))
            continue
        if not ids.is_slug(f.stem):
            problems.append(Problem(display, None, f"file name '{f.name}' does not make a safe page address; "
                                    "use lower-case letters, digits and hyphens"))
            continue
        size = f.stat().st_size
        if size > MAX_PAGE_BYTES:   # checked before reading: parsing 10 MB of front matter takes ~500 MB
            problems.append(Problem(display, None, f"file is {size} bytes, more than the {MAX_PAGE_BYTES} allowed"))
            continue
        try:
            text = f.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            problems.append(Problem(display, None, "file is not valid UTF-8"))
            continue
        match = _FRONT.match(text)
        if not match:
            problems.append(Problem(display, 1, "missing front matter: start the file with '---', "
                                    "a 'title: ...' line and '---'"))
            continue
        try:
            data, found = parse_yaml(match.group(1), display)
        except SiteError as exc:
            line = exc.line + 1 if exc.line else None  # the front matter starts on line 2
            problems.append(Problem(display, line, exc.message))
            continue
        ck = _Checker(display)
        ck.problems.extend(Problem(p.path, (p.line or 0) + 1, p.message) for p in found)
        m = ck.mapping(data if data is not None else YMap(), "front matter", 1)
        if m is None:
            problems.extend(ck.problems)
            continue
        _shift_lines(m, 1)
        ck.keys(m, PAGE_KEYS, "")
        title = ck.text(m, "title", required=True)
        weight = ck.integer(m, "weight", "", -10000, 10000)
        nav = ck.get(m, "nav", "", bool, "true or false")
        description = ck.text(m, "description") or ""
        problems.extend(ck.problems)
        if title is not None and not ck.problems:
            pages.append(PageSource(name=f.stem, path=display, title=title, body=text[match.end():],
                                    description=description, weight=weight or 0,
                                    in_nav=True if nav is None else nav))
    if problems:
        raise SiteError.from_problems(problems)
    return tuple(sorted(pages, key=lambda p: (p.weight, p.name)))


_OUTSIDE = ("is a symbolic link to a file outside the site; it is not read (copy the file into the site "
            "instead)")


def _outside(path: Path, root: Path) -> bool:
    """True if ``path`` (a symlink, or inside a symlinked folder) leads out of the site folder."""
    try:
        return not path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):   # a symlink loop
        return True


def _shift_lines(m: YMap, by: int) -> None:
    m.line += by
    for k in m.lines:
        m.lines[k] += by
