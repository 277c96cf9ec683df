r"""Squares that cannot be read: washed out by glare, hidden, or cut off by the photo's edge.

Such a square is never guessed silently. :func:`unreadable_squares` finds them on a
kingdom's rectified board and in its place in the photo:

- **glare**: more than ``params.glare_share`` of the square's pixels are washed out to
  near white (every channel at least ``params.glare_level``); no terrain is so white,
  though a white table may be, where an empty square shows it;
- **cut off**: more than ``params.cut_share`` of the square lies beyond the photo's border;
- **hidden**: read as empty where the kingdom's shape allows no empty square. A kingdom
  grows domino by domino from its castle, so its empty squares reach its rim; an empty
  read in a hole walled in by tiles is something on the square (a hand, an object, a
  reflection), not bare table.
- **covered**, **no table in view**: read as empty, but unlike the table around the
  kingdom, or with no table in view to compare it with (a photo cropped to the kingdom):
  an empty square is bare table, and only the table confirms it.

:func:`with_unreadable` then adds them to the squares the player is asked to check, and
re-decodes those read as empty without the empty reading: the domino pairing and the
tile set give the best guess, which the player confirms.

>>> from scorer.read.classify import predict_from_probabilities
>>> from scorer.rules.kingdom import ALL_CELLS, Kingdom
>>> read = Kingdom.parse("W0 W0 F0\nL0 . F0\nL0 C .")
>>> proba = np.full((3, 3, len(ALL_CELLS)), 1e-6)
>>> for (r, c), cell in read.cells():
...     proba[r, c, ALL_CELLS.index(cell)] = 1.0
>>> [s.reason for s in walled_in_empty(predict_from_probabilities(proba))]
['row 2 column 2 reads as empty inside the kingdom: something may hide it']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Final

import cv2
import numpy as np

from scorer.detect import BoardLocation, grid_homography
from scorer.read.cells import CROP_SIDE, split_cells
from scorer.read.classify import DOUBT_THRESHOLD, BoardPrediction, doubtful_squares
from scorer.read.decoding import decode
from scorer.read.hidden import Cause, Unreadable
from scorer.read.params import DEFAULT, ReadParams
from scorer.rules.kingdom import EMPTY, Position

Ring = tuple[np.ndarray, np.ndarray]
"""The ring's points around a kingdom that lie in the photo, in grid units, and their Lab
colours (:func:`_table_ring`)."""


def unreadable_squares(
    board: np.ndarray,
    location: BoardLocation,
    prediction: BoardPrediction,
    image: np.ndarray,
    params: ReadParams = DEFAULT,
) -> tuple[Unreadable, ...]:
    """Every square of a kingdom that cannot be read, one cause each, in reading order.

    Parameters
    ----------
    board : numpy.ndarray
        The rectified board the squares were read from (BGR uint8).
    location : BoardLocation
        The kingdom's place in the photo and its grid.
    prediction : BoardPrediction
        What was read on ``board``.
    image : numpy.ndarray
        The photo (BGR uint8), as the board was cut from it.
    params : ReadParams
        ``glare_level``, ``glare_share`` and ``cut_share``.

    Returns
    -------
    tuple of Unreadable
        A square cut off is named so, else one washed out as glare, else an empty read
        walled in by tiles as hidden. A washed-out square read as empty where the
        kingdom's shape allows an empty square is no glare when the table beside the
        kingdom is as white (:func:`white_table`): it is bare white table.
    """
    found: dict[Position, Cause] = {}
    for pos in cut_off_squares(location, image.shape[:2], params):
        found[pos] = Cause.CUT_OFF
    hidden = walled_in_empty(prediction)
    glare = glare_squares(board, location.shape, params)
    inner = {s.position for s in hidden}
    bare = [p for p in glare if prediction.kingdom[p] == EMPTY and p not in inner]
    if bare and white_table(image, location, params):
        glare = [p for p in glare if p not in bare]
    for pos in glare:
        found.setdefault(pos, Cause.GLARE)
    for square in hidden:
        found.setdefault(square.position, square.cause)
    ring = _table_ring(location, image)  # the table around the kingdom, for both checks
    crops = split_cells(board, location.shape)
    empty = _read_empty(prediction)
    for pos in _unlike_ring(crops, location.shape, empty, ring, params):
        found.setdefault(pos, Cause.COVERED)
    for pos in _beyond_comparison(empty, ring, params):
        found.setdefault(pos, Cause.NO_TABLE)
    for pos in _over_the_ring(crops, location.shape, ring, params):
        found.setdefault(pos, Cause.OVER_EDGE)
    return tuple(Unreadable(pos, found[pos]) for pos in sorted(found))


def white_table(image: np.ndarray, location: BoardLocation, params: ReadParams = DEFAULT) -> bool:
    """Whether the table just around a kingdom is washed out to near white, as glare is.

    The photo is sampled on a ring a third of a square outside the grid, every quarter
    of a square; the points inside the photo decide.

    Parameters
    ----------
    image : numpy.ndarray
        The photo, BGR uint8.
    location : BoardLocation
    params : ReadParams
        ``glare_level`` and ``glare_share``.

    Returns
    -------
    bool
        More than ``params.glare_share`` of the ring is washed out; False when none of
        it lies in the photo.

    Examples
    --------
    >>> photo = np.full((300, 300, 3), 250, np.uint8)
    >>> photo[100:200, 100:200] = 90
    >>> kingdom = BoardLocation(np.array([[100, 100], [200, 100], [200, 200], [100, 200]]), (2, 2))
    >>> white_table(photo, kingdom), white_table(255 - photo, kingdom)
    (True, False)
    """
    _, points = _ring(location)
    pixels = _pixels_at(image, points)
    if not len(pixels):
        return False
    return float(np.mean(pixels.min(axis=-1) >= params.glare_level)) > params.glare_share


def unlike_table(
    board: np.ndarray,
    location: BoardLocation,
    prediction: BoardPrediction,
    image: np.ndarray,
    params: ReadParams = DEFAULT,
) -> list[Position]:
    """The squares read as empty that do not look like the table around the kingdom.

    An empty square shows the table. The table's colours are sampled on a ring a third
    of a square outside the grid, leaving out the part of the ring within
    ``params.table_far`` squares of the square (a hand over a corner reaches out over
    the table there); a pixel of the square is the table's when its Lab colour lies
    within ``params.table_distance`` of one of them. A square with more than
    ``params.covered_share`` of its pixels unlike the table is covered by something.

    Parameters
    ----------
    board : numpy.ndarray
        The rectified board (BGR uint8).
    location : BoardLocation
    prediction : BoardPrediction
    image : numpy.ndarray
        The photo the board was cut from.
    params : ReadParams

    Returns
    -------
    list of Position
        In reading order; none where too little of the ring lies in the photo.
    """
    return squares_unlike_table(board, location, _read_empty(prediction), image, params)


def _read_empty(prediction: BoardPrediction) -> list[Position]:
    """The squares read as empty, in reading order."""
    return [pos for pos, cell in prediction.kingdom.cells() if cell == EMPTY]


def squares_unlike_table(
    board: np.ndarray,
    location: BoardLocation,
    squares: Sequence[Position],
    image: np.ndarray,
    params: ReadParams = DEFAULT,
) -> list[Position]:
    """Of ``squares``, those that do not look like the table around the kingdom, measured
    as :func:`unlike_table` measures a square read as empty (the same parameters, with the
    squares to check in place of a reading); in the order of ``squares``."""
    return _against_table(board, location, squares, image, params)[1]


def squares_like_table(
    board: np.ndarray,
    location: BoardLocation,
    squares: Sequence[Position],
    image: np.ndarray,
    params: ReadParams = DEFAULT,
) -> list[Position]:
    """Of ``squares``, those that look like the table around the kingdom: the ones
    :func:`squares_unlike_table` could compare with it and found alike; in the order of
    ``squares``."""
    compared, unlike = _against_table(board, location, squares, image, params)
    return [pos for pos in compared if pos not in unlike]


def _against_table(
    board: np.ndarray,
    location: BoardLocation,
    squares: Sequence[Position],
    image: np.ndarray,
    params: ReadParams,
) -> tuple[list[Position], list[Position]]:
    """Of ``squares``, those with enough of the table in view to be compared with it (not
    :func:`_beyond_comparison`), and of those, the ones unlike it."""
    ring = _table_ring(location, image) if squares else None
    if ring is None:
        return [], []
    unseen = set(_beyond_comparison(squares, ring, params))
    compared = [pos for pos in squares if pos not in unseen]
    crops = split_cells(board, location.shape)
    return compared, _unlike_ring(crops, location.shape, compared, ring, params)


def _unlike_ring(
    crops: Sequence[np.ndarray],
    shape: tuple[int, int],
    squares: Sequence[Position],
    ring: Ring | None,
    params: ReadParams,
) -> list[Position]:
    """:func:`squares_unlike_table` on the board's crops and the table's ring."""
    if ring is None or not squares:
        return []
    grid_points, palette = ring
    out = []
    for r, c in squares:
        far = _table_beside(grid_points, (r, c), params)
        if far is None:
            continue
        crop = crops[r * shape[1] + c]
        gap = _nearest(_square_lab(crop), palette[far])
        if float(np.mean(gap > params.table_distance)) > params.covered_share:
            out.append((r, c))
    return out


def _beyond_comparison(
    squares: Sequence[Position], ring: Ring | None, params: ReadParams
) -> list[Position]:
    """Of the squares read as empty, those with too little table in view to compare them
    with (:func:`_unlike_ring` cannot check them): an empty square is bare table, and only
    the table beside the kingdom confirms it. In a photo cropped to the kingdom a tile
    read as empty would otherwise stand unchecked."""
    if ring is None:
        return list(squares)
    return [pos for pos in squares if _table_beside(ring[0], pos, params) is None]


def _table_beside(
    grid_points: np.ndarray, square: Position, params: ReadParams
) -> np.ndarray | None:
    """Which ring points a square is compared with: those more than ``params.table_far``
    squares from its centre (a hand over the square reaches out over the table beside it);
    None when fewer than :data:`_LEAST_RING` are left to compare it with."""
    r, c = square
    far = np.hypot(grid_points[:, 0] - c - 0.5, grid_points[:, 1] - r - 0.5) > params.table_far
    return far if np.count_nonzero(far) >= _LEAST_RING else None


def over_the_edge(
    board: np.ndarray, location: BoardLocation, image: np.ndarray, params: ReadParams = DEFAULT
) -> list[Position]:
    """The squares of the kingdom's rim that something lying across its edge covers: a
    hand, a sleeve, a box.

    Beside a rim square, a third of a square outside the grid, the ring should show the
    table. Where more than ``params.covered_share`` of the ring points within a square of
    its centre are unlike the table (every one of their Lab colours farther than
    ``params.table_distance`` from the ring's colours more than ``params.table_far``
    squares away), something lies over the edge there; it lies over the square too when
    more than ``params.over_edge_share`` of the square's pixels have its colours (within
    ``params.table_distance`` of those ring points). A brighter patch of table beside the
    kingdom is unlike the far table, but not like the square.

    Parameters
    ----------
    board : numpy.ndarray
        The rectified board (BGR uint8).
    location : BoardLocation
    image : numpy.ndarray
        The photo (BGR uint8).
    params : ReadParams

    Returns
    -------
    list of Position
        In reading order; none where too little of the ring lies in the photo.
    """
    crops = split_cells(board, location.shape)
    return _over_the_ring(crops, location.shape, _table_ring(location, image), params)


def _over_the_ring(
    crops: Sequence[np.ndarray], shape: tuple[int, int], ring: Ring | None, params: ReadParams
) -> list[Position]:
    """:func:`over_the_edge` on the board's crops and the table's ring."""
    if ring is None:
        return []
    grid_points, colours = ring
    rows, cols = shape
    out = []
    for r in range(rows):
        for c in range(cols):
            if 0 < r < rows - 1 and 0 < c < cols - 1:
                continue
            d = np.hypot(grid_points[:, 0] - c - 0.5, grid_points[:, 1] - r - 0.5)
            near, far = d <= 1.0, d > params.table_far
            if np.count_nonzero(near) < _LEAST_NEAR or np.count_nonzero(far) < _LEAST_RING:
                continue
            unlike = colours[near][_nearest(colours[near], colours[far]) > params.table_distance]
            if len(unlike) <= params.covered_share * np.count_nonzero(near):
                continue
            square = _square_lab(crops[r * cols + c])
            if np.mean(_nearest(square, unlike) <= params.table_distance) > params.over_edge_share:
                out.append((r, c))
    return out


def _table_ring(location: BoardLocation, image: np.ndarray) -> Ring | None:
    """The ring's points that lie in the photo (:func:`_ring`), in grid units, and their Lab
    colours; None when fewer than :data:`_LEAST_RING` do."""
    grid_points, points = _ring(location)
    inside = _inside(points, image.shape)
    if np.count_nonzero(inside) < _LEAST_RING:
        return None
    colours = _lab(_pixels_at(image, points).reshape(-1, 1, 3)).reshape(-1, 3)
    return grid_points[inside], colours


def _square_lab(crop: np.ndarray) -> np.ndarray:
    """The Lab colours of a square's crop shrunk to 16 × 16 pixels (``256 × 3``)."""
    return _lab(cv2.resize(crop, (16, 16), interpolation=cv2.INTER_AREA)).reshape(-1, 3)


