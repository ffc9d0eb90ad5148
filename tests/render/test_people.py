"""People (issue 13): photo, role, group (ordered by site.yaml), pinned records, extra_links; the
year chart only from three years; abstracts collapsed with the list controls. Real builds of
inline sites with real image files made by Pillow; hostile photos are refused with file, line, key."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from generator.config import load_site
from generator.core.errors import SiteError
from helpers import build, make_project

SITE = "title: Lab\nbase_url: /\ngroups: [current, alumni]\n"
RECORDS = """\
  - records:
      - {title: First Paper, year: 2020, arxiv_id: '2001.00001', abstract: An abstract.}
      - {title: Second Paper, year: 2021, doi: 10.5555/p.2}
      - {title: Third Paper, year: 2022}
"""


def _png(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (10, 90, 170)).save(buf, "PNG")
    return buf.getvalue()


def _lab(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {
        "site.yaml": SITE,
        "content/authors/ada.yaml": "name: Ada\nrole: PhD student\ngroup: alumni\nphoto: people/ada.png\n"
                                    "pinned: ['10.5555/p.2', '2001.00001', 'nope']\n"
                                    "extra_links:\n  '2001.00001': {code: 'https://example.org/c', video: "
                                    "'https://example.org/v'}\nsources:\n" + RECORDS,
        "content/authors/bob.yaml": "name: Bob\nrole: Professor\ngroup: current\nsources:\n"
                                    "  - records: [{title: Only One, year: 2019}]\n",
        "content/authors/cy.yaml": "name: Cy\n",
        **(extra or {}),
    }
    root = make_project(tmp_path, files)
    (root / "content" / "people").mkdir(exist_ok=True)
    (root / "content" / "people" / "ada.png").write_bytes(_png(120, 80))
    return root


def test_home_groups_in_site_order_with_photos_and_roles(tmp_path: Path) -> None:
    out = build(_lab(tmp_path))
    home = (out / "index.html").read_text(encoding="utf-8")
    headings = re.findall(r'<h2 id="[^"]+" class="group-heading">([^<]+)</h2>', home)
    assert headings == ["current", "alumni", "Other authors"]
    assert home.index("Bob") < home.index("Ada") < home.index(">Cy<")
    assert '<img class="photo" src="/authors/ada/photo.png" width="120" height="80" alt=""' in home
    assert '<p class="role">Professor</p>' in home
    assert (out / "authors" / "ada" / "photo.png").read_bytes() == _png(120, 80)


def test_author_page_photo_role_pinned_links_controls(tmp_path: Path) -> None:
    page = (build(_lab(tmp_path)) / "authors" / "ada" / "index.html").read_text(encoding="utf-8")
    assert 'width="120" height="80" alt="Photo of Ada"' in page
    assert '<p class="role">PhD student · <span class="group">alumni</span></p>' in page
    pinned = page.split('id="pinned-heading">Selected publications</h2>')[1].split("</section>")[0]
    assert re.findall(r'<h3 class="record-title">(?:<a [^>]+>)?([^<]+)<', pinned) == ["Second Paper", "First Paper"]
    first = page.split('id="r-2001-00001"')[1].split("</li>")[0]
    assert re.findall(r'class="extra-link" href="([^"]+)"', first) == ["https://example.org/c", "https://example.org/v"]
    assert "<details class=\"abstract\">" in page and " open>" not in page     # collapsed by default
    assert "data-list-controls" in page and "records.js" in page
    assert '<figure class="chart"' in page                                      # three years


def test_chart_needs_three_years(tmp_path: Path) -> None:
    page = (build(_lab(tmp_path)) / "authors" / "bob" / "index.html").read_text(encoding="utf-8")
    assert '<figure class="chart"' not in page and 'data-filter-bar' in page


def _problems(root: Path) -> list[str]:
    with pytest.raises(SiteError) as info:
        load_site(root)
    return [str(p) for p in info.value.problems]


def test_group_must_be_one_of_site_groups(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"site.yaml": SITE, "content/authors/a.yaml": "name: A\ngroup: visitors\n"})
    assert _problems(root) == ["content/authors/a.yaml:2: 'group' must be one of site.yaml's groups (current, "
                               "alumni), found 'visitors'; add it to 'groups' in site.yaml or correct it here"]


@pytest.mark.parametrize(("name", "data", "needle"), [
    ("text.png", b"not an image at all", "is not a readable PNG, JPEG, WebP or GIF image"),
    ("trunc.png", _png(50, 50)[:60], "is not a readable PNG, JPEG, WebP or GIF image"),
    ("huge.png", _png(4001, 10), "is 4001x10 pixels, more than 4000 a side"),
    ("pic.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><script>x</script></svg>',
     "is not a readable PNG, JPEG, WebP or GIF image"),
    ("big.png", b"\x89PNG" + b"\0" * 5_000_001, "more than 5,000,000; a photo is shown small"),
])
def test_hostile_photo_files_are_refused(tmp_path: Path, name: str, data: bytes, needle: str) -> None:
    root = make_project(tmp_path, {"content/authors/a.yaml": f"name: A\nphoto: p/{name}\n"})
    (root / "content" / "p").mkdir()
    (root / "content" / "p" / name).write_bytes(data)
    (line,) = _problems(root)
    assert line.startswith("content/authors/a.yaml:2: 'photo': content/p/") and needle in line, line


def test_a_decompression_bomb_header_is_refused_without_decoding(tmp_path: Path) -> None:
    # A PNG header that claims 30000 x 30000 pixels (900 megapixels) in a few bytes.
    png = bytearray(_png(1, 1))
    png[16:24] = (30000).to_bytes(4, "big") * 2
    root = make_project(tmp_path, {"content/authors/a.yaml": "name: A\nphoto: bomb.png\n"})
    (root / "content" / "bomb.png").write_bytes(bytes(png))
    (line,) = _problems(root)
    assert line.startswith("content/authors/a.yaml:2: 'photo': content/bomb.png ")


@pytest.mark.parametrize("value", ["../../site.yaml", "ABSOLUTE", "a/../../x.png", "~/x.png", "missing.png",
                                   "link.png"])
def test_photo_paths_outside_content_or_missing_are_refused(tmp_path: Path, value: str) -> None:
    outside = tmp_path / "secret.png"     # a real image outside the site, named absolutely or by a symlink
    outside.write_bytes(_png(5, 5))
    value = str(outside) if value == "ABSOLUTE" else value
    root = make_project(tmp_path, {"content/authors/a.yaml": f"name: A\nphoto: '{value}'\n"})
    (root / "content" / "link.png").symlink_to(outside)
    (line,) = _problems(root)
    assert line.startswith("content/authors/a.yaml:2: 'photo'"), line
    if value == "missing.png":
        assert "no file content/missing.png" in line
    else:
        assert "inside content/" in line


def test_extra_links_are_checked(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"content/authors/a.yaml": """\
        name: A
        extra_links:
          '2001.00001': {code: 'file:///etc/passwd'}
          2001.00002: {code: 'https://example.org/'}
          '2001.00003': just text
        """})
    lines = _problems(root)
    assert any(p.startswith("content/authors/a.yaml:3: 'extra_links.2001.00001.code' must be an http(s) URL")
               for p in lines), lines
    assert any(p.startswith("content/authors/a.yaml:4:") and "quote arXiv ids" in p for p in lines), lines
    assert any(p.startswith("content/authors/a.yaml:5:") and "expected a mapping" in p for p in lines), lines
