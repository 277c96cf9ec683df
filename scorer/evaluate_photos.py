"""Launcher for ``python -m scorer.evaluate_photos`` (:mod:`scorer.lab.evaluate_photos`)."""

import sys

from scorer.lab.evaluate_photos import main

if __name__ == "__main__":
    sys.exit(main())
