"""authorsite: a static site generator for academic author profiles.

The pipeline is load -> fetch -> assemble -> plan -> write, one folder per stage: ``config``
(load), ``sources`` and ``fetch`` (fetch), ``assemble``, ``render`` (plan), ``write``; ``core``
holds what every stage uses, ``incremental`` the accelerators, ``serve`` the live preview. The
modules at the top are the commands; ``build`` is the only orchestrator.
"""

__version__ = "0.1.0"
