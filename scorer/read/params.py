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

    beyond_weight: float = 0.5
    """Weight (nats) of the tile probability of the strip beyond a candidate's most tiled side."""

    violation_weight: float = 0.1
    """Score (nats) taken off a candidate outline for each way it breaks the tile set."""

    strip_in_photo: float = 0.8
    """Share of a strip's corners' box (0–1) that must lie in the photo for it to count."""

    unseen_beyond: float = 0.0
    """Tile probability (0–1) taken for the part outside the photo of a strip beyond an outline."""

    edge_weight: float = 0.1
    """Weight (nats) of the log of how much fainter a candidate's weakest side is than its seams."""

    decisive_doubtful: int = 1
    """Doubtful squares whose other reading would change the total, from which it is unconfirmed."""

    dark_light: float = -0.8
    """Fitted log exposure (nats) below which a kingdom is brightened to the training light."""

    bright_light: float = 1.0
    """Fitted log exposure (nats) above which a kingdom is darkened to the training light."""

    red_cast: float = 0.45
    """Fitted log gain of red over green (nats), either way, beyond which the cast is corrected."""

    blue_cast: float = 1.0
    """Fitted log gain of blue over green (nats), either way, beyond which the cast is corrected."""

    light_trial: bool = True
    """Whether a fitted light inside the normal bands is kept where the board reads clearer."""

    light_trial_sure: bool = True
    """Whether the light is tried on a board whose every square already reads surely."""

    light_disagreement: bool = True
    """Whether a square read as different labels in the two lights tried is doubtful."""

    domino_doubt: bool = True
    """Whether the squares that a grid of whole dominoes reads differently are doubtful."""

    doubt_below: float = 0.8
    """Probability (0–1) of a square's decoded label under which the square is doubtful."""

    # Twice decoding's cost of an unpaired square (scorer.read.decoding.UNPAIRED_COST): the
    # castle moved onto a domino leaves at most its two squares unpaired.
    castle_within: float = 6.0
    """Extra cost (nats) of a grid with the castle at a square within which it may stand there."""

    # The tile set promises one castle, not where it stands; a castle misplaced makes two
    # squares wrong at once. Swept in docs/experiments.md (2026-12-07, seventeenth session).
    castle_doubt_below: float = 0.9
    """Probability (0–1) of the castle's label under which the places it may stand are doubtful."""

    # Half the chance of a wrong reading that makes a square doubtful (1 - doubt_below): a
    # doubtful square's probabilities err, and a confirmed wrong total is the worst outcome.
    # Swept in docs/experiments.md (2026-12-07, eighteenth session): 0.2 left a silent total.
    decisive_share: float = 0.1
    """Probability (0–1) of a doubtful square's readings that change the total, to withhold it."""

    # A veil of glare adds light to every level: a gain alone takes it for over-exposure.
    light_lift: bool = True
    """Whether a light outside the bands is doubted where a gain with a lift fits inside them."""

    # 0.1, 0.2 and 0.3 give the same matrix (docs/experiments.md, fourteenth session).
    lift_trim: float = 0.2
    """Share of squares (0–1) farthest from a channel's fitted line left out of its fit."""

    # Most of the darkest square's level, not all: that square is a terrain too, not the veil.
    lift_start: float = 0.8
    """Share (0–1) of the darkest square's level in each channel where the veil's fit starts."""

    # A channel shrunk under a tenth is a misfit (squares matched to the wrong terrains).
    least_gain: float = 0.1
    """Smallest gain of a channel in a fit with a lift; a fit with a smaller one is refused."""

    light_clearer_by: float = 0.0
    """Mean log-confidence (nats) by which the reading in a tried light must beat the photo's."""

    light_limit: float = 2.0
    """Largest fitted colour cast (nats) taken as a light's; beyond, nothing is corrected."""

    glare_level: int = 200
    """Least value (0–255) of every channel of a pixel washed out to near white by glare."""

    glare_share: float = 0.2
    """Share of a square's pixels (0–1) washed out beyond which glare hides the square."""

    table_far: float = 2.0
    """Squares from an empty read within which the table's ring is not sampled for it."""

    table_distance: float = 20.0
    """Lab distance (8-bit units) within which a square's pixel has one of the table's colours."""

    covered_share: float = 0.5
    """Share of an empty read's pixels (0–1) unlike the table beyond which something covers it."""

    over_edge_share: float = 0.2
    """Share of a rim square (0–1) like what lies over the edge beside it that counts as covered."""

    cut_share: float = 0.25
    """Share of a square (0–1) beyond the photo's border from which the edge cuts it off."""


DEFAULT: Final = ReadParams()
"""The values the pipeline reads with."""