def _nearest(colours: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """Each colour's Lab distance to the nearest colour of the palette."""
    return np.asarray(
        np.sqrt(((colours[:, None, :] - palette[None]) ** 2).sum(axis=-1)).min(axis=1)
    )


_LEAST_RING: Final = 8
"""Fewest ring points in the photo from which the table's colours are taken as known."""

_LEAST_NEAR: Final = 3
"""Fewest ring points beside a rim square from which what lies over its edge is judged."""


def _ring(location: BoardLocation) -> tuple[np.ndarray, np.ndarray]:
    """Points a third of a square outside the grid, every quarter of a square: in grid
    units (x along the columns) and in the photo."""
    rows, cols = location.shape
    out = 1.0 / 3.0
    along_x = np.arange(-out, cols + out + 1e-9, 0.25)
    along_y = np.arange(-out, rows + out + 1e-9, 0.25)
    ring = np.concatenate(
        [
            np.column_stack([along_x, np.full_like(along_x, -out)]),
            np.column_stack([along_x, np.full_like(along_x, rows + out)]),
            np.column_stack([np.full_like(along_y, -out), along_y]),
            np.column_stack([np.full_like(along_y, cols + out), along_y]),
        ]
    )
    h = grid_homography(np.asarray(location.corners, np.float64), location.shape)
    return ring, cv2.perspectiveTransform(ring.reshape(-1, 1, 2), h).reshape(-1, 2)


def _inside(points: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Which points (x, y) round to a pixel of an image of this shape."""
    xy = np.rint(points)
    return np.asarray(
        (xy[:, 0] >= 0) & (xy[:, 1] >= 0) & (xy[:, 0] < shape[1]) & (xy[:, 1] < shape[0])
    )


def _pixels_at(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The image's pixels at the points that lie in it (``n × 3``)."""
    xy = np.rint(points[_inside(points, image.shape)]).astype(np.int64)
    return np.asarray(image[xy[:, 1], xy[:, 0]])


def _lab(bgr: np.ndarray) -> np.ndarray:
    """OpenCV's 8-bit Lab of a BGR uint8 image, as float."""
    return np.asarray(cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2LAB), np.float64)


def glare_squares(
    board: np.ndarray, shape: tuple[int, int], params: ReadParams = DEFAULT
) -> list[Position]:
    """The squares washed out by glare: more than ``params.glare_share`` of their pixels
    have every channel at ``params.glare_level`` or above.

    Parameters
    ----------
    board : numpy.ndarray
        A rectified board, BGR uint8.
    shape : tuple of int
        ``(rows, cols)`` of its grid.
    params : ReadParams

    Returns
    -------
    list of Position

    Examples
    --------
    >>> board = np.full((200, 200, 3), 90, np.uint8)
    >>> board[110:190, 10:90] = 250  # a white spot over the square at row 1, column 0
    >>> glare_squares(board, (2, 2))
    [(1, 0)]
    """
    cols = shape[1]
    out = []
    for i, crop in enumerate(split_cells(board, shape)):
        small = cv2.resize(crop, (CROP_SIDE, CROP_SIDE), interpolation=cv2.INTER_AREA)
        washed = float(np.mean(small.min(axis=-1) >= params.glare_level))
        if washed > params.glare_share:
            out.append((i // cols, i % cols))
    return out


def cut_off_squares(
    location: BoardLocation, image_size: tuple[int, int], params: ReadParams = DEFAULT
) -> list[Position]:
    """The squares of which more than ``params.cut_share`` lies beyond the photo's border.

    Each square is sampled at 5 × 5 points, carried into the photo through the grid's
    homography.

    Parameters
    ----------
    location : BoardLocation
    image_size : tuple of int
        ``(height, width)`` of the photo.
    params : ReadParams

    Returns
    -------
    list of Position

    Examples
    --------
    A 2 × 2 grid of 100-pixel squares whose left column sticks 60 pixels out of the photo:

    >>> quad = np.array([[-60, 0], [140, 0], [140, 200], [-60, 200]], float)
    >>> cut_off_squares(BoardLocation(quad, (2, 2)), (300, 300))
    [(0, 0), (1, 0)]
    """
    rows, cols = location.shape
    steps = (np.arange(5) + 0.5) / 5
    local = np.stack(np.meshgrid(steps, steps), axis=-1).reshape(-1, 2)
    corners = [np.array([c, r], np.float64) for r in range(rows) for c in range(cols)]
    points = np.concatenate([local + corner for corner in corners])
    h = grid_homography(np.asarray(location.corners, np.float64), location.shape)
    photo = cv2.perspectiveTransform(points.reshape(-1, 1, 2), h).reshape(rows * cols, -1, 2)
    height, width = image_size
    outside = (
        (photo[..., 0] < 0)
        | (photo[..., 1] < 0)
        | (photo[..., 0] > width - 1)
        | (photo[..., 1] > height - 1)
    )
    share = outside.mean(axis=1)
    return [divmod(int(i), cols) for i in np.flatnonzero(share > params.cut_share)]


def walled_in_empty(prediction: BoardPrediction) -> list[Unreadable]:
    """The squares read as empty in a hole walled in by tiles, away from the kingdom's rim.

    The squares read as empty are grouped with their side neighbours read as empty; a
    group that touches no edge of the grid is a hole no domino-by-domino kingdom leaves
    open as bare table.

    Parameters
    ----------
    prediction : BoardPrediction

    Returns
    -------
    list of Unreadable
        Each square of such a hole, as :attr:`Cause.HIDDEN`.
    """
    kingdom = prediction.kingdom
    rows, cols = kingdom.height, kingdom.width
    empty = np.zeros((rows, cols), np.uint8)
    for pos, cell in kingdom.cells():
        empty[pos] = cell == EMPTY
    count, groups = cv2.connectedComponents(empty, connectivity=4)
    rim = set(groups[0]) | set(groups[-1]) | set(groups[:, 0]) | set(groups[:, -1])
    holes = [g for g in range(1, count) if g not in rim]
    return [
        Unreadable((int(r), int(c)), Cause.HIDDEN)
        for r, c in zip(*np.nonzero(np.isin(groups, holes)), strict=True)
    ]


def with_unreadable(
    prediction: BoardPrediction,
    unreadable: Sequence[Unreadable],
    *,
    doubt_below: float = DOUBT_THRESHOLD,
) -> BoardPrediction:
    """The reading with the unreadable squares among the doubtful ones, and those read as
    empty given their best other reading.

    An unreadable square read as empty (but one only unlike the table,
    :attr:`Cause.COVERED`, or with no table in view, :attr:`Cause.NO_TABLE`) is
    re-decoded without the empty reading: the classifier's other readings, weighed by the
    domino pairing and the tile set (:func:`scorer.read.decoding.decode`), give the best
    guess. Nothing changes when no square is unreadable.

    Parameters
    ----------
    prediction : BoardPrediction
    unreadable : sequence of Unreadable
    doubt_below : float
        Confidence under which a re-decoded square is doubtful.

    Returns
    -------
    BoardPrediction
        With :attr:`~scorer.read.classify.BoardPrediction.unreadable` set.
    """
    doubted = _empties_in_doubt(prediction, unreadable)
    if not unreadable and not doubted:
        return prediction
    positions = frozenset(s.position for s in unreadable) | doubted
    # A covered square keeps its empty reading: the table around may just look unlike
    # the bare table between the tiles (a shadow, a pattern); so does one with no table
    # in view to compare: nothing shows it wrong.
    guessed = {s.position for s in unreadable if s.cause not in _KEEPS_EMPTY}
    read_empty = [pos for pos in sorted(guessed) if prediction.kingdom[pos] == EMPTY]
    if not read_empty:
        return replace(
            prediction, doubtful=prediction.doubtful | positions, unreadable=tuple(unreadable)
        )
    proba = _without_empty(prediction.probabilities, prediction.classes.index(EMPTY), read_empty)
    kingdom, confidence = decode(proba, prediction.classes, prediction.kingdom.shape)
    doubtful = doubtful_squares(kingdom, confidence, proba, doubt_below=doubt_below)
    doubtful |= prediction.doubtful | positions
    return replace(
        prediction,
        kingdom=kingdom,
        confidence=confidence,
        probabilities=proba,
        doubtful=doubtful,
        unreadable=tuple(unreadable),
    )


_KEEPS_EMPTY: Final = (Cause.COVERED, Cause.NO_TABLE)
"""The causes after which a square keeps its empty reading: nothing shows it wrong."""

_WRONG_EMPTY: Final = (Cause.HIDDEN, Cause.COVERED)
"""The causes that show an empty reading wrong: walled in by tiles, or unlike the table."""


def _empties_in_doubt(
    prediction: BoardPrediction, unreadable: Sequence[Unreadable]
) -> frozenset[Position]:
    """Every square read as empty, once the reading shows that an empty read may be wrong.

    A square read as empty that is walled in by tiles, or that does not look like the
    table, shows that in this photo's light the classifier takes some tiles for bare
    table; so does an odd number of terrain squares, which whole dominoes never leave (a
    domino is placed whole or discarded). The empty readings, even at the kingdom's rim
    where an empty square is possible, are then no surer, and the player checks them
    too. Nothing is added where only glare, a cut or an object over the edge made a
    square unreadable.
    """
    odd = len(prediction.kingdom.land()) % 2 == 1
    if not odd and not any(s.cause in _WRONG_EMPTY for s in unreadable):
        return frozenset()
    return frozenset(_read_empty(prediction))


def _without_empty(
    probabilities: np.ndarray, empty: int, positions: Iterable[Position]
) -> np.ndarray:
    """The probabilities with the empty reading taken from ``positions``, normalised again."""
    proba = np.array(probabilities, np.float64)
    for pos in positions:
        proba[pos][empty] = 0.0
        total = proba[pos].sum()
        proba[pos] = proba[pos] / total if total > 0 else 1.0 / (len(proba[pos]) - 1)
        proba[pos][empty] = 0.0
    return proba
