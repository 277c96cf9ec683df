"""Launcher for ``python -m scorer.bench``; the code is :mod:`scorer.lab.bench`."""

import sys

from scorer.lab.bench import main

if __name__ == "__main__":
    sys.exit(main())
