"""Launcher for ``python -m scorer.evaluate``; the code is :mod:`scorer.lab.evaluate`."""

import sys

from scorer.lab.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
