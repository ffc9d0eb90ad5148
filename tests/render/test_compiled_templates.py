"""Compiled templates kept between builds (generator.render.themes: Jinja's bytecode cache in
.authorsite/jinja/): an edited template is compiled again, a damaged entry is compiled again,
and a cache that cannot be written is no error."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from generator.render.themes import make_environment


def _site(root: Path, text: str) -> Path:
    (root / "templates").mkdir(parents=True, exist_ok=True)
    (root / "templates" / "x.html").write_text(text)
    return root


def _render(root: Path) -> str:
    return make_environment(root, "default").get_template("x.html").render(name="Ada")


def _entries(root: Path) -> list[Path]:
    return sorted((root / ".authorsite" / "jinja").rglob("*.cache"))


def test_an_edited_template_is_compiled_again(tmp_path: Path) -> None:
    root = _site(tmp_path, "Hello {{ name }}")
    assert _render(root) == "Hello Ada"
    assert _entries(root), "nothing compiled was kept"
    assert _render(root) == "Hello Ada"   # from the kept code
    _site(root, "Howdy {{ name }}")      # same length, maybe the same mtime: the source is what counts
    assert _render(root) == "Howdy Ada"


def test_a_damaged_entry_is_compiled_again(tmp_path: Path) -> None:
    root = _site(tmp_path, "Hi {{ name }}<b>{{ '<' }}</b>")
    want = _render(root)
    for entry in _entries(root):
        entry.write_bytes(entry.read_bytes()[:20] + b"\x00garbage")
    assert _render(root) == want == "Hi Ada<b>&lt;</b>"
    for entry in _entries(root):
        entry.write_bytes(b"")
    assert _render(root) == want


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    root = _site(tmp_path, "Hi {{ name }}")
    (root / ".authorsite").write_text("not a folder")
    assert _render(root) == "Hi Ada"
    other = _site(tmp_path / "other", "Hi {{ name }}")
    folder = other / ".authorsite" / "jinja"
    folder.mkdir(parents=True)
    _render(other)
    for version in folder.iterdir():
        version.chmod(0o500)   # read-only (as root, writes may still succeed: either way no error)
    try:
        _site(other, "Hey {{ name }}")
        assert _render(other) == "Hey Ada"
    finally:
        for version in folder.iterdir():
            version.chmod(0o700)


def test_another_versions_folder_is_removed(tmp_path: Path) -> None:
    root = _site(tmp_path, "Hi")
    stale = root / ".authorsite" / "jinja" / "v0000000000000000"
    stale.mkdir(parents=True)
    (stale / "__jinja2_x.cache").write_bytes(b"old")
    assert _render(root) == "Hi"
    assert not stale.exists() and _entries(root)


class _Obj:
    """Attributes as templates read them: plain, nested, none, and a property that fails."""

    def __init__(self) -> None:
        self.a, self.none, self.nested = "<a>", None, {"key": "from the dict", "a": "shadowed"}

    @property
    def broken(self) -> str:
        raise AttributeError("computed from nothing")

    def __getitem__(self, name: str) -> str:
        return f"item {name}"


ATTRIBUTE_READS = [
    "{{ o.a }}|{{ o.none }}|{{ o.nested.key }}|{{ o.nested.a }}|{{ o.broken }}|{{ o.nested.keys is defined }}",
    "{% for x in [o, o] %}{{ x.a }}{% endfor %}{% set y = o.nested %}{{ y.key }}",
    "{% macro m(v) %}{{ v.a ~ v.nested.key }}{% endmacro %}{{ m(o) }}{% set b %}{{ o.a }}{% endset %}{{ b }}",
    "{{ (o.a if o.none is none else o.b) }}{{ [o.a, o.nested.key]|join(',') }}{{ o.nested['key'] }}",
]


@pytest.mark.parametrize("text", ATTRIBUTE_READS)
def test_attribute_reads_give_what_jinjas_own_code_gives(tmp_path: Path, text: str) -> None:
    """``a.b`` compiles to the builtin getattr, with Jinja's ``environment.getattr`` (then
    ``a["b"]``, then undefined) only when it fails: the same text as Jinja's own code for
    attributes, dict keys, a property that raises AttributeError, in loops, macros and sets."""
    ours = make_environment(_site(tmp_path, text), "default")
    theirs = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    assert ours.get_template("x.html").render(o=_Obj()) == theirs.from_string(text).render(o=_Obj())
    assert "environment.getattr(" not in ours.compile(text, raw=True).split("else environment.getattr(")[0]


def test_an_attribute_neither_there_nor_an_item_is_an_error_naming_it(tmp_path: Path) -> None:
    root = _site(tmp_path, "{{ o.nested.missing }}")
    with pytest.raises(jinja2.UndefinedError, match="has no attribute 'missing'"):
        make_environment(root, "default").get_template("x.html").render(o=_Obj())
