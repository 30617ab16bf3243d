"""``python -m tablecert``: the same as the ``tablecert`` command."""

from tablecert.cli import main

main()
