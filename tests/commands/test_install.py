"""The install path of a new site, end to end and offline: a site made by `init` installs
authorsite from the git URL and commit its Makefile pins, and its own .ci/run and `make site`
build and check it in a folder outside this checkout.

What runs for real: `git` publishes the working tree (every tracked or new, not ignored file,
as one commit) to a bare repository standing in for GitHub; `authorsite init --repo --ref`
writes the site; the site is copied elsewhere; its .ci/run (`make check`) makes nothing but
the Makefile's own `pip install "authorsite @ git+URL@COMMIT"`, so pip clones that commit,
builds the wheel and installs it into the site's .venv, and that installed authorsite builds
and checks the site. With `unshare -rn` (where user namespaces are allowed) the site's
commands run with no network interface at all; elsewhere proxies point at a closed port.

What stands in for the internet: a local package index (the wheelhouse `make test`
downloads: authorsite's dependencies and setuptools), the only index pip sees. So this proves
the pin, the clone, the packaging (theme, scaffold and data inside the wheel) and the site's
own commands; it does not prove that PyPI serves the dependencies or that GitHub serves the
URL. tests/commands/test_release.py does the same for the default pin, a release by version.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from helpers import BIN, REPO, copy_working_tree, offline


def _git(cwd: Path, *args: str) -> str:
    res = subprocess.run(["git", "-C", str(cwd), "-c", "user.name=test", "-c", "user.email=test@example.org",
                          *args], capture_output=True, text=True, timeout=60, check=True)
    return res.stdout.strip()


def _publish_working_tree(tmp: Path) -> tuple[Path, str]:
    """The working tree as one commit in a bare repository: what a push would publish."""
    src = copy_working_tree(tmp / "snapshot")
    _git(src.parent, "init", "-q", str(src))
    _git(src, "add", "-A")
    _git(src, "commit", "-q", "-m", "the working tree under test")
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(tmp / "authorsite.git")], check=True, timeout=60)
    return tmp / "authorsite.git", _git(src, "rev-parse", "HEAD")


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    argv, env = offline(cmd)
    res = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"{cmd} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


def test_a_new_site_installs_the_pinned_authorsite_and_builds_elsewhere(tmp_path: Path) -> None:
    remote, commit = _publish_working_tree(tmp_path)
    made = tmp_path / "made"
    res = subprocess.run([str(BIN / "authorsite"), "init", str(made), "--repo", str(remote), "--ref", commit],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    url = "file://localhost" + remote.as_posix()
    assert f"AUTHORSITE_REPO ?= {url}\nAUTHORSITE_REF ?= {commit}\n" in (made / "Makefile").read_text()
    assert "exists only on this machine" in res.stderr   # a file:// pin is named as such

    site = tmp_path / "elsewhere" / "my-lab"
    shutil.copytree(made, site)
    shutil.rmtree(made)   # nothing may point back to where init wrote it
    python = site / ".venv/bin/python"

    ci = _run(["./.ci/run"], site)
    assert f"installing authorsite @ git+{url}@{commit} into .venvs/env-1/" in ci.stderr
    assert "check: no problems" in ci.stderr
    again = _run(["make", "site"], site)
    assert "installing" not in again.stderr   # installed once; the pin did not change
    page = (site / "output/authors/jane-doe/index.html").read_text("utf-8")
    assert "<h1>Jane Doe</h1>" in page and "An example record typed in by hand" in page
    for rel in ("index.html", "pages/about/index.html", "search/index.html", "404.html", "static/style.css"):
        assert (site / "output" / rel).is_file(), rel

    where = subprocess.run([str(python), "-c", "import generator; print(generator.__file__)"],
                           cwd=site, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).resolve().is_relative_to((site / ".venv").resolve()), where

    # Upgrading is one line: a new commit published, AUTHORSITE_REF set to it, `make site` reinstalls.
    snapshot = tmp_path / "snapshot"
    (snapshot / "generator/__init__.py").write_text(
        (snapshot / "generator/__init__.py").read_text("utf-8").replace('__version__ = "', '__version__ = "9'))
    _git(snapshot, "commit", "-q", "-am", "a newer authorsite")
    _git(snapshot, "push", "-q", str(remote), "HEAD:refs/tags/v9")
    makefile = site / "Makefile"
    makefile.write_text(makefile.read_text("utf-8").replace(f"AUTHORSITE_REF ?= {commit}", "AUTHORSITE_REF ?= v9"))
    upgraded = _run(["make", "site"], site)
    assert "installing" in upgraded.stderr and "nothing changed" not in upgraded.stderr
    assert _run([str(site / ".venv/bin/authorsite"), "--version"], site).stdout.startswith("authorsite, version 9")

    # Asked for a git pin, the installed authorsite names its own commit (PEP 610).
    _run([str(site / ".venv/bin/authorsite"), "-q", "init", str(tmp_path / "next"), "--repo", url], tmp_path)
    newer = _git(snapshot, "rev-parse", "HEAD")
    assert f"AUTHORSITE_REPO ?= {url}\nAUTHORSITE_REF ?= {newer}\n" in (tmp_path / "next/Makefile").read_text()
