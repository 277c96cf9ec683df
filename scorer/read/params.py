"""The tuned values of reading a kingdom and correcting its outline by what is read.

What each value was chosen from is in ``docs/experiments.md`` (section "Reading").

>>> DEFAULT.clearer_by
0.03
>>> from dataclasses import replace
>>> replace(DEFAULT, clearer_by=0.05).clearer_by
0.05
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class ReadParams:
    """The tuned values of :mod:`scorer.read.corrections` and of the photo notes."""

    table_empty_odds: float = 100_000.0
    """Factor (a ratio of odds) on a square's odds of empty where detection saw bare table."""

    bare_row_empty: float = 0.5
    """Probability of empty (0–1) each square of an edge row needs for the row to be dropped."""

    clearer_by: float = 0.03
    """Mean log-confidence (nats) by which another outline's reading must beat the first's."""

    clarity_floor: float = 1e-6
    """Lowest probability (0–1) whose log a square adds to the mean log-confidence."""

    restore_tile_share: float = 0.5
    """Share of a left-out row's squares (0–1) that must be exceeded by those read as tiles."""

    castle_search_bare_share: float = 0.5
    """Share of a row's squares (0–1) read as empty beyond which the castle search stops."""

    min_square_px: int = 40
    """Side of a square in the photo, in pixels, below which the player is asked to check."""

    edge_margin: float = 0.05
    """Squares from the photo's border within which a corner leaves the total unconfirmed."""

    several_doubtful: int = 3
    """Doubtful squares from which a kingdom's total is unconfirmed until the player checks."""


DEFAULT: Final = ReadParams()
"""The values the pipeline reads with."""
