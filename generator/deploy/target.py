"""Where a deploy goes: a bucket, a prefix in it, and the service's endpoint and region.

From the command line (``--to``, ``--endpoint-url``, ``--region``), else site.yaml's ``deploy``
section (checked against ``schema.DEPLOY`` when the site is loaded). Credentials are not part
of it: boto3 finds them (generator.deploy.remote).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator.config.schema import DEPLOY_TO_PATTERN, REGION_PATTERN, check_base_url
from generator.core import ids
from generator.core.errors import SiteError

_HINT = "give --to s3://BUCKET/PREFIX, or set it in site.yaml: deploy: {to: s3://BUCKET/PREFIX}"


@dataclass(frozen=True, slots=True)
class Target:
    bucket: str
    prefix: str                 # '' or a folder ending with '/'
    endpoint_url: str | None    # None: AWS S3
    region: str | None

    def __str__(self) -> str:
        where = f"s3://{self.bucket}/{self.prefix}"
        return where + (f" at {self.endpoint_url}" if self.endpoint_url else "")


def parse_to(text: str) -> tuple[str, str]:
    """(bucket, prefix) of ``s3://BUCKET[/PREFIX]``; the prefix ends with '/' unless empty."""
    if not re.fullmatch(DEPLOY_TO_PATTERN, text):
        raise SiteError(f"deploy target {text!r} is not s3://BUCKET or s3://BUCKET/PREFIX", hint=_HINT)
    bucket, _, prefix = text[5:].partition("/")
    prefix = "/".join(p for p in prefix.split("/") if p)
    if any(p in (".", "..") for p in prefix.split("/")):
        raise SiteError(f"deploy target {text!r} has a '.' or '..' folder", hint=_HINT)
    return bucket, prefix + "/" if prefix else ""


def resolve(settings: object, to: str | None, endpoint_url: str | None, region: str | None) -> Target:
    """The target from the options given, else from ``settings`` (site.yaml's deploy section)."""
    to = to or getattr(settings, "to", None)
    if not to:
        raise SiteError("no deploy target", path="site.yaml", hint=_HINT)
    endpoint_url = endpoint_url or getattr(settings, "endpoint_url", None)
    if endpoint_url and ids.safe_url(endpoint_url) is None:
        raise SiteError(f"--endpoint-url {endpoint_url!r} is not an http(s) URL",
                        hint="such as https://ACCOUNT_ID.r2.cloudflarestorage.com")
    region = region or getattr(settings, "region", None)
    if region and not re.fullmatch(REGION_PATTERN, region):
        raise SiteError(f"--region {region!r} is not a region name", hint="such as eu-west-1, or auto for R2")
    bucket, prefix = parse_to(to)
    return Target(bucket, prefix, endpoint_url.rstrip("/") if endpoint_url else None, region)


def own_hosts(base_url: str) -> frozenset[str]:
    """The host of the site's base URL: its absolute links are the site's own."""
    url = check_base_url(base_url) or ""
    host = re.match(r"[A-Za-z]+://([^/:]+)", url)
    return frozenset({host.group(1).lower()}) if host else frozenset()
