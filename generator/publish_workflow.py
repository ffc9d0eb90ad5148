"""The publish workflow and site.yaml lines of a new site, by where it is published (``init --host``).

One template, generator/scaffold/github/workflows/publish.yml.jinja, holds the whole workflow: the
fetch, the build (the shards matrix included) and the upload are the same for every host; only the
upload's kind and the deploy job are chosen by the host: GitHub Pages' own actions, or
``authorsite deploy`` to AWS S3 (a role assumed through OIDC) or Cloudflare R2 (an API token from the
repository's secrets). Its rendering for GitHub Pages is byte-identical to authorsite's own
.github/workflows/publish.yml (tests/commands/test_workflows.py).

The template's Jinja syntax keeps out of the way of GitHub's ``${{ }}``: statements are whole lines
starting with ``#%``, values ``<<= name =>>``. A blank line right after a statement line is eaten by
Jinja's lexer, so the template puts blank lines before statements (the Pages rendering test catches a slip).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

# What 'init --host' offers: GitHub Pages (the default), or a bucket that 'authorsite deploy' fills.
INIT_HOSTS = ("github-pages", "s3", "cloudflare-r2")
_WHERE = {"github-pages": "GitHub Pages", "s3": "AWS S3", "cloudflare-r2": "Cloudflare R2"}

# The lines site.yaml gets for a bucket: host: s3 (no size wall; R2 is S3-compatible storage) and the
# deploy: target, commented out until the user names a bucket ('check' accepts the file as written).
_BUCKET_HOST = """\
# Where the site is published: object storage, filled by 'authorsite deploy' (README: Hosting past
# GitHub Pages).
host: s3
# TODO: name your bucket, then uncomment (credentials never go here: the publish workflow has them).
# deploy:
#   to: s3://BUCKET/
{extra}"""
_EXTRA = {"s3": "#   region: eu-west-1\n",
          "cloudflare-r2": "#   endpoint_url: https://ACCOUNT_ID.r2.cloudflarestorage.com\n#   region: auto\n"}


def _environment() -> Any:  # noqa: ANN401
    import jinja2   # here, not at the top: the CLI imports INIT_HOSTS on every start

    return jinja2.Environment(
        line_statement_prefix="#%", line_comment_prefix="#%#", block_start_string="<%", block_end_string="%>",
        variable_start_string="<<=", variable_end_string="=>>", comment_start_string="<#", comment_end_string="#>",
        keep_trailing_newline=True, undefined=jinja2.StrictUndefined, autoescape=False)


def publish_workflow(host: str = "github-pages") -> str:
    """The text of .github/workflows/publish.yml for a site published on ``host`` (one of INIT_HOSTS)."""
    if host not in INIT_HOSTS:
        raise ValueError(f"unknown host {host!r}: one of {', '.join(INIT_HOSTS)}")
    text = resources.files("generator").joinpath("scaffold/github/workflows/publish.yml.jinja").read_text("utf-8")
    return _environment().from_string(text).render(
        pages=host == "github-pages", s3=host == "s3", where=_WHERE[host],
        group="pages" if host == "github-pages" else "deploy")


_PAGES_BASE_URL = "# Where the site is published; the publish workflow passes the GitHub Pages URL itself.\n"
_BUCKET_BASE_URL = ("# Where the site is published: TODO the address your CDN serves the bucket at, such as "
                    "https://www.example.org/\n")


def site_yaml(text: str, host: str = "github-pages") -> str:
    """site.yaml's ``text`` (init's, for GitHub Pages) for ``host``: as it is for GitHub Pages, the default;
    for a bucket, base_url's comment says where it comes from, and host: and deploy: follow."""
    if host == "github-pages":
        return text
    assert _PAGES_BASE_URL in text
    return text.replace(_PAGES_BASE_URL, _BUCKET_BASE_URL) + _BUCKET_HOST.format(extra=_EXTRA[host])


def makefile(text: str, host: str = "github-pages") -> str:
    """The new site's Makefile (newsite's, for GitHub Pages) for ``host``: a site that deploys to a bucket
    installs authorsite with its [deploy] extra (boto3), in every job and on the laptop alike, and has
    ``make deploy`` (build, then 'authorsite deploy' to site.yaml's deploy: target)."""
    if host == "github-pages":
        return text
    pin, phony = "AUTHORSITE_PIP ?= authorsite", ".PHONY: install site fetch serve check clean\n"
    assert pin in text and phony in text
    text = text.replace(pin, "AUTHORSITE_PIP ?= authorsite[deploy]", 1).replace(phony, phony[:-1] + " deploy\n")
    return text + "\n# Send the built site to site.yaml's deploy: target (README: Hosting past GitHub Pages).\n" \
        "deploy: site\n\t$(CLI) deploy\n"
