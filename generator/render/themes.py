"""Theme lookup and the Jinja environment.

Templates, first match wins (as in MkDocs, Hugo and Zola): the site's own
``templates/`` > ``themes/<theme>/templates/`` > the built-in default theme. The
layers are also reachable by prefix (``theme/base.html``, ``default/base.html``)
so a site template can extend the layer below and override one block.
Static files are merged per file the same way, lowest layer first.

Autoescape is on for every template (html and xml alike) and undefined values
raise: a typo in a template fails loudly instead of printing nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import BuiltinFunctionType, BuiltinMethodType, CodeType, FunctionType, MethodType
from typing import TYPE_CHECKING, Any, Callable, MutableMapping

import jinja2
import jinja2.bccache
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.runtime import Context
from jinja2.utils import internalcode
import orjson

from generator.core.errors import Problem, SiteError
from generator.render.jobs import code_digest
from generator.core.paths import builtin_theme_dir

if TYPE_CHECKING:
    from generator.config import SiteConfig



def theme_layers(root: Path, theme: str) -> list[Path]:
    """Theme folders from highest to lowest precedence (each has templates/ and static/)."""
    layers = []
    site_theme = root / "themes" / theme
    if site_theme.is_dir():
        layers.append(site_theme)
    elif theme != "default":
        installed = sorted(p.name for p in (root / "themes").glob("*") if p.is_dir()) if (root / "themes").is_dir() else []
        raise SiteError(f"'theme': '{theme}' is not a folder of themes/",
                        path="site.yaml", hint=f"the folders of themes/: {', '.join(installed) or 'none'}; "
                        "remove 'theme' (or write 'default') to use the built-in theme")
    builtin = builtin_theme_dir()
    if not layers or layers[0].resolve() != builtin.resolve():
        layers.append(builtin)
    return layers


def theme_problems(config: SiteConfig) -> list[Problem]:
    """Why the site's theme, or a template an author file names, cannot be used: check says it,
    and build before it renders anything (it stopped half-way, naming a page, not the file).
    Each template name is looked for once."""
    try:
        dirs = template_dirs(config.root, config.theme)
    except SiteError as exc:
        return [Problem(exc.path or "site.yaml", exc.line, f"{exc.message} ({exc.hint})" if exc.hint else exc.message)]
    found = {name: any((d / name).is_file() for d in dirs) for name in {a.template for a in config.authors}}
    return [Problem(a.path, None, f"'template': '{a.template}' is a template neither of the site (templates/), of "
                    "its theme nor of the built-in one; add it to templates/, or remove 'template'")
            for a in config.authors if not found[a.template]]


def template_dirs(root: Path, theme: str) -> list[Path]:
    dirs = [root / "templates"] if (root / "templates").is_dir() else []
    return dirs + [layer / "templates" for layer in theme_layers(root, theme)]


def static_dirs(root: Path, theme: str) -> list[Path]:
    """Static folders lowest precedence first, so later ones overwrite earlier ones."""
    dirs = [layer / "static" for layer in reversed(theme_layers(root, theme))]
    if (root / "static").is_dir():
        dirs.append(root / "static")
    return [d for d in dirs if d.is_dir()]


class _ContainedLoader(jinja2.FileSystemLoader):
    """A FileSystemLoader that refuses a template whose real path leaves its search folders
    (a symlink planted in templates/ must not make the build read other files)."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        real = Path(filename).resolve()
        roots = [Path(p).resolve() for p in self.searchpath]
        if not any(real == r or r in real.parents for r in roots):
            raise jinja2.TemplateNotFound(template, f"{filename} leads outside the template folders")
        return source, filename, uptodate


try:   # markupsafe's C escaper of a str, without the Markup its escape() wraps the result in (3.0+)
    from markupsafe._speedups import _escape_inner
except ImportError:   # pragma: no cover - markupsafe 2.x, or built without its C speedups
    def _escape_inner(s: str, /) -> str:
        return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace('"', "&#34;").replace("'", "&#39;"))


