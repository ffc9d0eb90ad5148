"""``python -m generator`` runs the same CLI as the ``authorsite`` script."""

from generator.cli import main

main()
