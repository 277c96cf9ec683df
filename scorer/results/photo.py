"""A photo's kingdoms as read and scored: what the pipeline returns to the page and the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from scorer.results.report import (
    confidence_grid,
    corner_points,
    other_outline_note,
    outline_note,
)

if TYPE_CHECKING:
    from scorer.detect import BoardLocation
    from scorer.read.classify import BoardPrediction
    from scorer.rules.kingdom import Cell, Kingdom, Position
    from scorer.rules.scoring import ScoreBreakdown, Violation


@dataclass(frozen=True, eq=False)
class KingdomReport:
    """One kingdom found in a photo, read and scored.

    Attributes
    ----------
    location : BoardLocation
        Where it lies in the photo (corners in original pixels) and its grid shape.
    board : ndarray
        The rectified board the squares were read from (BGR).
    prediction : BoardPrediction
        The classifier's reading: kingdom, per-square confidence, doubtful squares.
    score : ScoreBreakdown
        The score of the predicted kingdom under the rules.
    violations : tuple of Violation
        Ways the predicted kingdom cannot be built from the tile set.
    warnings : tuple of str
        Plain-language notes for the player (:func:`scorer.results.report.photo_notes`).
    detected_shape : tuple of int, optional
        The grid detection found, when what was read corrected it; None when it stands.
    other_outline : bool
        Whether the correction was to take another outline detection kept, whose
        squares read more clearly (:func:`scorer.read.verify.verified_outline`).
    reasons : tuple of str
        Why the program does not stand behind the total, in plain language
        (:func:`scorer.results.verdict.kingdom_verdict`); empty when it does.
    """

    location: BoardLocation
    board: np.ndarray
    prediction: BoardPrediction
    score: ScoreBreakdown
    violations: tuple[Violation, ...]
    warnings: tuple[str, ...]
    detected_shape: tuple[int, int] | None = None
    other_outline: bool = False
    reasons: tuple[str, ...] = ()

    @property
    def confirmed(self) -> bool:
        """Whether the program stands behind the total: nothing in :attr:`reasons`."""
        return not self.reasons

    @property
    def outline_note(self) -> str | None:
        """The note that what was read corrected the outline, if it did."""
        if self.detected_shape is None:
            return None
        if self.other_outline:
            return other_outline_note(self.detected_shape, self.location.shape)
        return outline_note(self.detected_shape, self.location.shape)

    @property
    def kingdom(self) -> Kingdom:
        """The predicted kingdom."""
        return self.prediction.kingdom

    @property
    def corners(self) -> list[list[float]]:
        """Four ``[x, y]`` points in the original photo, clockwise from the top-left."""
        return corner_points(self.location.corners)

    @property
    def confidence(self) -> list[list[float]]:
        """The probability of each square's label, as a grid of numbers."""
        return confidence_grid(self.prediction.confidence)

    @property
    def doubtful(self) -> frozenset[Position]:
        """Squares the player should check."""
        return self.prediction.doubtful

    @property
    def second_choices(self) -> dict[Position, Cell]:
        """For each doubtful square, its most probable other reading."""
        return self.prediction.second_choices()

    @property
    def square_px(self) -> float:
        """Mean side of one square in the photo, in pixels (see :func:`square_side_px`)."""
        return square_side_px(self.location)


@dataclass(frozen=True, eq=False)
class PhotoReport:
    """Everything read from one photo.

    Attributes
    ----------
    kingdoms : list of KingdomReport
        Left to right, then top to bottom.
    timings : dict of str to float
        Seconds spent in each stage of :data:`scorer.pipeline.STAGES`, summed over kingdoms.
    """

    kingdoms: list[KingdomReport]
    timings: dict[str, float] = field(default_factory=dict)


def square_side_px(location: BoardLocation) -> float:
    """Mean side of one square in the photo, in pixels (0 when the corners are unknown).

    Parameters
    ----------
    location : BoardLocation

    Returns
    -------
    float

    Examples
    --------
    >>> from scorer.detect import BoardLocation
    >>> corners = np.array([[0, 0], [500, 0], [500, 500], [0, 500]], float)
    >>> square_side_px(BoardLocation(corners, (5, 5)))
    100.0
    """
    quad = np.asarray(location.corners, dtype=np.float64)
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    rows, cols = location.shape
    return float((sides[0] + sides[2]) / (2 * cols) + (sides[1] + sides[3]) / (2 * rows)) / 2
