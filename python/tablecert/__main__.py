"""``python -m tablecert``: the same as the ``tablecert`` command."""

from tablecert.entry import main

main()
