"""Deploy: send a built output/ to S3-compatible object storage by content, in link order.

The stage after write: it reads the built folder and the build's manifest, never builds. What the
bucket holds is known from a deploy manifest kept there (every key and the sha256 of its bytes);
a deploy sends the difference, leaves before the pages that link them, the manifest last, the
deletions after (generator.deploy.plan), so the live site is whole at every moment.
"""
