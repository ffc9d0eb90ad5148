"""Plan the pages and files of a site and render each one. Pure given a Jinja environment.

``plan_pages`` turns the site model into a list of ``PagePlan`` (route, template, context);
``plan_tasks`` turns those, the exports and the static files into ``Task`` values
(generator.render.tasks), each making the bytes of one file and naming exactly what it reads
(``Task.reads``: a page's template context, an export's author). Pages are rendered whole
in memory (a template error half-way must not leave a truncated page). Paths and URLs come
from generator.core.routes; the templates' globals from generator.render.template_globals, where each
record's partials are rendered once per process and reused on every page that lists them.
"""

from __future__ import annotations

import functools
import math
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Iterator

import jinja2

from generator.core import routes
from generator.assemble import site as assemble
from generator.render import i18n
from generator.core.errors import SiteError
from generator.render.exports import authors_index, to_bibtex, to_csl_json
from generator.assemble.feed_ids import Announcement, FeedIds
from generator.render.lab import Lab, lab_of
from generator.render.i18n import N_
from generator.core.model import Author, Record, SiteModel, Subject, SubjectHeading
from generator.assemble.papers import key_of
from generator.core.routes import Route, Urls
from generator.render.search_docs import indexed_records
from generator.index.lazy import keys_of
from generator.core.taxonomy import Taxonomy
from generator.render.tasks import Task, author_group, subject_group
from generator.render.template_globals import newest_update, template_filters, template_globals
from generator.assemble.venues import venue_index


@dataclass(frozen=True, slots=True)
class PagePlan:
    route: Route
    template: str
    context: dict[str, Any]   # exactly what the page reads besides the site's settings (its Task.reads)
    in_sitemap: bool = True
    group: str = "site"       # plans of one group share rendered record partials: render them in one process
    weight: int = 1           # rough cost (records listed), for balancing processes

    @property
    def rel_path(self) -> str:
        return self.route.path


def plan_pages(site: SiteModel, taxonomy: Taxonomy, lab: Lab | None = None) -> list[PagePlan]:
    """Every page and feed of the site, in a stable order (``lab``: the lab's list, ``lab_of``,
    made already; made here when the site has one)."""
    return list(iter_pages(site, taxonomy, lab))


def iter_pages(site: SiteModel, taxonomy: Taxonomy, lab: Lab | None = None) -> Iterator[PagePlan]:
    """``plan_pages``, one page at a time (a plan over the index holds none: generator.render.remake)."""
    yield PagePlan(routes.home(), "index.html", {"page_kind": "home", "authors": site.authors})
    if site.publications:
        yield from _lab_pages(site, lab if lab is not None else lab_of(site.authors, site.groups))
    for a in site.authors:
        yield from _author_pages(site, a)
    yield PagePlan(routes.subjects(), "subjects.html",
                   {"page_kind": "subjects", "groups": _group_subjects(site.subjects, taxonomy)})
    for s in site.subjects:
        yield from _subject_pages(s, site.paginate)
        yield _feed(routes.subject(s.code), f"{s.name} ({s.code}) · {site.title}",
                    N_("Records in %(name)s by the profiled authors."), s.records[:site.feed_size],
                    subject_group(s.code), site.feeds, name=s.name)
    if site.papers:
        yield from _paper_pages(site)
    if site.venues:
        yield from _venue_pages(site)
    newest = site.newest if site.newest is not None else assemble.newest(site.authors, site.feed_size)
    yield _feed(routes.home(), site.title, N_("New records of the profiled authors."), newest[:site.feed_size],
                feeds=site.feeds, announce=_announced(site, site.feeds.announced if site.feeds else ()))
    yield PagePlan(routes.search(), "search.html", {"page_kind": "search"})
    yield from (PagePlan(routes.page(p.name), "page.html", {"page_kind": "page", "page": p}) for p in site.pages)
    yield PagePlan(routes.not_found(), "404.html", {"page_kind": "404"}, in_sitemap=False)


def _author_pages(site: SiteModel, a: Author) -> list[PagePlan]:
    """An author's page and feed (the newest ``feed_size`` records)."""
    group, weight = author_group(a.slug), len(a.records) + 1
    page = PagePlan(routes.author(a.slug), a.template, {"page_kind": "author", "author": a}, group=group,
                    weight=weight)
    feed = _feed(page.route, f"{a.name} · {site.title}", N_("Publications and source records attributed to %(name)s."),
                 a.records[:site.feed_size], group, site.feeds,
                 _announced(site, site.feeds.announcements(keys_of(a.records), site.feed_size), a)
                 if site.feeds and site.feeds.announced else (), name=a.name)
    return [page, feed]


