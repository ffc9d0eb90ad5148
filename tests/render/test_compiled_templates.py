"""Compiled templates kept between builds (generator.render.themes: Jinja's bytecode cache in
.authorsite/jinja/): an edited template is compiled again, a damaged entry is compiled again,
and a cache that cannot be written is no error."""

from __future__ import annotations

from pathlib import Path

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
