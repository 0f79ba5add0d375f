"""``python -m reasoning`` runs the kgground CLI (like the ``kgground`` console script)."""

from reasoning.cli import main

main()
