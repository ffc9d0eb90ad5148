"""A release, as users get it, offline.

The sdist and the wheel are built from the working tree as .github/workflows/release.yml
builds them, and pass `twine check --strict` (what PyPI checks). The wheel is installed into a
fresh venv from a local package index (the wheel, plus the wheelhouse of dependencies that
`make test` downloads) with no network, as `pip install authorsite==VERSION` would from PyPI.
That authorsite's `init` pins `authorsite==VERSION` and no path of this machine; the site's
own `make site` installs the release and builds. A pin that cannot be installed (a version
the index does not have, a git URL that cannot be reached) keeps the authorsite the site had,
says why, and still builds; with no authorsite to keep, it fails and says so. An authorsite
installed from a wheel file that no index has pins that file, and says so.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from generator import __version__
from helpers import REPO, WHEELHOUSE, copy_working_tree, offline


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dist/ of a release: the sdist and the wheel of the working tree."""
    src = copy_working_tree(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("dist")
    res = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return out


@pytest.fixture
def index(dist: Path, tmp_path: Path) -> Path:
    """A local package index holding the release's wheel (its dependencies: the wheelhouse)."""
    folder = tmp_path / "index"
    folder.mkdir()
    wheel = next(dist.glob("*.whl"))
    (folder / wheel.name).write_bytes(wheel.read_bytes())
    return folder


def _run(cmd: list[str], cwd: Path, index: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    argv, env = offline(cmd)
    env["PIP_FIND_LINKS"] = f"{index} {WHEELHOUSE}"
    res = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert (res.returncode == 0) == ok, f"{cmd}: exit {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


def test_the_sdist_and_the_wheel_pass_twine_check_and_carry_the_theme(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"authorsite-{__version__}-py3-none-any.whl", f"authorsite-{__version__}.tar.gz"]
    res = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.count("PASSED") == 2, res.stdout + res.stderr
    inside = set(zipfile.ZipFile(dist / names[0]).namelist())
    for name in ("generator/_theme/templates/base.html", "generator/_theme/static/style.css",
                 "generator/data/arxiv-taxonomy.yaml", "generator/scaffold/ci/install-authorsite",
                 "generator/scaffold/github/workflows/publish.yml.jinja", "generator/scaffold/github/workflows/triage.yml",
                 "generator/scaffold/github/ISSUE_TEMPLATE/not-mine.yml", "generator/intake/triage.py"):
        assert name in inside, name
    assert not [n for n in inside if "__pycache__" in n or n.startswith(("tests/", "content/"))]


def test_a_release_installs_by_version_its_sites_pin_it_and_a_bad_pin_keeps_it(index: Path, dist: Path,
                                                                              tmp_path: Path) -> None:
    """One story, as a lab lives it (one site, so the suite makes two venvs fewer): install the
    release by version, init a site, build; then change the pin to one that cannot be installed;
    then install a wheel built here instead, and init a site from it.

    Once the lab's site is made, the user's venv is no longer the lab's: the wheel's part of the
    story (its own venv reinstalled, its own site) runs beside the lab's builds, each a chain of
    subprocesses in folders of its own (most of both is making venvs and installing into them)."""
    user = tmp_path / "user-venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(user)], check=True,
                   timeout=300)
    _run([str(user / "bin/python"), "-m", "pip", "install", "--quiet", f"authorsite=={__version__}"], tmp_path, index)

    _run([str(user / "bin/authorsite"), "init", "lab"], tmp_path, index)
    site = tmp_path / "lab"
    make = (site / "Makefile").read_text("utf-8")
    assert f"AUTHORSITE_VERSION ?= {__version__}\nAUTHORSITE_PIP ?= authorsite==$(AUTHORSITE_VERSION)\n" in make
    for local in (str(tmp_path), str(REPO), "file:", "git+"):
        assert local not in make, local

    with ThreadPoolExecutor(max_workers=1) as beside:
        wheel_story = beside.submit(_init_from_a_wheel_no_index_has_pins_that_wheel, user, dist, tmp_path)
        first = _run(["make", "site"], site, index)
        assert f"installing authorsite=={__version__} into .venvs/env-1/" in first.stderr
        assert (site / ".venv").is_symlink() and (site / "output/authors/jane-doe/index.html").is_file()
        version = _run([str(site / ".venv/bin/authorsite"), "--version"], site, index).stdout
        assert version == f"authorsite, version {__version__}\n"
        assert "installing" not in _run(["make", "site"], site, index).stderr   # the pin did not change
        _a_pin_that_cannot_be_installed_keeps_the_site_working(site, index)
        wheel_story.result()


def _a_pin_that_cannot_be_installed_keeps_the_site_working(site: Path, index: Path) -> None:
    kept = f"Keeping authorsite, version {__version__}"
    # A version the index does not have, on make's command line (it used to be ignored; the
    # Makefile's own pin reaches the install script the same way, as the first build showed),
    # then a git URL that cannot be reached.
    tried = _run(["make", "site", "AUTHORSITE_VERSION=99.0.0"], site, index)
    assert "could not install authorsite==99.0.0" in tried.stderr and kept in tried.stderr
    assert (site / "output/index.html").is_file()
    unreachable = "AUTHORSITE_PIP=authorsite @ git+https://git.invalid/authorsite.git@v9"
    assert kept in _run(["make", "site", unreachable], site, index).stderr
    assert sorted(p.name for p in (site / ".venvs").iterdir()) == ["env-1"]   # failed installs leave nothing
    assert _run([str(site / ".venv/bin/authorsite"), "--version"], site, index).stdout.endswith(f"{__version__}\n")

    # With no working authorsite to keep, make stops and says what to do.
    (site / ".venv").unlink()
    lost = _run(["make", "site", "AUTHORSITE_VERSION=99.0.0"], site, index, ok=False)
    assert "no working authorsite" in lost.stderr and "AUTHORSITE_VERSION" in lost.stderr



def _init_from_a_wheel_no_index_has_pins_that_wheel(user: Path, dist: Path, tmp_path: Path) -> None:
    """Issue 45, acceptance 7: authorsite installed from a wheel file built on this machine (no
    index has it; pip records its URL) pinned authorsite==VERSION, and the site's `make site`
    then failed. Its init now says so and pins the file; `make site` installs that wheel with no
    network and no index holding it (the dependencies from the wheelhouse, as PyPI would). The
    user's venv of the release is reinstalled from the file (its dependencies are there)."""
    wheel = tmp_path / "built" / next(dist.glob("*.whl")).name
    wheel.parent.mkdir()
    wheel.write_bytes(next(dist.glob("*.whl")).read_bytes())
    nowhere = tmp_path / "no-index"   # an index without the wheel: only the dependencies are found
    nowhere.mkdir()
    _run([str(user / "bin/python"), "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", str(wheel)],
         tmp_path, nowhere)
    said = _run([str(user / "bin/authorsite"), "init", "wheel-lab"], tmp_path, nowhere).stderr
    url = wheel.as_uri()
    assert "no package index has" in said and str(wheel) in said, said
    assert said.rstrip().endswith("next: cd wheel-lab && make site"), said
    site = tmp_path / "wheel-lab"
    assert f"\nAUTHORSITE_PIP ?= authorsite @ {url}\n" in (site / "Makefile").read_text("utf-8")
    built = _run(["make", "site"], site, nowhere)
    assert f"installing authorsite @ {url}" in built.stderr
    assert (site / "output/authors/jane-doe/index.html").is_file()
    assert _run([str(site / ".venv/bin/authorsite"), "--version"], site, nowhere).stdout.endswith(f"{__version__}\n")
