"""``python -m autograder``: see :mod:`autograder.cli`."""

from .cli import main

raise SystemExit(main())
