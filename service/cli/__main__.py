"""``python -m service.cli``: the same as the ``bullscows`` command."""

from service.cli import main

main()