def _escape(value: Any) -> str:  # noqa: ANN401 - any value a template prints
    """What ``markupsafe.escape`` makes of a value printed by ``{{ }}``, the same characters, as a
    plain string: safe values (``__html__``) as they are, anything else as text with & < > " '
    escaped. Jinja only joins what ``{{ }}`` yields (into a page, or into Markup for a macro or a
    ``set`` block), so the Markup object that ``escape`` allocates for each printed value is never
    used; allocating it was half the cost of rendering a record's partial. A plain string, the
    most printed value, is escaped in one C call (five ``str.replace`` calls cost 1-3 us)."""
    if type(value) is str:
        return _escape_inner(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return html()
    return _escape_inner(str(value))


class _Template(jinja2.Template):
    """A template whose printed values go through ``_escape``. Jinja's compiled code looks
    ``escape`` up in the template's module namespace, where only output expressions use it
    (jinja2.compiler: ``_output_child_pre``); the output is the same bytes."""

    @classmethod
    def from_code(cls, environment: jinja2.Environment, code: CodeType, globals: MutableMapping[str, Any],
                  uptodate: Callable[[], bool] | None = None) -> jinja2.Template:
        template = super().from_code(environment, code, globals, uptodate)
        template.root_render_func.__globals__["escape"] = _escape
        return template


class _Code(CodeGenerator):
    """Jinja's code generator, with ``a.b`` compiled to the builtin ``getattr(a, "b", missing)``
    and ``environment.getattr(a, "b")`` only when ``a`` has no attribute ``b`` (then ``a["b"]``, or
    undefined), instead of ``environment.getattr`` on every access. The same values: that method
    tries ``getattr`` first. A record's partial reads 40 attributes, 850,000 calls of a Python
    method in a cold build of 150 authors."""

    @optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:  # noqa: N802 - Jinja's naming
        if self.environment.is_async:   # (never here: Jinja's own code awaits the value)
            super().visit_Getattr(node, frame)
            return
        attr = repr(node.attr)
        self.write("(_ga_v if (_ga_v := getattr((_ga_o := ")
        self.visit(node.node, frame)
        self.write(f"), {attr}, missing)) is not missing else environment.getattr(_ga_o, {attr}))")


# Functions and methods: Jinja looks for ``jinja_pass_arg`` on the callable itself only.
_PLAIN_CALLABLES = frozenset((FunctionType, MethodType, BuiltinFunctionType, BuiltinMethodType))


class _Context(Context):
    """Jinja's template context, with a global function called straight away when it asks for no
    context (no ``pass_context`` and the like): ``url_for`` and the other globals, 57,000 calls in a
    cold build of 150 authors, each of which Jinja's ``call`` checked for them twice (a third of
    a call's cost). Anything else (a macro, a callable object) goes through Jinja's ``call``."""

    @internalcode
    def call(__self, __obj: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:  # noqa: ANN401, N805 - Jinja's
        if type(__obj) not in _PLAIN_CALLABLES or getattr(__obj, "jinja_pass_arg", None) is not None:
            return super().call(__obj, *args, **kwargs)
        if kwargs:
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:   # (as Jinja's call: a template must not see it)
            return __self.environment.undefined("value was undefined because a callable raised a StopIteration exception")


class _Environment(jinja2.Environment):
    """Jinja's environment, with each message that has no values (``{{ _("Search") }}``) made a
    constant when its template compiles, by ``fold`` (set by ``i18n.install`` for the site's
    catalogue), instead of a call on every render: a record's partial has a dozen, and the calls
    cost 4-5 s of CPU in a cold build of 1,000 authors. ``fold_key`` names the catalogue, so
    compiled templates (in memory and in ``_Compiled``) are never those of another language."""

    fold: Callable[[nodes.Template], nodes.Template] | None = None
    fold_key = ""
    code_generator_class = _Code
    context_class = _Context

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        if self.fold is None:
            return tree
        tree = self.fold(tree)
        tree.set_environment(self)
        return tree


def make_environment(root: Path, theme: str) -> jinja2.Environment:
    layers = theme_layers(root, theme)
    loader = jinja2.ChoiceLoader([
        _ContainedLoader([str(d) for d in template_dirs(root, theme)]),
        jinja2.PrefixLoader({
            "theme": _ContainedLoader(str(layers[0] / "templates")),
            "default": _ContainedLoader(str(builtin_theme_dir() / "templates")),
        }),
    ])
    env = _Environment(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        extensions=["jinja2.ext.i18n"],
    )
    # Theme strings are written {{ _("...") }}: gettext through Jinja's i18n extension.
    env.install_null_translations(newstyle=True)
    env.template_class = _Template
    env.bytecode_cache = _bytecode_cache(root)
    env.policies["json.dumps_function"] = _json_dumps   # |tojson, the author page's JSON-LD
    env.policies["json.dumps_kwargs"] = {}
    return env


class _Compiled(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept in ``.authorsite/jinja/<version>/``: Jinja's own cache, keyed by
    each template's name and file and checked against its source, in a folder named by the
    digest of our code (which sets how templates compile). A rebuild that renders a few pages
    loads an author page's templates in 1-2 ms instead of compiling them in 30-40 ms, and each
    render process of a cold build no longer compiles every template again. A cache: an entry
    it cannot read or write costs a compile, never an error; the folder is safe to delete."""

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: str | None,
                   source: str) -> jinja2.bccache.Bucket:
        # the catalogue whose messages were folded in is part of what the code was compiled from
        return super().get_bucket(environment, name, filename, f"{source}\0{getattr(environment, 'fold_key', '')}")

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:   # noqa: BLE001 - a damaged entry (whatever unpickling its checksum raises)
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache(root: Path) -> jinja2.BytecodeCache | None:
    top = root / ".authorsite" / "jinja"
    folder = top / f"v{code_digest()[:16]}"
    try:
        if not folder.is_dir():
            if top.is_dir():
                for other in top.iterdir():   # another version's: never read again
                    shutil.rmtree(other, ignore_errors=True)
            folder.mkdir(parents=True)
    except OSError:
        return None
    return _Compiled(str(folder))


def _json_dumps(value: Any) -> str:  # noqa: ANN401
    """``|tojson``'s JSON (Jinja then escapes <, >, & and ' for a script element): compact UTF-8
    with sorted keys, by orjson: 1.2 -> 0.17 ms for an author page's JSON-LD of 100 works, and 7%
    fewer bytes than Jinja's default (json.dumps with ", " and ": ", non-ASCII as \\u escapes).
    What orjson refuses (a lone surrogate) goes through json."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
