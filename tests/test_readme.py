"""The README's getting-started steps, run as written: every ```sh block marked
``<!-- readme-test: run -->`` runs verbatim in bash (``set -euo pipefail``) in an empty
folder, with this environment's ``authorsite`` first on PATH and no network (as in
tests/commands/test_install.py). Then the files the README promises are there, and the README's
"Adding an author" walk-through does not collide with the author `init` already made.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from helpers import BIN, REPO, offline

MARK = "<!-- readme-test: run -->"
BLOCK = re.compile(re.escape(MARK) + r"\s*\n(\s*)```sh\n(.*?)\n\s*```", re.S)


def _marked_blocks(text: str) -> list[str]:
    blocks = []
    for indent, body in BLOCK.findall(text):
        lines = body.split("\n")
        assert all(line.startswith(indent) or not line.strip() for line in lines), body
        blocks.append("\n".join(line[len(indent):] for line in lines))
    assert len(blocks) == text.count(MARK), "a marker not followed by a ```sh block"
    return blocks


def test_the_marked_readme_blocks_run_verbatim_offline(tmp_path: Path) -> None:
    blocks = _marked_blocks((REPO / "README.md").read_text("utf-8"))
    assert blocks and "authorsite init my-lab" in blocks[0]
    for number, block in enumerate(blocks):
        cmd, env = offline(["bash", "-euo", "pipefail", "-c", block])
        env["PATH"] = f"{BIN}:{env['PATH']}"
        res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, f"README block {number + 1}:\n{block}\n{res.stdout[-2000:]}{res.stderr[-3000:]}"
    site = tmp_path / "my-lab"
    for rel in ("content/authors/jane-doe.yaml", "content/authors/ada-lovelace.yaml",
                "output/authors/ada-lovelace/index.html", "output/authors/jane-doe/index.html", "Makefile"):
        assert (site / rel).is_file(), rel
    assert "check: no problems" in res.stderr


def test_readme_names_every_command_and_adds_an_author_init_did_not_make(tmp_path: Path) -> None:
    text = (REPO / "README.md").read_text("utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+)[ `]", text, re.M))
    commands = subprocess.run([str(BIN / "authorsite"), "--help"], capture_output=True, text=True, check=True)
    known = set(re.findall(r"^  ([a-z-]+)\s", commands.stdout.split("Commands:")[1], re.M))
    assert known <= listed, f"missing from the README's command table: {sorted(known - listed)}"

    subprocess.run([str(BIN / "authorsite"), "-q", "init", str(tmp_path / "s"), "--repo",
                    "https://example.org/a.git", "--ref", "v1"], check=True, capture_output=True)
    made = {p.stem for p in (tmp_path / "s/content/authors").glob("*.yaml")}
    adding = text.split("## Adding an author", 1)[1].split("\n## ", 1)[0]
    slugs = set(re.findall(r"content/authors/([a-z0-9-]+)\.yaml", adding))
    assert slugs and not slugs & made, f"'Adding an author' adds {slugs}, which init made already"
