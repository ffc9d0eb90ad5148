"""Issue 5, point 4: `authorsite init NEWDIR` then `make site` inside it builds a working site."""

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
