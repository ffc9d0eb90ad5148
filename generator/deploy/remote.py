"""The bucket: the one module that speaks S3 (through boto3, imported here only).

boto3 finds the credentials where every AWS tool does (AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN as
GitHub's OIDC sets them, SSO, an instance role); nothing here reads a secret from site.yaml or
the command line. Every object we write carries the SHA-256 of its bytes in its metadata
(``x-amz-meta-sha256``), so a bucket that lost its manifest is compared by HEAD, not by download.
Each failure becomes a ``SiteError`` that names the bucket and says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from generator.core.errors import SiteError

if TYPE_CHECKING:
    from generator.deploy.target import Target

META = "sha256"   # x-amz-meta-sha256


@dataclass(frozen=True, slots=True)
class Listed:
    key: str      # under the prefix
    size: int


def _boto3() -> Any:  # noqa: ANN401 - the module
    try:
        import boto3
        import botocore.config  # noqa: F401
    except ImportError:
        raise SiteError("'authorsite deploy' needs boto3, which is not installed",
                        hint="pip install 'authorsite[deploy]'") from None
    return boto3


class Bucket:
    """A bucket and a prefix in it, reached with one client shared by the upload threads."""

    def __init__(self, target: Target, workers: int = 8) -> None:
        boto3 = _boto3()
        from botocore.config import Config

        config = Config(retries={"max_attempts": 5, "mode": "standard"}, max_pool_connections=max(10, workers),
                        # boto3 1.36 sends CRC checksums by default, which some S3-compatible services refuse
                        request_checksum_calculation="when_required", response_checksum_validation="when_required",
                        s3={"addressing_style": "path"} if target.endpoint_url else None)
        self.target = target
        session = boto3.session.Session()
        self.client = session.client("s3", endpoint_url=target.endpoint_url, region_name=target.region, config=config)
        from botocore.exceptions import BotoCoreError, ClientError
        self._errors = (BotoCoreError, ClientError)

    def _key(self, key: str) -> str:
        return self.target.prefix + key

    def _fail(self, exc: Exception, doing: str) -> SiteError:
        code = getattr(exc, "response", {}).get("Error", {}).get("Code", "") if hasattr(exc, "response") else ""
        hint = {
            "NoSuchBucket": "create the bucket first, or correct deploy.to / --to",
            "AccessDenied": "the credentials found may not write this bucket: check the role or token's policy",
            "InvalidAccessKeyId": "the access key is not known to this service: check AWS_ACCESS_KEY_ID and --endpoint-url",
            "SignatureDoesNotMatch": "the secret key does not match the access key: check AWS_SECRET_ACCESS_KEY",
        }.get(code)
        if type(exc).__name__ in ("NoCredentialsError", "PartialCredentialsError"):
            hint = ("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run in a workflow with "
                    "aws-actions/configure-aws-credentials (credentials never go in site.yaml)")
        elif type(exc).__name__ in ("EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError"):
            hint = "check --endpoint-url (deploy.endpoint_url) and the network"
        return SiteError(f"{doing} {self.target}: {exc}", hint=hint or "run 'authorsite deploy' again; what was "
                         "sent stays sent, and the next deploy finishes the job")

    def get(self, key: str) -> bytes | None:
        """The object's bytes; None when there is none."""
        try:
            return self.client.get_object(Bucket=self.target.bucket, Key=self._key(key))["Body"].read()
        except self._errors as exc:
            if getattr(exc, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise self._fail(exc, f"could not read {key} from") from exc

    def digest(self, key: str) -> str | None:
        """The sha256 a deploy stored with the object (HEAD: no body read); None when there is no
        object, "" when it has no digest of ours."""
        try:
            head = self.client.head_object(Bucket=self.target.bucket, Key=self._key(key))
        except self._errors as exc:
            if getattr(exc, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return None
            raise self._fail(exc, f"could not look at {key} in") from exc
        return head.get("Metadata", {}).get(META, "")

    def put(self, key: str, body: bytes, content_type: str, cache_control: str, digest: str | None = None) -> None:
        extra = {"Metadata": {META: digest}} if digest else {}
        try:
            self.client.put_object(Bucket=self.target.bucket, Key=self._key(key), Body=body,
                                   ContentType=content_type, CacheControl=cache_control, **extra)
        except self._errors as exc:
            raise self._fail(exc, f"could not send {key} to") from exc

    def delete(self, keys: list[str]) -> None:
        """Delete ``keys`` (absent ones too), 1,000 a request as S3 allows."""
        for at in range(0, len(keys), 1000):
            objects = [{"Key": self._key(k)} for k in keys[at:at + 1000]]
            try:
                reply = self.client.delete_objects(Bucket=self.target.bucket,
                                                   Delete={"Objects": objects, "Quiet": True})
            except self._errors as exc:
                raise self._fail(exc, "could not delete objects from") from exc
            if reply.get("Errors"):
                first = reply["Errors"][0]
                raise SiteError(f"could not delete {first.get('Key')} from {self.target}: {first.get('Message')}",
                                hint="check that the credentials may delete objects (s3:DeleteObject)")

    def listing(self) -> Iterator[Listed]:
        """Every object under the prefix (its key under the prefix, its size)."""
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.target.bucket, Prefix=self.target.prefix)
        try:
            for page in pages:
                for obj in page.get("Contents", ()):
                    yield Listed(obj["Key"][len(self.target.prefix):], obj["Size"])
        except self._errors as exc:
            raise self._fail(exc, "could not list") from exc
