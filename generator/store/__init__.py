"""The store: the committed cache (content/cache/), its format and its one reader.

A stage of its own, between loading the configuration and fetching: a build, the preview,
``check`` and ``review`` read the cache through it and never import the network code
(generator/sources/, generator/fetch/); ``fetch`` imports it to read and write the files.
"""
