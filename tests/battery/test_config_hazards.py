"""Loading site.yaml and author YAML (generator.config) against hostile files: battery
section A, one fixture per hazard.

Each hazard is a payload file in ``tests/fixtures/yaml-hazards/`` with its expectation next to it
(``NAME.json``: battery case, target path in the site, outcome, the substrings the
report must contain). Big payloads (10 MB, 50,000 brackets) are generated from a recipe
in the JSON instead of being committed. Every run is the real ``authorsite`` in a
subprocess under an address-space cap and a timeout, on a copy of a site with a good
build and a cache file:

* reject: exit 1 (or the case's code), exactly one ``error:`` report naming the file,
  no traceback, output/ and content/cache/ byte-identical, no staging left (E1-E4);
* accept: exit 0 and the page shows what the case says;
* always: under 30 s and 500 MB (E5), and a python tag's payload never ran.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from batterykit import (
    FIXTURES,
    assert_bounded,
    assert_one_clear_report,
    leftovers,
    limits,
    run_limited,
    tree_state,
)

CASES = FIXTURES / "yaml-hazards"


def _load(name: str) -> dict:
    return json.loads((CASES / f"{name}.json").read_text("utf-8"))


def _payload(meta: dict) -> bytes | None:
    gen = meta.get("generate")
    if gen is None:
        return (CASES / meta["payload"]).read_bytes() if "payload" in meta else None
    if "nested_block" in gen:
        depth = gen["nested_block"]
        body = "".join(f"{' ' * i}k{i}:\n" for i in range(depth)) + " " * depth + "leaf\n"
        return (gen["head"] + "bio:\n" + "".join(" " + line for line in body.splitlines(True))).encode()
    return (gen["head"] + gen["unit"] * gen["count"] + gen.get("tail", "")).encode()


def _params() -> list:
    out = []
    for p in sorted(CASES.glob("*.json")):
        meta = _load(p.stem)
        marks = [pytest.mark.xfail(strict=True, reason=meta["xfail"])] if "xfail" in meta else []
        out.append(pytest.param(p.stem, id=f"{meta['case']}-{p.stem}", marks=marks))
    return out


@pytest.mark.parametrize("name", _params())
def test_yaml_hazard(good_site: Path, name: str) -> None:
    meta = _load(name)
    payload = _payload(meta)
    target = good_site / meta["target"]
    for rel in meta.get("remove", []):
        (good_site / rel).unlink()
    if payload is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(payload)
    out, cache = good_site / "output", good_site / "content" / "cache"
    out_before, cache_before = tree_state(out), tree_state(cache)
    assert out_before and cache_before

    run = run_limited("-C", good_site, *meta.get("command", ["build"]), cwd=good_site,
                      timeout=meta.get("max_seconds", 30), preexec=limits())
    assert_bounded(run)
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    if meta.get("sentinel"):
        assert not (good_site / meta["sentinel"]).exists(), "the YAML payload ran"
    assert tree_state(cache) == cache_before, "content/cache/ changed"
    assert leftovers(out) == []

    outcome = meta["outcome"]
    if outcome == "accept-or-reject":
        outcome = "accept" if run.returncode == 0 else "reject"
    if outcome == "reject":
        err = assert_one_clear_report(run, meta["exit"])
        for needle in meta["needles"]:
            assert needle in err, f"{needle!r} missing from the report:\n{err}"
        for needle in meta.get("stderr_absent", []):
            assert needle not in err, f"{needle!r} reached the terminal"
        assert tree_state(out) == out_before, "a refused build changed output/"
    else:
        assert run.returncode == 0, run.stderr[-3000:]
        page = meta.get("page")
        if page:
            text = (out / page["path"]).read_text("utf-8")
            for needle in page.get("contains", []):
                assert needle in text, f"{needle!r} not on {page['path']}"
            for needle in page.get("absent", []):
                assert needle not in text, f"{needle!r} on {page['path']}"
        for rel in meta.get("files_kept", []):
            assert (out / rel).is_file(), rel
        for xml in out.rglob("*.xml"):   # feeds and the sitemap stay well-formed whatever the text
            ET.parse(xml)
    print(f"\n{name}: exit {run.returncode}, {run.seconds:.2f} s, {run.max_rss_mb:.0f} MB")


def test_every_fixture_has_a_payload_or_a_recipe() -> None:
    for p in sorted(CASES.glob("*.json")):
        meta = _load(p.stem)
        assert meta["case"].startswith("A") and meta["outcome"] in ("reject", "accept", "accept-or-reject"), p.name
        assert "payload" in meta or "generate" in meta or "remove" in meta, p.name
        if "payload" in meta:
            assert (CASES / meta["payload"]).is_file(), meta["payload"]
    stray = {p.name for p in CASES.iterdir() if p.suffix != ".json"} - {
        _load(p.stem).get("payload") for p in CASES.glob("*.json")}
    assert not stray, f"payloads without an expectation: {sorted(stray)}"


# ----------------------------------------------------------------------------- symlinked input files


SECRET = "name: SECRET-OUTSIDE\naffiliation: never read\n"


@pytest.mark.parametrize("link, target_kind", [
    ("content/authors/eve.yaml", "file"), ("content/pages/eve.md", "file"), ("site.yaml", "file"),
    ("content/authors", "folder"),
], ids=["author-file", "page-file", "site-yaml", "authors-folder"])
def test_symlinked_input_outside_the_site_is_not_read(good_site: Path, tmp_path: Path, link: str,
                                                      target_kind: str) -> None:
    """A1-A19 all assume the inputs are the site's own files: a link out of the site is refused
    without reading (or quoting) what it points to."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "eve.yaml").write_text(SECRET)
    (outside / "eve.md").write_text("---\ntitle: SECRET-OUTSIDE\n---\n")
    (outside / "site.yaml").write_text("title: SECRET-OUTSIDE\nbase_url: /\n")
    path = good_site / link
    if target_kind == "folder":
        shutil.rmtree(path)
        path.symlink_to(outside)
    else:
        if path.exists():
            path.unlink()
        path.symlink_to(outside / Path(link).name)
    out_before = tree_state(good_site / "output")
    err = assert_one_clear_report(run_limited("-C", good_site, "build"))
    assert "is a symbolic link to a file outside the site" in err and "SECRET" not in err
    assert tree_state(good_site / "output") == out_before


def test_symlinked_author_file_inside_the_site_is_fine(good_site: Path) -> None:
    shared = good_site / "content" / "shared"
    shared.mkdir()
    (shared / "bob.yaml").write_text("name: Bob Shared\n")
    (good_site / "content" / "authors" / "bob.yaml").symlink_to(Path("..") / "shared" / "bob.yaml")
    run = run_limited("-C", good_site, "build")
    assert run.returncode == 0, run.stderr
    assert "Bob Shared" in (good_site / "output" / "authors" / "bob" / "index.html").read_text("utf-8")
