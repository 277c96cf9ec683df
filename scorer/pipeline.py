"""The one place the stages are composed: photo → kingdoms → squares → score.

>>> from scorer.rules.kingdom import Kingdom
>>> from scorer.rules.scoring import Rules
>>> score_kingdom(Kingdom.parse("F1 F0 C"), Rules()).total
2
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Final

import numpy as np

from scorer.detect import (
    BoardLocation,
    Side,
    beyond_side,
    extend_location,
    find_kingdoms,
    rectify,
)
from scorer.detect import board as board_module
from scorer.read.cells import split_cells
from scorer.read.classify import (
    BoardPrediction,
    CellClassifier,
    classify_board,
    default_model,
    doubtful_squares,
    predict_from_probabilities,
)
from scorer.read.decoding import decode
from scorer.rules.kingdom import (
    ALL_CELLS,
    CASTLE,
    DUEL_SIZE,
    EMPTY,
    STANDARD_SIZE,
    Cell,
    Kingdom,
    Position,
    position_name,
)
from scorer.rules.scoring import Rules, ScoreBreakdown, Violation, score, tileset_violations

STAGES = ("detect", "rectify", "classify", "score")
"""The timed stages of :func:`score_photo`, in order."""

TABLE_EMPTY_ODDS: Final = 100_000.0
"""How much more likely a square is empty once detection saw bare table there.

Detection marks a square as table when it looks like the table around the
kingdom (``BoardLocation.empty``). On 300 development scenes (seeds 5000–5299),
multiplying the classifier's odds of empty by 1000 there read 190 squares wrong
instead of 248; forcing empty outright read 191 wrong but overruled 15 right
tiles (lakes on a blue cloth, a castle) where 1000 overruled 2. On 200 other
scenes (seeds 5300–5499), with the castle kept: 139 wrong squares instead of 178.
Once decoding paired squares into dominoes, two bare squares side by side could
be read as one domino of table-coloured tiles despite the factor 1000; with
100,000, the found kingdoms of seeds 5000–5399 read 224 squares wrong instead of 233."""

BARE_ROW_EMPTY: Final = 0.5
"""Probability of empty each square of an edge row needs for the row to be dropped as bare
table (:func:`drop_bare_edges`)."""

CLEARER_BY: Final = 0.03
"""Mean log-confidence (:func:`reading_clarity`) by which the reading of another outline
detection kept must beat the first outline's to replace it (:func:`clearest_outline`).

On the 510 kingdoms with alternatives among 2,400 development scenes (see
``scorer.detect._NEAR_BEST``), margins of 0, 0.01, 0.02, 0.03, 0.05 and 0.08 gave
5, 6, 4, 5, 3 and 3 more kingdoms right than the first outline alone; they broke 3,
2, 2, 1, 1 and 0 that were right, and read 30, 39, 43, 44, 34 and 20 more squares
right at their place."""

MIN_SQUARE_PX: Final = 40
"""Side of a square in the photo, in pixels, below which crowns are hard to read.

