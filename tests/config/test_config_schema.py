"""The config schema tables: the editor JSON Schema, the docs page and the typed objects come from them.

The JSON Schema (docs/schema/) must accept the demo site's files and reject every bad case of
the YAML battery that is a schema error; the committed docs/configuration.md and schema files
must be what ``python -m generator.config.docs`` makes now.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from generator.config import (
    AUTHOR,
    FETCH,
    FILTERS,
    PAGE,
    SITE,
    AuthorConfig,
    FetchPolicy,
    Filters,
    PageSource,
    SiteConfig,
    load_site,
)
from generator.config.docs import generated_files
from generator.config.json_schema import AUTHOR_MODELINE, SITE_MODELINE
from generator.config.sources import kinds
from generator.core.errors import SiteError
from generator.core.yamlfile import parse_yaml
from helpers import make_project  # tests/ is on sys.path (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]
BATTERY = REPO / "tests" / "fixtures" / "yaml-hazards"

# Bad cases of the YAML battery that are about a file's shape: the editor schema flags them too.
SCHEMA_ERRORS = (
    "a03-terminal-escape-in-key", "a03-typo-nmae", "a03-typo-querry", "a04-bool-no", "a04-list-for-name",
    "a04-string-for-year", "a05-bare-arxiv-id", "a06-1e9-is-text", "a06-name-NO", "a06-octal-since",
    "a06-sexagesimal", "a10-comments-only", "a10-empty-site-yaml", "a10-top-level-list", "a16-feed-file-url",
    "a16-file-url", "a16-javascript-homepage", "a16-photo-traversal", "a17-output-content", "a17-output-etc",
    "a17-output-home", "a17-output-nul", "a17-output-parent", "a17-output-root", "a17-output-windows",
    "a18-inf", "a18-page-size", "a18-paginate", "a18-retries", "a18-timeout-negative", "a18-timeout-zero",
)
# The other bad cases, and why a schema of the file's contents cannot see them.
NOT_SCHEMA_ERRORS = {
    "YAML syntax, encoding or the parser's own refusals (tabs, tags, aliases, duplicates, NUL)": (
        "a01-unclosed-bracket-site", "a01-unclosed-quote", "a02-tab-indent-site", "a02-tab-indent",
        "a07-duplicate-arxiv", "a07-duplicate-site-key", "a10-two-documents", "a12-latin1", "a12-nul-byte",
        "a12-utf16", "a13-alias-bomb-site", "a13-alias-bomb", "a13-merge-alias", "a14-deep-block",
        "a14-deep-flow-mapping", "a14-deep-flow-sequence", "a14-deep-front-matter", "a14-deep-site-yaml",
        "a15-python-apply", "a15-python-name", "a15-python-new-mapping", "a15-python-site"),
    "the file's name or size, or a missing file": (
        "a08-case-only-twin", "a08-nfkc-twin", "a08-yml-twin", "a09-backslash-slug", "a09-device-name-slug",
        "a09-dotgit-slug", "a11-ten-megabytes-page", "a11-ten-megabytes-site", "a11-ten-megabytes",
        "a19-no-authors", "a19-no-site-yaml"),
    "a page's front matter (the editor schema covers site.yaml and author files)": ("a06-off-as-nav",),
    "refused by 'fetch' against arXiv's host, not by the schema (0 s is fine for a local server)": (
        "a18-delay-zero",),
    "NaN: JSON has no NaN, so no JSON Schema can refuse it": ("a18-nan",),
}


def _plain(value: Any) -> Any:  # noqa: ANN401
    """YAML values as JSON has them (a YAML date is text for an editor)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _validator(kind: str) -> jsonschema.Draft7Validator:
    schema = json.loads((REPO / "docs" / "schema" / f"{kind}.schema.json").read_text("utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def _errors(kind: str, text: str) -> list[str]:
    data, problems = parse_yaml(text, "x.yaml")
    assert problems == []
    return [e.message for e in _validator(kind).iter_errors(_plain(data))]


def _battery(name: str) -> tuple[dict[str, Any], str]:
    meta = json.loads((BATTERY / f"{name}.json").read_text("utf-8"))
    kind = "site" if meta["target"] == "site.yaml" else "author"
    return meta, kind


def test_the_demo_files_follow_the_schema() -> None:
    assert _errors("site", (REPO / "site.yaml").read_text("utf-8")) == []
    authors = sorted((REPO / "content" / "authors").glob("*.yaml"))
    assert authors
    for path in authors:
        assert _errors("author", path.read_text("utf-8")) == [], path.name


def test_the_demo_files_name_their_schema_on_the_first_line() -> None:
    assert (REPO / "site.yaml").read_text("utf-8").startswith(SITE_MODELINE)
    for path in (REPO / "content" / "authors").glob("*.yaml"):
        assert path.read_text("utf-8").startswith(AUTHOR_MODELINE), path.name
        schema = AUTHOR_MODELINE.split("$schema=")[1].strip()
        assert (path.parent / schema).resolve() == REPO / "docs" / "schema" / "author.schema.json"


@pytest.mark.parametrize("name", SCHEMA_ERRORS)
def test_the_schema_rejects_the_battery_shape_errors(name: str) -> None:
    meta, kind = _battery(name)
    assert meta["outcome"] == "reject"
    assert _errors(kind, (BATTERY / meta["payload"]).read_bytes().decode("utf-8")), f"{name} passed the schema"


def test_every_bad_battery_case_is_classified() -> None:
    others = [n for names in NOT_SCHEMA_ERRORS.values() for n in names]
    rejects = {p.stem for p in BATTERY.glob("*.json") if json.loads(p.read_text("utf-8"))["outcome"] == "reject"}
    assert sorted(rejects) == sorted([*SCHEMA_ERRORS, *others])


def test_the_schema_accepts_what_the_battery_accepts() -> None:
    for path in sorted(BATTERY.glob("*.json")):
        meta, kind = _battery(path.stem)
        if meta["outcome"] == "accept" and meta["target"].endswith(".yaml"):
            assert _errors(kind, (BATTERY / meta["payload"]).read_bytes().decode("utf-8-sig")) == [], path.stem


def test_committed_docs_and_schema_files_are_fresh() -> None:
    for rel, text in generated_files().items():
        committed = REPO / rel
        assert committed.is_file() and committed.read_text("utf-8") == text, (
            f"{rel} is stale: run 'make docs' (python -m generator.config.docs) and commit the result")


def test_the_docs_page_names_every_key() -> None:
    page = generated_files()["docs/configuration.md"]
    for table in (SITE, FETCH, AUTHOR, FILTERS, PAGE, *(kind.schema for kind in kinds())):
        for key in table.keys:
            assert f"| `{key.name}` |" in page and key.help in page, key.name


@pytest.mark.parametrize("cls, table, skip", [
    (SiteConfig, SITE, {"root", "authors", "pages"}), (FetchPolicy, FETCH, set()), (Filters, FILTERS, set()),
    (AuthorConfig, AUTHOR, {"slug", "path"}), (PageSource, PAGE, {"name", "path", "body", "in_nav"}),
    *((kind.config_type, kind.schema, {"line"}) for kind in kinds() if not kind.schema.many),   # the source kinds
])
def test_typed_objects_take_their_keys_and_defaults_from_the_tables(cls: type, table: Any, skip: set[str]) -> None:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    assert set(fields) - skip <= set(table.names) and set(table.names) <= set(fields) | {"nav"}
    for key in table.keys:
        field = fields["in_nav" if key.name == "nav" else key.name]
        if field.default is not dataclasses.MISSING and key.type != "section":
            assert field.default == key.default or (field.default == () and key.default is None), key.name


def test_the_schema_line_keeps_line_numbers(tmp_path: Path) -> None:
    root = make_project(tmp_path, {
        "site.yaml": SITE_MODELINE + "title: T\npaginat: 5\n",
        "content/authors/a.yaml": AUTHOR_MODELINE + "name: A\nafiliation: X\n",
    })
    with pytest.raises(SiteError) as info:
        load_site(root)
    assert [str(p).split(" (did")[0] for p in info.value.problems] == [
        "content/authors/a.yaml:3: unknown key 'afiliation'", "site.yaml:3: unknown key 'paginat'"]
    (root / "site.yaml").write_text(SITE_MODELINE + "title: T\n")
    with pytest.raises(SiteError) as info:
        load_site(root)
    assert [str(p).split(" (did")[0] for p in info.value.problems] == [
        "content/authors/a.yaml:3: unknown key 'afiliation'"]


def test_feed_size(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"site.yaml": "title: T\n"})
    assert load_site(root).feed_size == 50
    (root / "site.yaml").write_text("title: T\nfeed_size: 10\n")
    assert load_site(root).feed_size == 10
    (root / "site.yaml").write_text("title: T\nfeed_size: 0\n")
    with pytest.raises(SiteError) as info:
        load_site(root)
    assert [str(p) for p in info.value.problems] == ["site.yaml:2: 'feed_size' must be from 1 to 10000, found 0"]


def test_each_key_of_a_table_is_the_typed_attribute_declared_once() -> None:
    """The typed configuration objects are made from the schema tables (generator.config.typed): a
    key added to a table is an attribute, with the table's default, and no attribute exists that
    no table or no reader gives."""
    import dataclasses

    from generator.config.authors import AuthorConfig, Filters
    from generator.config.schema import AUTHOR, FETCH, FILTERS, SITE
    from generator.config.site import FetchPolicy, SiteConfig

    cases = [(SiteConfig, SITE, ["root"], ["authors", "pages"]), (FetchPolicy, FETCH, [], []),
             (AuthorConfig, AUTHOR, ["slug", "path"], []), (Filters, FILTERS, [], [])]
    for cls, table, head, tail in cases:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        assert list(fields) == [*head, *table.names, *tail], cls.__name__
        for key in table.keys:
            f = fields[key.name]
            if key.type not in ("section", "sources", "record_links") and key.name != "photo" and not key.required:
                default = f.default_factory() if f.default is dataclasses.MISSING else f.default
                assert default == key.default, (cls.__name__, key.name)
