"""New sites (generator.newsite and its scaffold): `authorsite init NEWDIR`, then `make site`
inside it, builds a working site."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_init_then_make_site_builds_a_one_author_site(tmp_path: Path) -> None:
    new = tmp_path / "newsite"
    subprocess.run([sys.executable, "-m", "generator", "-q", "init", str(new)], check=True)
    assert (new / ".github/workflows/publish.yml").is_file()
    res = subprocess.run(["make", "site"], cwd=new, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    page = (new / "output/authors/jane-doe/index.html").read_text()
    assert "<h1>Jane Doe</h1>" in page
    assert "At least 1 record" in page
    for rel in ("index.html", "subjects/index.html", "pages/about/index.html", "search/index.html", "404.html",
                ".nojekyll", "static/style.css"):
        assert (new / "output" / rel).exists(), rel


def test_init_and_new_author_name_the_schema_written_with_the_site(tmp_path: Path) -> None:
    """The first line of site.yaml and each author file names the JSON Schema that init wrote,
    which is this authorsite version's, and the files it wrote follow it."""
    import json

    import jsonschema

    from generator.config import load_site
    from generator.config.json_schema import AUTHOR_MODELINE, SITE_MODELINE, schema_texts
    from generator.yamlfile import parse_yaml

    new = tmp_path / "newsite"
    subprocess.run([sys.executable, "-m", "generator", "-q", "init", str(new)], check=True)
    subprocess.run([sys.executable, "-m", "generator", "-q", "-C", str(new), "new-author", "Ada Lovelace"],
                   check=True)
    for name, text in schema_texts().items():
        assert (new / "docs" / "schema" / name).read_text("utf-8") == text
    files = {"site": [new / "site.yaml"], "author": sorted((new / "content" / "authors").glob("*.yaml"))}
    assert [p.name for p in files["author"]] == ["ada-lovelace.yaml", "jane-doe.yaml"]
    for kind, paths in files.items():
        modeline = SITE_MODELINE if kind == "site" else AUTHOR_MODELINE
        for path in paths:
            text = path.read_text("utf-8")
            assert text.startswith(modeline), path
            schema_path = (path.parent / modeline.split("$schema=")[1].strip()).resolve()
            validator = jsonschema.Draft7Validator(json.loads(schema_path.read_text("utf-8")))
            data, _ = parse_yaml(text, path.name)
            assert [e.message for e in validator.iter_errors(data)] == [], path
    assert [a.slug for a in load_site(new).authors] == ["ada-lovelace", "jane-doe"]