def _paper_pages(site: SiteModel) -> list[PagePlan]:
    """A page per work (site.yaml ``papers``, generator.assemble.papers): each work once, as the record of
    the first profiled author who lists it (the search index's choice), in that author's group.
    It reads that record alone (whose digest holds who lists it), so a changed record re-renders
    its own page and no other."""
    plans = []
    for slug, records in indexed_records(site).items():
        group = author_group(slug)
        plans += [PagePlan(routes.paper(key_of(site.paper_keys, r.key)), "paper.html",
                           {"page_kind": "paper", "r": r}, group=group) for r in records]
    return plans


def _lab_pages(site: SiteModel, lab: Lab) -> list[PagePlan]:
    """The lab's list (/publications/) and its feed: the page reads the whole list with its
    counts and who works with whom (generator.render.lab), the feed its newest ``feed_size`` records."""
    page = PagePlan(routes.publications(), "publications.html", {"page_kind": "publications", "lab": lab},
                    group="lab", weight=len(lab.entries) + 1)
    feed = _feed(page.route, f"Publications · {site.title}", N_("New publications of the members of %(name)s."),
                 tuple(e.record for e in lab.entries[:site.feed_size]), "lab", name=site.title)
    return [page, feed]


def _lab_exports(lab: Lab, title: str) -> list[Task]:
    """The list's BibTeX and CSL-JSON, made as an author's are (reading its records only)."""
    records = lab.exported()
    if not records:
        return []
    whole = Author(slug="publications", name=title, affiliation=None, bio_html="", links=(), records=records,
                   subjects=(), years=())
    weight, reads = len(records) // 2 + 1, (title, records)
    return [Task(routes.publications_bibtex().path, functools.partial(to_bibtex, whole), "lab", weight, reads),
            Task(routes.publications_csl().path, functools.partial(to_csl_json, whole), "lab", weight, reads)]


