"""Choose among a kingdom's candidate outlines by how each reads: the verify step.

Detection proposes a kingdom's outline and keeps the other outlines of the same
tiles as alternatives (``BoardLocation.alternatives``), the whole frame among
them for a photo cropped to the kingdom. Each is read, and scored by one sum
(:func:`hypothesis_score`):

- how surely its squares read as the labels decoded for them: the mean log
  probability of the decoded labels, which falls where a square is cut across
  its picture, where no square reads as the castle or two do (decoding then
  forces one), and where the reading breaks the 48-domino tile set (decoding
  then changes a square);
- less ``beyond_weight`` times the tile probability of the strip of squares just
  outside its most tiled side: an outline that leaves tiles outside is part of a
  kingdom. A strip mostly outside the photo is not read, and the part of it
  outside counts as ``unseen_beyond``: the photo does not show whether the kingdom
  ends there;
- less ``violation_weight`` for each way the decoded kingdom still breaks the
  tile set (:func:`scorer.rules.scoring.tileset_violations`), as a grid too large
  does;
- less ``edge_weight`` times the log of how much fainter its weakest side is than
  its seams (:func:`scorer.read.sides.side_sharpness`), where fainter: a side on bare
  table, as a grid grown a row into the table has, is no kingdom's edge.

The first outline stands unless another scores higher by more than
``ReadParams.clearer_by``. Reading stays out of detection: this module is called from
:func:`scorer.read.corrections.read_and_correct`, with the reading handed in.

>>> from scorer.read.classify import predict_from_probabilities
>>> from scorer.rules.kingdom import ALL_CELLS, CASTLE
>>> sure = np.zeros((1, 1, len(ALL_CELLS)))
>>> sure[..., ALL_CELLS.index(CASTLE)] = 1.0
>>> decoded_log_probability(predict_from_probabilities(sure), 1e-6)
0.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from scorer.detect import BoardLocation, beyond_side
from scorer.detect.geometry import same_squares
from scorer.read.classify import BoardPrediction
from scorer.read.params import DEFAULT, ReadParams
from scorer.rules.kingdom import EMPTY
from scorer.rules.scoring import tileset_violations

R = TypeVar("R", bound=tuple[BoardLocation, np.ndarray, BoardPrediction])
"""A reading: location, rectified board, prediction (:class:`scorer.read.corrections.Reading`)."""


@dataclass(frozen=True)
class Hypothesis:
    """One candidate outline as read, and its score.

    Attributes
    ----------
    location : BoardLocation
        The outline as read (after the corrections by reading).
    score : float
        :func:`hypothesis_score`; higher is better.
    clarity : float
        The mean log probability of the decoded labels.
    beyond : float
        The tile probability (0–1) of the strip beyond its most tiled side.
    violations : int
        Ways the decoded kingdom breaks the tile set.
    edge : float or None
        Its weakest side's contrast relative to its seams; None where not measured.
    """

    location: BoardLocation
    score: float
    clarity: float
    beyond: float
    violations: int
    edge: float | None = None


def verified_outline(
    found: BoardLocation,
    first: R,
    read: Callable[[BoardLocation], R],
    read_strip: Callable[[BoardLocation], np.ndarray],
    image_shape: tuple[int, ...],
    *,
    better_by: float,
    floor: float,
    params: ReadParams = DEFAULT,
    sides: Callable[[BoardLocation], float | None] | None = None,
) -> tuple[BoardLocation | None, R, tuple[Hypothesis, ...]]:
    """The reading of whichever candidate outline of a kingdom scores best.

    Parameters
    ----------
    found : BoardLocation
        The kingdom as detection found it, with its alternatives.
    first : Reading
        The reading of ``found`` (location, board, prediction).
    read : callable
        Reads one alternative outline as ``found`` was read.
    read_strip : callable
        Probabilities over the classifier's labels of each square of a strip
        (shape ``(n, labels)``), for a one-square-deep location.
    image_shape : tuple of int
        The photo's shape.
    better_by : float
        Score (nats) by which another outline must beat the first
        (:attr:`scorer.read.params.ReadParams.clearer_by`).
    floor : float
        Lowest probability whose log a square adds
        (:attr:`scorer.read.params.ReadParams.clarity_floor`).
    params : ReadParams
        ``beyond_weight``, ``violation_weight``, ``edge_weight``, ``strip_in_photo`` and
        ``unseen_beyond``.
    sides : callable, optional
        The weakest side's contrast relative to the seams of an outline
        (:func:`scorer.read.sides.side_sharpness`); without it no edge term is counted.

    Returns
    -------
    outline : BoardLocation or None
        The other outline taken, or None when the first stands.
    reading : Reading
        The reading of the outline kept.
    hypotheses : tuple of Hypothesis
        Every candidate scored, the first one first; empty when there was no
        alternative to weigh.
    """
    if not found.alternatives:
        return None, first, ()
    best = _scored(first, read_strip, image_shape, floor, params, sides)
    hypotheses = [best]
    outline: BoardLocation | None = None
    reading = first
    for other in found.alternatives:
        candidate = read(other)
        scored = _scored(candidate, read_strip, image_shape, floor, params, sides)
        hypotheses.append(scored)
        if _margin(scored, best, params) > better_by:
            outline, reading, best = other, candidate, scored
    return outline, reading, tuple(hypotheses)


def hypothesis_score(
    prediction: BoardPrediction,
    beyond: float,
    floor: float,
    params: ReadParams = DEFAULT,
    edge: float | None = None,
) -> float:
    """The score of one candidate outline: higher is more likely the kingdom.

    Parameters
    ----------
    prediction : BoardPrediction
        The candidate's reading.
    beyond : float
        Tile probability (0–1) of the strip beyond its most tiled side (:func:`beyond_tiles`).
    floor : float
        Lowest probability whose log a square adds.
    params : ReadParams
        ``beyond_weight``, ``violation_weight`` and ``edge_weight``.
    edge : float, optional
        The weakest side's contrast relative to the seams (:mod:`scorer.read.sides`);
        below 1 it costs ``edge_weight`` times its log, floored at ``floor``.

    Returns
    -------
    float

    Examples
    --------
    >>> from scorer.read.classify import predict_from_probabilities
    >>> from scorer.rules.kingdom import ALL_CELLS, CASTLE
    >>> sure = np.zeros((1, 1, len(ALL_CELLS)))
    >>> sure[..., ALL_CELLS.index(CASTLE)] = 1.0
    >>> hypothesis_score(predict_from_probabilities(sure), 0.5, 1e-6)
    -0.25
    >>> from dataclasses import replace
    >>> faint = replace(DEFAULT, edge_weight=0.1)  # a side a tenth as sharp as the seams
    >>> round(hypothesis_score(predict_from_probabilities(sure), 0.0, 1e-6, faint, 0.1), 3)
    -0.23
    """
    violations = len(tileset_violations(prediction.kingdom))
    return (
        decoded_log_probability(prediction, floor)
        - params.beyond_weight * beyond
        - params.violation_weight * violations
        - params.edge_weight * faintness(edge, floor)
    )


def faintness(edge: float | None, floor: float) -> float:
    """How much fainter (nats) an outline's weakest side is than its seams: 0 when it is as
    sharp or sharper, or was not measured.

    >>> faintness(0.5, 1e-6) == float(np.log(2)), faintness(1.5, 1e-6), faintness(None, 1e-6)
    (True, 0.0, 0.0)
    """
    return 0.0 if edge is None else max(0.0, -float(np.log(max(edge, floor))))


def decoded_log_probability(prediction: BoardPrediction, floor: float) -> float:
    """Mean over the squares of the log of the classifier's probability of the decoded label.

    Decoding keeps exactly one castle and the tile set; where the classifier read
    otherwise, the decoded label's probability, and so this mean, is low.

    Parameters
    ----------
    prediction : BoardPrediction
    floor : float
        Lowest probability counted.

    Returns
    -------
    float
    """
    index = {cell: i for i, cell in enumerate(prediction.classes)}
    rows, cols = prediction.kingdom.shape
    chosen = np.array(
        [[index[prediction.kingdom[(r, c)]] for c in range(cols)] for r in range(rows)]
    )
    proba = np.take_along_axis(prediction.probabilities, chosen[..., None], axis=-1)[..., 0]
    return float(np.mean(np.log(np.clip(proba, floor, 1.0))))


def beyond_tiles(
    location: BoardLocation,
    read_strip: Callable[[BoardLocation], np.ndarray],
    empty_index: int,
    image_shape: tuple[int, ...],
    params: ReadParams = DEFAULT,
) -> float:
    """The mean tile probability of the strip beyond the outline's most tiled side.

    Only strips lying in the photo (``params.strip_in_photo``) are read; of one that does
    not, the part outside the photo counts as ``params.unseen_beyond`` and the rest as table.

    Parameters
    ----------
    location : BoardLocation
    read_strip : callable
        Probabilities of each square of a strip, shape ``(n, labels)``.
    empty_index : int
        Index of the empty label among the probabilities.
    image_shape : tuple of int
    params : ReadParams
        ``strip_in_photo`` and ``unseen_beyond``.

    Returns
    -------
    float
    """
    most = 0.0
    for strip in beyond_side(location).values():
        shown = _in_photo(strip.corners, image_shape)
        if shown < params.strip_in_photo:
            most = max(most, params.unseen_beyond * (1.0 - shown))
            continue
        proba = read_strip(strip)
        most = max(most, float(np.mean(1.0 - proba[:, empty_index])))
    return most


def _scored(
    reading: tuple[BoardLocation, np.ndarray, BoardPrediction],
    read_strip: Callable[[BoardLocation], np.ndarray],
    image_shape: tuple[int, ...],
    floor: float,
    params: ReadParams,
    sides: Callable[[BoardLocation], float | None] | None = None,
) -> Hypothesis:
    """One reading as a scored hypothesis."""
    location, _, prediction = reading
    beyond = beyond_tiles(
        location, read_strip, prediction.classes.index(EMPTY), image_shape, params
    )
    edge = sides(location) if sides is not None and params.edge_weight else None
    return Hypothesis(
        location,
        hypothesis_score(prediction, beyond, floor, params, edge),
        decoded_log_probability(prediction, floor),
        beyond,
        len(tileset_violations(prediction.kingdom)),
        edge,
    )


def _margin(challenger: Hypothesis, holder: Hypothesis, params: ReadParams) -> float:
    """How much better ``challenger`` scores than ``holder``.

    Two outlines of one grid shape whose corners lie within half a square of each other
    cover the same squares: the strips beyond them hold the same table and tiles, and their
    sides the same edges, and what differs there is only the sampling of a shifted strip or
    line. Between such outlines only the reading and the tile set count; the strip beyond
    and the sides decide between outlines of different extent (a grid inside the kingdom
    against the whole frame, a grid grown a row into the table against the kingdom's own).
    """
    margin = challenger.score - holder.score
    if same_squares(challenger.location, holder.location):
        floor = params.clarity_floor
        margin += params.beyond_weight * (challenger.beyond - holder.beyond)
        margin += params.edge_weight * (
            faintness(challenger.edge, floor) - faintness(holder.edge, floor)
        )
    return margin


def _in_photo(corners: np.ndarray, shape: tuple[int, ...]) -> float:
    """Share of the box around ``corners`` that lies in a photo of this shape.

    >>> _in_photo(np.array([[-10, 0], [10, 0], [10, 10], [-10, 10]], float), (100, 100))
    0.5
    """
    height, width = shape[:2]
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    area = float(np.prod(np.maximum(hi - lo, 1e-9)))
    inside = np.clip(np.minimum(hi, [width, height]) - np.maximum(lo, 0.0), 0.0, None)
    return float(np.prod(inside)) / area
