"""Template partials rendered once per process and reused on every page that shows them.

A record is listed on several pages: its brief entry on each of its subjects' pages, its
feed entry in its author's, subjects' and the site's feeds, its full entry on the page of
each profiled author who lists it. Rendering its partial through Jinja once per process and
pasting the result everywhere keeps the templates the only markup at most of the speed of the
old hand-written fragments (a Jinja render of a record costs about 40-55 us, measured on the
bench corpus), and a site that overrides a partial gets the same reuse.

The cache is keyed by the record object (held by the cache, so its id is never reused while
kept), and small values (a chip's code, a person's name) by value; never by a record's key:
two authors may hold different records with the same key. It lives in one ``Partial`` per template and site, so per
process; records loaded from the index (generator.index) are made anew for each page that loads
them, so there it keeps the last few thousand only (``most``), or it would hold every record it showed. HTML is kept as UTF-8 bytes: one non-ASCII character (the theme's arrow) makes a
Python string take two bytes a character, and the cache holds a large part of a site.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable

import jinja2
from markupsafe import Markup


class Partial:
    """One partial template as a template helper: ``p(*values)`` renders it with the values
    bound to ``names`` (``r`` for a record), ``p.many(records)`` concatenates the partials of
    a list of single values in one call. The template is looked up on first use, inside a
    page's render, so its errors name that page. ``keep(*values)`` says which values are worth
    keeping (the rest are rendered each time they are shown); ``keep=False`` keeps none, and
    renders them as text, never as UTF-8; ``renders`` counts the renders, for tests and profiling."""

    def __init__(self, env: jinja2.Environment, template: str, names: tuple[str, ...] = ("r",),
                 keep: Callable[..., bool] | bool | None = None, most: int | None = None) -> None:
        self._env, self._template_name, self._names = env, template, names
        self._keep = keep
        self._most = most   # records kept at most (the oldest let go first); None: every one
        self._template: jinja2.Template | None = None
        self._globals: dict[str, Any] = {}
        self._kept: dict[Hashable, bytes] = {}
        self._by_object: dict[int, tuple[object, bytes]] = {}
        self._small: dict[Hashable, Markup] = {}
        self.renders = 0

    def _render(self, values: tuple[Any, ...]) -> bytes:
        """The partial with ``values`` bound to its names, as UTF-8."""
        return self._text(values).encode("utf-8")

    def _text(self, values: tuple[Any, ...]) -> str:
        """The partial with ``values`` bound to its names.

        What ``Template.render`` does, minus copying the template's globals (a ChainMap, read
        key by key) into a new dict at every call: they are copied once, at the first render
        (every global is set by then, see generator.render.template_globals), and each render's context
        reads them as its parent, its own values set as its variables (Jinja looks a name up in
        the variables first). That copy was the largest cost of rendering a partial."""
        template, env = self._template, self._env
        if template is None:
            template = self._template = env.get_template(self._template_name)
            self._globals = dict(template.globals)
        self.renders += 1
        context = env.context_class(env, self._globals, template.name, template.blocks)
        context.vars.update(zip(self._names, values))
        try:
            return "".join(template.root_render_func(context))
        except Exception:
            env.handle_exception()   # re-raises with the template's file and line, as render() does
            raise

    def _bytes(self, value: Hashable) -> bytes:
        """One value's partial (the common case: a record), kept unless ``keep`` says no.

        Kept by the object, which the entry holds so its id is never reused while kept: hashing a
        record by value (every field, every author) cost more than a tenth of its render. An equal
        record held as another object is rendered again, to the same bytes."""
        found = self._by_object.get(id(value))
        if found is not None:
            return found[1]
        html = self._render((value,))
        if self._keep is None or (self._keep is not False and self._keep(value)):
            self._by_object[id(value)] = (value, html)
            if self._most is not None and len(self._by_object) > self._most:
                del self._by_object[next(iter(self._by_object))]
        return html

    def __call__(self, *values: Hashable) -> Markup:
        if self._keep is False:
            return Markup(self._text(values))
        if len(values) == 1:
            return Markup(self._bytes(values[0]).decode("utf-8"))
        html = self._kept.get(values)
        if html is None:
            html = self._render(values)
            if self._keep is None or (self._keep is not False and self._keep(*values)):
                self._kept[values] = html
        return Markup(html.decode("utf-8"))

    def small(self, *values: Hashable) -> Markup:
        """The partial of a small value that repeats on thousands of records (a subject chip,
        a name in a byline), kept as the very Markup object returned each time: no decoding,
        no new object on every use."""
        html = self._small.get(values)
        if html is None:
            html = self._small[values] = Markup(self._render(values).decode("utf-8"))
        return html

    def many(self, values: Iterable[Hashable], *extra: Any) -> Markup:  # noqa: ANN401
        """The partial of each value, concatenated (one template call for a list: a Jinja call
        per record cost more than its HTML). ``extra`` values, bound to the names after the first,
        are the same for every value (the page's author): only for a partial never kept."""
        if self._keep is False:   # never kept: no round trip through UTF-8
            text = self._text
            return Markup("".join([text((v, *extra)) for v in values]))
        if extra:
            raise TypeError(f"{self._template_name}: extra values only for a partial never kept")
        get = self._bytes
        return Markup(b"".join([get(v) for v in values]).decode("utf-8"))