def _subject_pages(s: Subject, per_page: int) -> list[PagePlan]:
    """A subject's pages: each reads the subject's heading (names, count, authors) and its own
    slice of records, so a changed title re-renders one page, not the subject's every page."""
    heading = SubjectHeading.of(s)
    return [PagePlan(route, "subject.html", {"page_kind": "subject", "subject": heading, "records": records,
                                             "pager": pager}, group=subject_group(s.code),
                       weight=len(records) * 3 // 2 + 1)   # (a record costs its subject's page 1.5 times its author's)
            for route, records, pager in _paged(s.records, per_page, functools.partial(routes.subject, s.code))]


def _venue_pages(site: SiteModel) -> list[PagePlan]:
    """The venue index and each venue's pages (``venues: true``); a venue page reads its venue
    (records and authors) and its slice of records, the index only each venue's slug, name and
    count (a changed title re-renders the venue's pages, not the index)."""
    venues = venue_index(site.authors)
    listed = tuple((v.slug, v.name, len(v.records)) for v in venues)
    plans = [PagePlan(routes.venues(), "venues.html", {"page_kind": "venues", "venues": listed})]
    for v in venues:
        plans += [PagePlan(route, "venue.html", {"page_kind": "venue", "venue": v, "records": records, "pager": pager},
                           group=f"venue:{v.slug}", weight=len(records) + 1)
                  for route, records, pager in _paged(v.records, site.paginate, functools.partial(routes.venue, v.slug))]
    return plans


def _paged(records: tuple[Record, ...], per_page: int,
           route: Callable[[int], Route]) -> list[tuple[Route, tuple[Record, ...], dict[str, Any]]]:
    """Records split into pages of ``per_page``: each page's route, records and pager (page
    ``number`` of ``count``, the URLs of the pages before and after, the first record's index)."""
    count = max(1, math.ceil(len(records) / per_page))
    out = []
    for n in range(1, count + 1):
        pager = {
            "number": n, "count": count,
            "prev": None if n == 1 else route(n - 1).url,
            "next": None if n == count else route(n + 1).url,
            "first_index": (n - 1) * per_page + 1,
        }
        out.append((route(n), records[(n - 1) * per_page: n * per_page], pager))
    return out


def _group_subjects(subjects: Iterable[Subject], taxonomy: Taxonomy) -> list[dict[str, Any]]:
    """The subjects by arXiv group, each as its heading (names, count, authors), as its pages
    show it: the page lists no record, so a changed record does not re-render it (and planning
    does not digest every subject's records again: ~250,000 at 1,000 x 100)."""
    groups: dict[str, dict[str, Any]] = {}
    for s in subjects:
        g = groups.setdefault(s.group, {"code": s.group, "name": s.group_name, "subjects": []})
        g["subjects"].append(SubjectHeading.of(s))
    return sorted(groups.values(), key=lambda g: (taxonomy.group_rank(g["code"]), g["name"]))


def _feed(page: Route, title: str, subtitle: str, records: tuple[Record, ...], group: str = "site",
          feeds: FeedIds | None = None, announce: tuple[tuple[Announcement, Record], ...] = (),
          name: str = "") -> PagePlan:
    """The Atom feed of the page at ``page``; updated = newest record, not the clock. ``subtitle``
    is a message of the theme's catalogues (marked ``N_``), translated when rendered, its
    ``%(name)s`` being ``name``. ``feeds``: the entry ids kept across merges (generator.assemble.feed_ids),
    of which the feed reads its records' only; ``announce``: its "published" entries, each with its record."""
    updated = max((newest_update(records), *(a.updated for a, _ in announce)))
    ids = {k: feeds.ids[k] for k in keys_of(records) if k in feeds.ids} if feeds is not None and feeds.ids else {}
    ctx = {"page_kind": "feed", "feed_title": title, "feed_subtitle": subtitle, "feed_name": name, "alternate": page.url,
           "records": records, "updated": updated, "ids": ids, "announced": announce}
    return PagePlan(routes.feed_of(page.url), "feed.xml", ctx, False, group, len(records) + len(announce) + 1)


def _announced(site: SiteModel, announced: tuple[Announcement, ...],
               author: Author | None = None) -> tuple[tuple[Announcement, Record], ...]:
    """The newest ``feed_size`` announcements, each with its record (the author's copy on an
    author's feed, else the first author's who lists it)."""
    if not announced:
        return ()
    wanted = {a.key for a in announced}
    found: dict[str, Record] = {}
    for a in (author,) if author is not None else site.authors:
        for r in a.records:
            if r.key in wanted:
                found.setdefault(r.key, r)
    return tuple((a, found[a.key]) for a in announced if a.key in found)[:site.feed_size]


def plan_tasks(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy, root: Path | None = None) -> list[Task]:
    """Every file of the site as a task: pages, feeds, exports, the authors' index, sitemap,
    robots.txt, .nojekyll, CNAME and (given the site's ``root``) the authors' photos; each
    names what it reads."""
    return list(iter_tasks(env, site, taxonomy, root))


def iter_tasks(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy,
               root: Path | None = None) -> Iterator[Task]:
    """``plan_tasks``, one task at a time, in its order: what is held meanwhile is the sitemap's
    URLs, not the pages (generator.render.remake)."""
    _set_globals(env, site, taxonomy, root)
    lab = lab_of(site.authors, site.groups) if site.publications else None
    urls: list[str] = []
    for p in iter_pages(site, taxonomy, lab):
        if p.in_sitemap:
            urls.append(p.route.url)
        yield _page_task(env, p)
    if lab is not None:
        yield from _lab_exports(lab, site.title)
    for a in site.authors:
        yield from _export_tasks(a)
    index = tuple((a.slug, a.name, len(a.records), a.matched) for a in site.authors)
    # (a unit an author: each one's summary of how its records were matched is held, or kept in
    # the index with its counts, index.lazy.matched; no record is read)
    yield Task(routes.authors_index().path, functools.partial(authors_index, site), reads=(index,),
               weight=len(site.authors) + 1)
    yield from sitemap_tasks(env, site.base_url, urls)
    yield from _static_tasks(site)
    for a in site.authors:
        yield from _photo_tasks(root, a)


# sitemaps.org: one sitemap file holds at most 50,000 URLs and 50 MB (52,428,800 bytes) uncompressed.
SITEMAP_URLS = 50_000
SITEMAP_BYTES = 52_428_800
_SITEMAP_ROOM = 200   # bytes of a file besides its entries; an entry is its URL plus 30 ("<url><loc>...")


def sitemap_tasks(env: jinja2.Environment, base_url: str, urls: list[str], most: int = SITEMAP_URLS,
                  most_bytes: int = SITEMAP_BYTES) -> list[Task]:
    """sitemap.xml listing ``urls``; past ``most`` URLs or ``most_bytes`` bytes, the parts
    sitemap-N.xml, each within both limits, and sitemap.xml their sitemap index (robots.txt names
    sitemap.xml either way)."""
    absurl = Urls(base_url).absurl
    parts: list[list[str]] = [[]]
    size = _SITEMAP_ROOM
    for url in urls:
        entry = len(absurl(url).encode("utf-8")) + 30
        if len(parts[-1]) == most or size + entry > most_bytes:
            parts.append([])
            size = _SITEMAP_ROOM
        parts[-1].append(url)
        size += entry
    plans = [PagePlan(routes.sitemap(), "sitemap.xml", {"urls": urls}, in_sitemap=False)] if len(parts) == 1 else [
        PagePlan(routes.sitemap_part(n), "sitemap.xml", {"urls": part}, in_sitemap=False)
        for n, part in enumerate(parts, 1)]
    if len(parts) > 1:
        index = [routes.sitemap_part(n).url for n in range(1, len(parts) + 1)]
        plans.append(PagePlan(routes.sitemap(), "sitemap-index.xml", {"parts": index}, in_sitemap=False))
    return [Task(p.rel_path, functools.partial(_render_bytes, env, p), reads=tuple(p.context.values()))
            for p in plans]


def author_tasks(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy, slugs: Collection[str],
                 root: Path | None = None) -> list[Task]:
    """The tasks of these authors' own files only (page, feed, exports, photo), made as
    ``plan_tasks`` makes them (the same paths, reads and digests): the preview renders an edited
    author's files first, before it plans the rest of the site."""
    _set_globals(env, site, taxonomy, root)
    tasks = []
    for a in site.authors:
        if a.slug in slugs:
            tasks += [_page_task(env, p) for p in _author_pages(site, a)] + _export_tasks(a) + _photo_tasks(root, a)
    return tasks


def _set_globals(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy, root: Path | None) -> None:
    """The templates' globals and filters, and gettext in the site's language (with the site's own
    catalogue, given its ``root``)."""
    lang = i18n.site_language(root, site.language)
    formats = i18n.install(env, lang)
    env.globals.update(template_globals(env, site, taxonomy, lang, formats))
    env.filters.update(template_filters(env.globals))


def _page_task(env: jinja2.Environment, p: PagePlan) -> Task:
    return Task(p.rel_path, functools.partial(_render_bytes, env, p), p.group, p.weight, tuple(p.context.values()))


def _export_tasks(a: Author) -> list[Task]:
    """The author's BibTeX and CSL-JSON: each reads the author's name and records only (what
    generator.render.exports uses), so an edit of the profile (affiliation, bio, links) keeps them.
    None for an author with no records: no empty file, and the page links none (issue 30)."""
    if not a.records:
        return []
    group, weight, reads = author_group(a.slug), len(a.records) // 2 + 1, (a.name, a.records)
    return [Task(routes.author_bibtex(a.slug).path, functools.partial(to_bibtex, a), group, weight, reads),
            Task(routes.author_csl(a.slug).path, functools.partial(to_csl_json, a), group, weight, reads)]


def _photo_tasks(root: Path | None, a: Author) -> list[Task]:
    """The author's photo, copied (given the site's ``root``): the job reads the file's content digest."""
    if root is None or a.photo is None:
        return []
    return [Task(routes.author_photo(a.slug, a.photo.suffix).path,
                 functools.partial((root / a.photo.source).read_bytes), author_group(a.slug), 1, (a.photo.digest,))]


def _static_tasks(site: SiteModel) -> list[Task]:
    """Files whose bytes are known at planning: each reads its own content."""
    robots = f"User-agent: *\nAllow: /\nSitemap: {Urls(site.base_url).abs_url_for('sitemap')}\n".encode("utf-8")
    files = [(routes.robots(), robots), (routes.nojekyll(), b"")]
    if site.cname:
        files.append((routes.cname(), (site.cname + "\n").encode("ascii")))
    return [Task(route.path, functools.partial(bytes, data), reads=(data,)) for route, data in files]


def _render_bytes(env: jinja2.Environment, plan: PagePlan) -> bytes:
    return _render(env, plan).encode("utf-8")


def _render(env: jinja2.Environment, plan: PagePlan) -> str:
    try:
        template = env.get_template(plan.template)
        return template.render(plan.context, page_path=plan.route.url)
    except jinja2.TemplateSyntaxError as exc:
        raise SiteError(f"template syntax error: {exc.message}", path=exc.filename or exc.name,
                        line=exc.lineno) from exc
    except jinja2.TemplateNotFound as exc:
        raise SiteError(f"template '{exc.name}' not found while rendering {plan.rel_path}",
                        hint="templates are looked up in templates/, themes/<theme>/templates/, "
                        "then the built-in theme") from exc
    except (jinja2.TemplateError, TypeError, ValueError, AttributeError, KeyError) as exc:
        where, line = _template_frame(exc)
        raise SiteError(f"while rendering {plan.rel_path} from {plan.template}: {exc}", path=where,
                        line=line) from exc


def _template_frame(exc: BaseException) -> tuple[str | None, int | None]:
    """The innermost template file and line in a render traceback (Jinja rewrites frames)."""
    found: tuple[str | None, int | None] = (None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith((".html", ".xml", ".txt")):
            found = (frame.filename, frame.lineno)
    return found