On 500 synthetic photos read through their true corners, squares under 40
pixels across are read right less often (94.1%) than larger ones (96.8–97.2%;
see ``models/photo_evaluation.md``); below this size the player is asked for a
closer photo."""


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
        Plain-language notes for the player (doubtful squares, odd grids).
    detected_shape : tuple of int, optional
        The grid detection found, when what was read corrected it
        (:func:`read_rectified`); None when it stands.
    other_outline : bool
        Whether the correction was to take another outline detection kept,
        whose squares read more clearly (:func:`clearest_outline`).
    """

    location: BoardLocation
    board: np.ndarray
    prediction: BoardPrediction
    score: ScoreBreakdown
    violations: tuple[Violation, ...]
    warnings: tuple[str, ...]
    detected_shape: tuple[int, int] | None = None
    other_outline: bool = False

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
        return [[round(float(x), 1), round(float(y), 1)] for x, y in self.location.corners]

    @property
    def confidence(self) -> list[list[float]]:
        """The probability of each square's label, as a grid of numbers."""
        return [[round(float(v), 3) for v in row] for row in self.prediction.confidence]

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
        Seconds spent in each stage of :data:`STAGES`, summed over kingdoms.
    """

    kingdoms: list[KingdomReport]
    timings: dict[str, float] = field(default_factory=dict)


def score_photo(
    image: np.ndarray,
    rules: Rules | None = None,
    *,
    grid: int | None = None,
    corners: Any = None,
    model: CellClassifier | None = None,
    square_px: int = board_module.SQUARE_PX,
) -> PhotoReport:
    """Find, read and score every kingdom in a photo.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        BGR photo, upright (EXIF orientation already applied).
    rules : Rules, optional
        Scoring rules; the standard rules when omitted.
    grid : int, optional
        Force the grid side (5 or 7) instead of measuring it.
    corners : array-like of shape (4, 2), optional
        Corners of one kingdom marked by the player; detection is skipped.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.

    Returns
    -------
    PhotoReport

    Raises
    ------
    BoardNotFoundError
        No kingdom in the photo (``GridNotConsistentError`` when tiles were
        found but no grid fits them).
    ModelFileError
        The trained model is missing or broken.
    """
    rules = Rules() if rules is None else rules
    timings = dict.fromkeys(STAGES, 0.0)
    with _timed(timings, "detect"):
        locations = find_kingdoms(image, corners=corners, grid=grid)
    reports = []
    for found in locations:
        with _timed(timings, "rectify"):
            board = rectify(image, found, square_px)
        with _timed(timings, "classify"):
            reading = read_rectified(
                image, found, board, model, square_px, grid=grid, refine=corners is None
            )
            other = None
            if corners is None:
                other, reading = clearest_outline(
                    image, found, reading, model, square_px, grid=grid
                )
        location, board, prediction = reading
        with _timed(timings, "score"):
            breakdown = score(prediction.kingdom, rules)
            violations = tileset_violations(prediction.kingdom, rules)
        report = KingdomReport(
            location,
            board,
            prediction,
            breakdown,
            tuple(violations),
            _warnings(location, prediction),
            None if location is found else found.shape,
            other is not None,
        )
        if report.outline_note is not None:
            report = replace(report, warnings=(report.outline_note, *report.warnings))
        reports.append(report)
    timings["total"] = sum(timings[s] for s in STAGES)
    return PhotoReport(reports, timings)


def score_kingdom(kingdom: Kingdom, rules: Rules | None = None) -> ScoreBreakdown:
    """Score a kingdom the player corrected or typed in.

    Parameters
    ----------
    kingdom : Kingdom
    rules : Rules, optional

    Returns
    -------
    ScoreBreakdown
    """
    return score(kingdom, Rules() if rules is None else rules)


def _with_what_detection_saw(
    prediction: BoardPrediction, location: BoardLocation
) -> BoardPrediction:
    """Re-decode with what detection saw of each square, where it was clear.

    A square clearly covered by a tile (``location.tiles``) is never read as
    empty. For a square that looks like the bare table around the kingdom
    (``location.empty``), the odds of empty are multiplied by
    :data:`TABLE_EMPTY_ODDS`, unless it is the castle (:func:`_castle_square`).
    The doubtful squares are those of the new decoding
    (:func:`scorer.read.classify.doubtful_squares`) and every square whose reading
    either rule changed.
    """
    k = prediction.classes.index(EMPTY)
    proba = prediction.probabilities.copy()
    for pos in location.tiles:
        proba[pos][k] = 0.0
    castle = _castle_square(proba, prediction.classes.index(CASTLE))
    exempt = location.tiles if castle is None else location.tiles | {castle}
    for pos in location.empty - exempt:
        proba[pos][k] *= TABLE_EMPTY_ODDS
    proba /= np.maximum(proba.sum(axis=-1, keepdims=True), 1e-12)
    changed = frozenset(
        pos
        for pos, cell in prediction.kingdom.cells()
        if (cell == EMPTY) != (int(proba[pos].argmax()) == k)
    )
    if not changed:
        return prediction
    kingdom, confidence = decode(proba, prediction.classes, location.shape)
    return replace(
        prediction,
        kingdom=kingdom,
        confidence=confidence,
        probabilities=proba,
        doubtful=doubtful_squares(kingdom, confidence, proba) | changed,
    )


def _castle_square(probabilities: np.ndarray, castle: int) -> Position | None:
    """The one square that may be the castle although detection saw bare table there.

    The grey start square can look like a grey table, so the square most
    likely to be the castle keeps its reading, if the classifier reads it as
    the castle. Only one square holds the castle: any other bare square read
    as the castle is weighed like the rest of the table. On 700 development
    scenes (seeds 5000-5299 and 11000-11399, held-out classifiers, 21,910
    squares of found kingdoms), exempting every square read as the castle
    instead read 5 more squares wrong, and none fewer: bare table squares that
    decoding, the castle being taken, read as the next likeliest tile.

    >>> p = np.zeros((2, 2, 3))
    >>> p[..., 0] = 1.0
    >>> p[0, 1] = [0.2, 0.8, 0.0]
    >>> p[1, 0] = [0.4, 0.6, 0.0]
    >>> _castle_square(p, castle=1)
    (0, 1)
    >>> _castle_square(p, castle=2) is None
    True
    """
    chance = probabilities[..., castle]
    row, col = np.unravel_index(int(chance.argmax()), chance.shape)
    pos = (int(row), int(col))
    return pos if int(probabilities[pos].argmax()) == castle else None


def read_board(
    board: np.ndarray, location: BoardLocation, model: CellClassifier | None = None
) -> BoardPrediction:
    """Classify the squares of a rectified board, using what detection saw.

    A square that detection saw clearly covered by a tile is never read as
    empty, and one that looks like the bare table around the kingdom is more
    likely empty (:data:`TABLE_EMPTY_ODDS`).

    Parameters
    ----------
    board : ndarray
        The rectified board from :func:`scorer.detect.rectify`.
    location : BoardLocation
        Its location, with the grid shape and the squares seen as tiles.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.

    Returns
    -------
    BoardPrediction
    """
    return _with_what_detection_saw(classify_board(board, location.shape, model), location)


def read_kingdom(
    image: np.ndarray,
    location: BoardLocation,
    model: CellClassifier | None = None,
    square_px: int = board_module.SQUARE_PX,
    *,
    grid: int | None = None,
    refine: bool = True,
) -> tuple[BoardLocation, np.ndarray, BoardPrediction]:
    """Rectify and read one kingdom found in a photo (:func:`read_rectified`), and the
    other outlines detection kept for it (:func:`clearest_outline`).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    location : BoardLocation
        The kingdom as detection found it.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.
    refine : bool
        Whether what is read may correct the kingdom's outline.

    Returns
    -------
    location : BoardLocation
        The kingdom's location, as corrected by what was read.
    board : ndarray
        The rectified board.
    prediction : BoardPrediction
    """
    board = rectify(image, location, square_px)
    reading = read_rectified(image, location, board, model, square_px, grid=grid, refine=refine)
    if refine:
        reading = clearest_outline(image, location, reading, model, square_px, grid=grid)[1]
    return reading


def clearest_outline(
    image: np.ndarray,
    found: BoardLocation,
    reading: tuple[BoardLocation, np.ndarray, BoardPrediction],
    model: CellClassifier | None = None,
    square_px: int = board_module.SQUARE_PX,
    *,
    grid: int | None = None,
) -> tuple[BoardLocation | None, tuple[BoardLocation, np.ndarray, BoardPrediction]]:
    """The reading of whichever outline of a kingdom reads most clearly.

    Detection keeps the other outlines of the same tiles whose seams were nearly
    as clear as the chosen one's (``found.alternatives``): faint seams cannot
    tell a grid a row short from the right one, and the outline covering the
    most tiles can have taken in a loose domino. Each is read as the first
    was; a grid a row short
    or a fraction of a square off cuts squares across their pictures, which the
    classifier reads less surely. The reading of another outline replaces the
    first one's when its :func:`reading_clarity` is higher by at least
    :data:`CLEARER_BY`.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    found : BoardLocation
        The kingdom as detection found it, with its alternatives.
    reading : tuple
        ``(location, board, prediction)`` of ``found`` (:func:`read_rectified`).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.

    Returns
    -------
    outline : BoardLocation or None
        The other outline taken, or None when the first stands.
    reading : tuple
        ``(location, board, prediction)`` of the outline kept.
    """
    outline: BoardLocation | None = None
    best = reading_clarity(reading[2])
    for other in found.alternatives:
        board = rectify(image, other, square_px)
        candidate = read_rectified(image, other, board, model, square_px, grid=grid)
        clarity = reading_clarity(candidate[2])
        if clarity > best + CLEARER_BY:
            outline, reading, best = other, candidate, clarity
    return outline, reading


def reading_clarity(prediction: BoardPrediction) -> float:
    """Mean over the squares of the log of the classifier's highest probability.

    Near 0 when each square looks like one label; lower when squares are cut
    across their pictures or hold parts of two squares.

    Parameters
    ----------
    prediction : BoardPrediction

    Returns
    -------
    float

    Examples
    --------
    >>> from scorer.read.classify import predict_from_probabilities
    >>> sure = np.zeros((2, 2, len(ALL_CELLS)))
    >>> sure[..., ALL_CELLS.index(CASTLE)] = 1.0
    >>> reading_clarity(predict_from_probabilities(sure))
    0.0
    >>> torn = np.full((2, 2, len(ALL_CELLS)), 0.5 / (len(ALL_CELLS) - 1))
    >>> torn[..., ALL_CELLS.index(CASTLE)] = 0.5
    >>> round(reading_clarity(predict_from_probabilities(torn)), 3)
    -0.693
    """
    highest = np.clip(prediction.probabilities.max(axis=-1), 1e-6, 1.0)
    return float(np.mean(np.log(highest)))


def read_rectified(
    image: np.ndarray,
    location: BoardLocation,
    board: np.ndarray,
    model: CellClassifier | None = None,
    square_px: int = board_module.SQUARE_PX,
    *,
    grid: int | None = None,
    refine: bool = True,
) -> tuple[BoardLocation, np.ndarray, BoardPrediction]:
    """Read a kingdom's rectified board, and correct its outline by what is read.

    Detection sees colours and edges, not terrains; the classifier's reading
    corrects three of its mistakes (unless ``refine`` is off, as for corners the
    player marked):

    - an edge row whose every square reads as bare table is no part of the
      kingdom (a strip of table taken for a row) and is dropped
      (:func:`drop_bare_edges`; not when the player set the grid's side);
    - a row that detection left out as table, though the seams took it in,
      is taken back when most of its squares read as tiles, one with a crown
      (:func:`restore_tile_rows`: lakes on a blue mat);
    - a kingdom read without its castle grows to the row that holds it
      (:func:`grow_to_castle`).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    location : BoardLocation
        The kingdom as detection found it.
    board : ndarray
        Its rectified board (:func:`scorer.detect.rectify`).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in ``board``.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.
    refine : bool
        Whether what is read may correct the outline.

    Returns
    -------
    location : BoardLocation
    board : ndarray
    prediction : BoardPrediction
    """
    reading = classify_board(board, location.shape, model)
    if refine and grid is None:
        kept = drop_bare_edges(reading)
        if kept != (0, location.shape[0], 0, location.shape[1]):
            r0, r1, c0, c1 = kept
            location, board = _cut(location, board, kept)
            # The cut board's squares are the same crops: their reading is a slice.
            reading = predict_from_probabilities(reading.probabilities[r0:r1, c0:c1])
    prediction = _with_what_detection_saw(reading, location)
    if refine:
        restored = restore_tile_rows(image, location, model, square_px, grid=grid)
        if restored is not None:
            location, board, prediction = restored
        grown = grow_to_castle(image, location, prediction, model, square_px, grid=grid)
        if grown is not None:
            return grown
    return location, board, prediction


def drop_bare_edges(reading: BoardPrediction) -> tuple[int, int, int, int]:
    """The rows and columns left once edge rows read as bare table all across are dropped.

    An edge row goes when every square in it reads as empty with a probability of
    at least :data:`BARE_ROW_EMPTY`; rows go one at a time from any side, while
    more than :data:`scorer.detect.MIN_SIDE` remain.

    Parameters
    ----------
    reading : BoardPrediction
        The classifier's reading of the board (before detection's evidence).

    Returns
    -------
    tuple of int
        ``(r0, r1, c0, c1)``: the rows ``r0..r1-1`` and columns ``c0..c1-1`` kept.

    Examples
    --------
    >>> from scorer.read.classify import classify_board
    >>> from scorer.rules.kingdom import ALL_CELLS
    >>> class Model:
    ...     def predict_cell_proba(self, crops):
    ...         p = np.zeros((len(crops), len(ALL_CELLS)))
    ...         p[:, ALL_CELLS.index(EMPTY)] = 1.0
    ...         tiles = np.arange(len(crops)) % 4 != 3  # the last column is bare
    ...         p[tiles, ALL_CELLS.index(CASTLE)] = 2.0
    ...         return p / p.sum(axis=1, keepdims=True)
    >>> drop_bare_edges(classify_board(np.zeros((400, 400, 3), np.uint8), (4, 4), Model()))
    (0, 4, 0, 3)
    """
    k = reading.classes.index(EMPTY)
    bare = (reading.probabilities.argmax(axis=-1) == k) & (
        reading.probabilities[..., k] >= BARE_ROW_EMPTY
    )
    r0, r1, c0, c1 = 0, bare.shape[0], 0, bare.shape[1]
    changed = True
    while changed:
        changed = False
        if r1 - r0 > board_module.MIN_SIDE:
            if bare[r0, c0:c1].all():
                r0, changed = r0 + 1, True
            elif bare[r1 - 1, c0:c1].all():
                r1, changed = r1 - 1, True
        if c1 - c0 > board_module.MIN_SIDE:
            if bare[r0:r1, c0].all():
                c0, changed = c0 + 1, True
            elif bare[r0:r1, c1 - 1].all():
                c1, changed = c1 - 1, True
    return r0, r1, c0, c1


def _cut(
    location: BoardLocation, board: np.ndarray, kept: tuple[int, int, int, int]
) -> tuple[BoardLocation, np.ndarray]:
    """The location and rectified board of rows ``r0..r1`` and columns ``c0..c1``."""
    rows, cols = location.shape
    r0, r1, c0, c1 = kept
    changes = ((Side.TOP, -r0), (Side.BOTTOM, r1 - rows), (Side.LEFT, -c0), (Side.RIGHT, c1 - cols))
    for side, by in changes:
        if by:
            location = extend_location(location, side, by)
    step_y, step_x = board.shape[0] / rows, board.shape[1] / cols
    cut = board[round(r0 * step_y) : round(r1 * step_y), round(c0 * step_x) : round(c1 * step_x)]
    return location, np.ascontiguousarray(cut)


def restore_tile_rows(
    image: np.ndarray,
    location: BoardLocation,
    model: CellClassifier | None = None,
    square_px: int = board_module.SQUARE_PX,
    *,
    grid: int | None = None,
) -> tuple[BoardLocation, np.ndarray, BoardPrediction] | None:
    """Take back the rows detection left out as table where most squares read as tiles.

    Detection measures the grid on the seams, then leaves out an edge row whose
    colours are the table's: a strip of table, a shadow or a loose domino that
    stretched the outline. But a lake on a blue cutting mat, or a forest on a
    dark green cloth, has the table's colours too, and the classifier reads
    some squares of a blue mat as lakes as well. A row left out
    (``location.trimmed``) is taken back when more than half of its squares
    read as tiles, which a loose domino (two squares of five) does not reach,
    and one of them shows a crown, which no table does. The grid stays within
    5×5 (7×7 for Mighty Duel, or the side given by ``grid``).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo the kingdom was found in.
    location : BoardLocation
        The kingdom as found.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for.

    Returns
    -------
    tuple of (BoardLocation, ndarray, BoardPrediction), or None
        The kingdom with its rows taken back, its rectified board and its
        reading; None when no row is taken back.
    """
    if not location.trimmed:
        return None
    model = default_model() if model is None else model
    empty = ALL_CELLS.index(EMPTY)
    grown = location
    for side in sorted(location.trimmed):
        rows, cols = grown.shape
        limit = _side_limit(grown.shape, grid)
        if (rows if side.across else cols) >= limit:
            continue
        strip = beyond_side(grown, 1)[side]
        if not _within(strip.corners, image.shape):
            continue
        labels = _read_strip(image, strip, model, square_px).argmax(axis=-1)
        crowned = any(ALL_CELLS[i].crowns > 0 for i in labels)
        if crowned and 2 * np.count_nonzero(labels != empty) > labels.size:
            grown = extend_location(grown, side)
    if grown is location:
        return None
    board = rectify(image, grown, square_px)
    return grown, board, read_board(board, grown, model)


def grow_to_castle(
    image: np.ndarray,
    location: BoardLocation,
    prediction: BoardPrediction,
    model: CellClassifier | None = None,
    square_px: int = board_module.SQUARE_PX,
    *,
    grid: int | None = None,
) -> tuple[BoardLocation, np.ndarray, BoardPrediction] | None:
    """Grow a kingdom read without its castle to the row beyond it that holds the castle.

    Every kingdom has its castle. When no square of the kingdom reads as the
    castle, detection has left out the part that holds it: most often a grey
    castle alone in an edge row, on a grey table; sometimes rows of dark tiles
    on a dark table. Beyond each side, the rows are read one by one, through
    rows of tiles, up to the first that holds a square read as the castle; a
    row read mostly as bare table ends the search on that side. The grid stays
    within 5×5 (7×7 for Mighty Duel, or the side given by ``grid``): rows at the
    far side that read as bare table all across give way. The side whose
    square reads most clearly as the castle is grown, and the kingdom is read
    again.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo the kingdom was found in.
    location : BoardLocation
        The kingdom as found.
    prediction : BoardPrediction
        Its reading (:func:`read_board`).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for.

    Returns
    -------
    tuple of (BoardLocation, ndarray, BoardPrediction), or None
        The grown kingdom, its rectified board and its reading; None when the
        kingdom reads its castle, or no row beyond it does.
    """
    castle = prediction.classes.index(CASTLE)
    empty = prediction.classes.index(EMPTY)
    read = prediction.probabilities.argmax(axis=-1)
    if np.any(read == castle):
        return None
    model = default_model() if model is None else model
    rows, cols = location.shape
    side_limit = _side_limit(location.shape, grid)
    best: tuple[float, Side, int] | None = None
    for side in Side:
        span = rows if side.across else cols
        room = side_limit - span + _bare_rows(read == empty, side.opposite)
        for depth in range(1, room + 1):
            strip = beyond_side(location, depth)[side]
            if not _within(strip.corners, image.shape):
                break
            labels_proba = _read_strip(image, strip, model, square_px)
            labels = labels_proba.argmax(axis=-1)
            if np.any(labels == castle):
                chance = float(labels_proba[labels == castle, castle].max())
                if best is None or chance > best[0]:
                    best = (chance, side, depth)
                break
            if 2 * np.count_nonzero(labels == empty) > labels.size:
                break
    if best is None:
        return None
    _, side, depth = best
    grown = extend_location(location, side, depth)
    excess = (grown.shape[0] if side.across else grown.shape[1]) - side_limit
    if excess > 0:
        grown = extend_location(grown, side.opposite, -excess)
    board = rectify(image, grown, square_px)
    return grown, board, read_board(board, grown, model)


def _side_limit(shape: tuple[int, int], grid: int | None) -> int:
    """The most squares a side of a kingdom of ``shape`` may grow to: the side the player
    set, else 5, or 7 for a Mighty Duel kingdom (a side over 5)."""
    return grid or (DUEL_SIZE if max(shape) > STANDARD_SIZE else STANDARD_SIZE)


def _read_strip(
    image: np.ndarray, strip: BoardLocation, model: CellClassifier, square_px: int
) -> np.ndarray:
    """Probabilities over :data:`ALL_CELLS` for each square of a strip of the photo."""
    return model.predict_cell_proba(split_cells(rectify(image, strip, square_px), strip.shape))


def _bare_rows(empty: np.ndarray, side: Side) -> int:
    """How many rows in from one side read as bare table all across (never every row).

    >>> bare = np.array([[True, True], [True, False], [False, False]])
    >>> _bare_rows(bare, Side.TOP), _bare_rows(bare, Side.LEFT), _bare_rows(bare, Side.BOTTOM)
    (1, 0, 0)
    """
    lines = {
        Side.TOP: empty,
        Side.BOTTOM: empty[::-1],
        Side.LEFT: empty.T,
        Side.RIGHT: empty.T[::-1],
    }[side]
    count = 0
    for line in lines[:-1]:
        if not line.all():
            break
        count += 1
    return count


def _within(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether every corner lies inside an image of this shape."""
    height, width = shape[:2]
    return bool(np.all((corners >= 0) & (corners <= [width - 1, height - 1])))


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] += time.perf_counter() - start


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
    >>> corners = np.array([[0, 0], [500, 0], [500, 500], [0, 500]], float)
    >>> square_side_px(BoardLocation(corners, (5, 5)))
    100.0
    """
    quad = np.asarray(location.corners, dtype=np.float64)
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    rows, cols = location.shape
    return float((sides[0] + sides[2]) / (2 * cols) + (sides[1] + sides[3]) / (2 * rows)) / 2


def small_squares_note(side: float) -> str | None:
    """The note for a kingdom whose squares are ``side`` pixels across, if they are too small.

    >>> small_squares_note(100.0) is None
    True
    >>> small_squares_note(25.0)[:36]
    'the squares are only 25 pixels acros'
    """
    if not 0 < side < MIN_SQUARE_PX:
        return None
    return (
        f"the squares are only {side:.0f} pixels across in the photo, so crowns may be "
        "misread: check them, or take the photo closer or at a higher resolution"
    )


def outline_note(found: tuple[int, int], read: tuple[int, int]) -> str:
    """The note for a kingdom whose outline the squares' reading corrected.

    >>> outline_note((4, 5), (5, 5))
    'the grid found, 4×5, grew to 5×5 to take in squares read beyond it: check the outline'
    >>> outline_note((5, 5), (5, 4))
    'the grid found, 5×5, shrank to 5×4, dropping bare table: check the outline'
    >>> outline_note((5, 4), (5, 4))
    'the grid found, 5×4, moved by a row to take in squares read beyond it: check the outline'
    """
    rows, cols = found
    if read[0] * read[1] > rows * cols:
        change = f"grew to {read[0]}×{read[1]} to take in squares read beyond it"
    elif read[0] * read[1] < rows * cols:
        change = f"shrank to {read[0]}×{read[1]}, dropping bare table"
    else:
        change = "moved by a row to take in squares read beyond it"
    return f"the grid found, {rows}×{cols}, {change}: check the outline"


def other_outline_note(found: tuple[int, int], read: tuple[int, int]) -> str:
    """The note for a kingdom read through another of the outlines detection kept.

    >>> other_outline_note((4, 5), (5, 5))
    'the seams were faint: 5×5 squares read more clearly than the 4×5 found: check the outline'
    >>> other_outline_note((5, 5), (5, 5))
    'the seams were faint: the 5×5 grid, moved, reads more clearly: check the outline'
    """
    if found == read:
        grid = f"{read[0]}×{read[1]}"
        return (
            f"the seams were faint: the {grid} grid, moved, reads more clearly: check the outline"
        )
    return (
        f"the seams were faint: {read[0]}×{read[1]} squares read more clearly than the "
        f"{found[0]}×{found[1]} found: check the outline"
    )


def _warnings(location: BoardLocation, prediction: BoardPrediction) -> tuple[str, ...]:
    notes = []
    rows, cols = location.shape
    if rows != cols:
        notes.append(f"the grid found is {rows}×{cols}, not square: check the corners")
    small = small_squares_note(square_side_px(location))
    if small:
        notes.append(small)
    if prediction.doubtful:
        n = len(prediction.doubtful)
        notes.append(
            f"{n} square{'s' if n != 1 else ''} read with low confidence, please check: "
            + doubtful_hint(prediction.kingdom, prediction.second_choices())
        )
    return tuple(notes)


def doubtful_hint(kingdom: Kingdom, second_choices: Mapping[Position, Cell]) -> str:
    """Doubtful squares in words, each with its reading and the likeliest other one.

    Parameters
    ----------
    kingdom : Kingdom
        The kingdom as read.
    second_choices : mapping of Position to Cell
        For each doubtful square, the most probable other reading.

    Returns
    -------
    str

    Examples
    --------
    >>> k = Kingdom.parse("M2 W0 C")
    >>> doubtful_hint(k, {(0, 0): Cell.parse("M1")})
    'row 1 column 1 (read M2, perhaps M1)'
    """
    return ", ".join(
        f"{position_name(pos)} (read {kingdom[pos].token}, perhaps {other.token})"
        for pos, other in sorted(second_choices.items())
    )
