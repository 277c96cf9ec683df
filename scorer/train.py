"""Launcher for ``python -m scorer.train``; the code is :mod:`scorer.lab.train`."""

import sys

from scorer.lab.train import main

if __name__ == "__main__":
    sys.exit(main())
