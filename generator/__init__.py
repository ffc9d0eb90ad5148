"""authorsite: a static site generator for academic author profiles.

The pipeline is load -> fetch -> assemble -> render -> write, one module per job:
``config`` (load), ``sources`` and ``cache`` (fetch), ``assemble``, ``render`` and
``themes`` (render), ``output`` (write); ``build`` is the only orchestrator.
"""

__version__ = "0.1.0"
