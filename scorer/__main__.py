"""Run the command line: ``python -m scorer FILE...``."""

from __future__ import annotations

import sys

from scorer.cli import main

if __name__ == "__main__":
    sys.exit(main())
