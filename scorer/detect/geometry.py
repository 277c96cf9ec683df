"""Where a kingdom lies: its corners, grid and sides, and the geometry of quadrilaterals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import cv2
import numpy as np

from scorer.i18n import _
from scorer.rules.errors import MarkedCornersError
from scorer.rules.kingdom import Position


@dataclass(frozen=True, eq=False)
class BoardLocation:
    """Where one kingdom lies in a photo.

    Attributes
    ----------
    corners : ndarray of shape (4, 2)
        Pixel coordinates in the original image, clockwise from the top-left
        corner (the corner of row 0, column 0).
    shape : tuple of int
        ``(rows, columns)`` of the kingdom's grid.
    empty : frozenset of (row, column)
        Squares that look like bare table rather than tile.
    score : float
        Strength of the seam grid that was found (higher is clearer); 0 when
        the corners came from the user and no grid was measured.
    tiles : frozenset of (row, column)
        Squares that are clearly tile, unlike the table all over.
    trimmed : frozenset of Side
        Sides where a row within the seams' outline was left out, its colours
        those of the table (see :func:`scorer.detect.extent.fit_extent`).
    alternatives : tuple of BoardLocation
        Other outlines of the same tiles whose seams were nearly as clear
        (:func:`scorer.detect.outlines.rivals`); reading the squares decides between them
        (:func:`scorer.read.verify.verified_outline`).
    """

    corners: np.ndarray
    shape: tuple[int, int]
    empty: frozenset[Position] = field(default_factory=frozenset)
    score: float = 0.0
    tiles: frozenset[Position] = field(default_factory=frozenset)
    trimmed: frozenset[Side] = field(default_factory=frozenset)
    alternatives: tuple[BoardLocation, ...] = ()


class Side(StrEnum):
    """A side of a kingdom's grid: row 0 is the top, column 0 the left."""

    TOP = "top"
    BOTTOM = "bottom"
    LEFT = "left"
    RIGHT = "right"

    @property
    def opposite(self) -> Side:
        """The side across the grid."""
        return {
            Side.TOP: Side.BOTTOM,
            Side.BOTTOM: Side.TOP,
            Side.LEFT: Side.RIGHT,
            Side.RIGHT: Side.LEFT,
        }[self]

    @property
    def across(self) -> bool:
        """Whether this side's rows run across the grid (top and bottom)."""
        return self in (Side.TOP, Side.BOTTOM)


def extend_location(location: BoardLocation, side: Side, by: int = 1) -> BoardLocation:
    """The kingdom grown by ``by`` rows (or columns) of squares beyond one side.

    The new squares follow the grid's perspective; a negative ``by`` takes rows
    off that side instead. Squares in ``empty`` and ``tiles`` keep their place
    (renumbered when the grid changes at the top or left); new squares are in
    neither. A side grown is no longer one of the ``trimmed``.

    Parameters
    ----------
    location : BoardLocation
    side : Side
    by : int
        Rows to add (negative: to take off).

    Returns
    -------
    BoardLocation

    Examples
    --------
    >>> corners = np.array([[0, 0], [400, 0], [400, 500], [0, 500]], float)
    >>> seen = BoardLocation(corners, (5, 4), tiles=frozenset({(0, 0)}))
    >>> grown = extend_location(seen, Side.LEFT)
    >>> grown.shape, grown.corners[0].tolist(), sorted(grown.tiles)
    ((5, 5), [-100.0, 0.0], [(0, 1)])
    >>> extend_location(seen, Side.TOP, -1).tiles
    frozenset()
    """
    rows, cols = location.shape
    r0, r1, c0, c1 = move(0, rows, 0, cols, side, by)
    if r1 - r0 < 1 or c1 - c0 < 1:
        raise ValueError(f"a {rows}×{cols} grid cannot lose {-by} rows at the {side}")

    def shifted(cells: frozenset[Position]) -> frozenset[Position]:
        return frozenset((r - r0, c - c0) for r, c in cells if r0 <= r < r1 and c0 <= c < c1)

    return BoardLocation(
        _grid_quad(location, (r0, r1, c0, c1)),
        (r1 - r0, c1 - c0),
        shifted(location.empty),
        location.score,
        shifted(location.tiles),
        location.trimmed - {side} if by > 0 else location.trimmed,
    )


def beyond_side(location: BoardLocation, depth: int = 1) -> dict[Side, BoardLocation]:
    """The row (or column) of squares ``depth`` rows outside each side of a kingdom.

    Parameters
    ----------
    location : BoardLocation
    depth : int
        1 for the row just outside, 2 for the one after it, and so on.

    Returns
    -------
    dict of Side to BoardLocation
        A one-square-deep location along each side, in the grid's perspective.

    Examples
    --------
    >>> corners = np.array([[0, 0], [400, 0], [400, 500], [0, 500]], float)
    >>> strips = beyond_side(BoardLocation(corners, (5, 4)))
    >>> strips[Side.TOP].shape, strips[Side.TOP].corners[0].tolist()
    ((1, 4), [0.0, -100.0])
    >>> strips[Side.RIGHT].shape, strips[Side.RIGHT].corners[1].tolist()
    ((5, 1), [500.0, 0.0])
    >>> beyond_side(BoardLocation(corners, (5, 4)), 2)[Side.BOTTOM].corners[0].tolist()
    [0.0, 600.0]
    """
    rows, cols = location.shape
    d = depth
    extents = {
        Side.TOP: (-d, 1 - d, 0, cols),
        Side.BOTTOM: (rows + d - 1, rows + d, 0, cols),
        Side.LEFT: (0, rows, -d, 1 - d),
        Side.RIGHT: (0, rows, cols + d - 1, cols + d),
    }
    return {
        side: BoardLocation(_grid_quad(location, ext), (ext[1] - ext[0], ext[3] - ext[2]))
        for side, ext in extents.items()
    }


def kingdom_grids(
    location: BoardLocation, sides: Sequence[int], grow: int = 0
) -> tuple[BoardLocation, ...]:
    """Every square grid of one of ``sides`` squares a side laid over an outline's grid,
    covering as much of it as the grid's size allows.

    An outline that also takes in something beside the kingdom (a hand, a shadow, a row
    of table read as tiles) has a grid no kingdom can have, such as 6×5; the kingdom is
    one of the square grids inside it. An outline that something cut short (a shadow
    over the last row, seams lost in a patterned table) is a row short, such as 5×4; the
    kingdom is one of the square grids over it that reach up to ``grow`` rows (or columns)
    beyond it, in its perspective. Each keeps the outline's perspective, seam score and
    what detection saw of its squares.

    Parameters
    ----------
    location : BoardLocation
    sides : sequence of int
        Grid sides to lay (the sides a kingdom may have).
    grow : int
        Most rows (and most columns) a grid may reach beyond the outline; 0 for the
        grids inside it only.

    Returns
    -------
    tuple of BoardLocation
        Row by row, then column by column; none where the outline is itself such a grid.

    Examples
    --------
    >>> corners = np.array([[0, 0], [500, 0], [500, 600], [0, 600]], float)
    >>> inside = kingdom_grids(BoardLocation(corners, (6, 5), tiles=frozenset({(5, 0)})), [5, 7])
    >>> [(g.shape, g.corners[0].tolist(), sorted(g.tiles)) for g in inside]
    [((5, 5), [0.0, 0.0], []), ((5, 5), [0.0, 100.0], [(4, 0)])]
    >>> kingdom_grids(BoardLocation(corners, (7, 7)), [5, 7])
    ()
    >>> wide = np.array([[0, 0], [600, 0], [600, 400], [0, 400]], float)
    >>> [g.corners[0].tolist() for g in kingdom_grids(BoardLocation(wide, (4, 6)), [5, 7], grow=1)]
    [[0.0, -100.0], [100.0, -100.0], [0.0, 0.0], [100.0, 0.0]]
    """
    rows, cols = location.shape
    if square_of(location.shape, sides):
        return ()
    found = []
    for side in sides:
        if side - rows > grow or side - cols > grow:
            continue
        for r in _offsets(rows, side):
            for c in _offsets(cols, side):
                extent = (r, r + side, c, c + side)
                found.append(
                    BoardLocation(
                        _grid_quad(location, extent),
                        (side, side),
                        empty=_within(location.empty, extent),
                        score=location.score,
                        tiles=_within(location.tiles, extent),
                    )
                )
    return tuple(found)


def square_of(shape: tuple[int, int], sides: Sequence[int]) -> bool:
    """Whether a grid is square with one of ``sides`` squares a side (a whole kingdom's grid).

    >>> square_of((5, 5), (5, 7)), square_of((5, 4), (5, 7)), square_of((6, 6), (5, 7))
    (True, False, False)
    """
    return shape[0] == shape[1] and shape[0] in sides


def _offsets(count: int, side: int) -> range:
    """First rows of a grid of ``side`` rows laid over ``count`` rows, covering as many of
    them as it can: inside them where it is smaller, reaching beyond where it is larger."""
    return range(0, count - side + 1) if side <= count else range(count - side, 1)


def _within(squares: frozenset[Position], extent: tuple[int, int, int, int]) -> frozenset[Position]:
    """The squares inside the rows ``r0..r1`` and columns ``c0..c1``, counted from ``(r0, c0)``."""
    r0, r1, c0, c1 = extent
    return frozenset((r - r0, c - c0) for r, c in squares if r0 <= r < r1 and c0 <= c < c1)


def same_squares(a: BoardLocation, b: BoardLocation) -> bool:
    """Whether two outlines have one grid shape and corners within half a square.

    >>> one = BoardLocation(np.array([[0, 0], [500, 0], [500, 500], [0, 500]], float), (5, 5))
    >>> near = BoardLocation(one.corners + 30, (5, 5))  # 42 px from a 100 px square
    >>> far = BoardLocation(one.corners + 40, (5, 5))  # 57 px
    >>> same_squares(one, near), same_squares(one, far)
    (True, False)
    """
    if a.shape != b.shape:
        return False
    corners = np.asarray(b.corners, dtype=np.float64)
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    square = float(np.mean(sides[[0, 2]]) / b.shape[1] + np.mean(sides[[1, 3]]) / b.shape[0]) / 2
    shift = np.linalg.norm(np.asarray(a.corners, dtype=np.float64) - corners, axis=1).max()
    return bool(shift < square / 2)


def grid_corners(shape: tuple[int, int]) -> np.ndarray:
    """A grid's four corners in grid units (x along the columns, y along the rows),
    clockwise from the corner of row 0, column 0, as ``float32`` for OpenCV.

    >>> grid_corners((4, 2)).tolist()
    [[0.0, 0.0], [2.0, 0.0], [2.0, 4.0], [0.0, 4.0]]
    """
    rows, cols = shape
    return np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32)


def grid_homography(corners: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The homography from grid units (x along the columns, y along the rows) to the photo.

    Parameters
    ----------
    corners : ndarray of shape (4, 2)
        The grid's corners in the photo, clockwise from the corner of row 0, column 0.
    shape : tuple of int
        ``(rows, columns)`` of the grid.

    Returns
    -------
    ndarray of shape (3, 3)

    Examples
    --------
    >>> quad = np.array([[10, 20], [60, 20], [60, 120], [10, 120]], float)
    >>> h = grid_homography(quad, (4, 2))  # 4 rows of 2 squares, 25 px each
    >>> cv2.perspectiveTransform(np.array([[[1.0, 2.0]]]), h).round(6).tolist()
    [[[35.0, 70.0]]]
    """
    grid = grid_corners(shape)
    to_photo = cv2.getPerspectiveTransform(grid, np.asarray(corners, np.float32).reshape(4, 2))
    return np.asarray(to_photo, np.float64)


def order_corners(points: np.ndarray) -> np.ndarray:
    """Order four corners clockwise, starting at the top-left.

    The first side (corner 0 to corner 1) is the side whose midpoint is
    highest in the image, so row 0 of the grid is the side nearest the top.

    Parameters
    ----------
    points : ndarray of shape (4, 2)
        Corners of a convex quadrilateral in any order.

    Returns
    -------
    ndarray of shape (4, 2)

    Examples
    --------
    >>> order_corners(np.array([[10, 10], [0, 10], [0, 0], [10, 0]], float)).tolist()
    [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y points down)
    mid_y = [(pts[i, 1] + pts[(i + 1) % 4, 1]) / 2 for i in range(4)]
    top = int(np.argmin(mid_y))
    return np.roll(pts, -top, axis=0)


def parse_corners(text: str) -> np.ndarray:
    """Parse ``x1,y1,x2,y2,x3,y3,x4,y4`` into a (4, 2) array.

    Examples
    --------
    >>> parse_corners("0,0, 10,0, 10,10, 0,10").shape
    (4, 2)
    """
    try:
        values = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"corners must be eight numbers x1,y1,...,x4,y4, not {text!r}") from None
    if len(values) != 8:
        raise ValueError(f"corners must be eight numbers x1,y1,...,x4,y4, got {len(values)}")
    return np.array(values, dtype=np.float64).reshape(4, 2)


def marked_quad(
    corners: object, image_shape: tuple[int, ...], squares: int, margin: float, min_square: float
) -> np.ndarray:
    """The corners a player marked, checked against the photo and ordered (:func:`order_corners`).

    Parameters
    ----------
    corners : array-like of shape (4, 2)
        The marked corners, in the photo's pixels, in any order.
    image_shape : tuple of int
        The photo's ``(height, width, …)``.
    squares : int
        The fewest squares along a side of the kingdom marked (its grid, when known).
    margin : float
        Share of the photo's longer side by which a corner may lie outside it.
    min_square : float
        Photo pixels a square needs at least, along the marked area's shortest side.

    Raises
    ------
    MarkedCornersError
        A coordinate is not a finite number, a corner lies outside the photo by more than
        the margin, or the area is too small to hold ``squares`` squares a side.

    Examples
    --------
    >>> marked_quad([[0, 0], [100, 0], [100, 100], [0, 100]], (200, 300, 3), 5, 0.05, 8).shape
    (4, 2)
    >>> marked_quad([[0, 0], [5000, 0], [5000, 5000], [0, 5000]], (1200, 675, 3), 5, 0.05, 8)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MarkedCornersError: the corners marked lie outside the photo: \
(5000, 0) is beyond its 675×1200 px
    """
    try:
        points = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    except (TypeError, ValueError):
        raise MarkedCornersError(_("mark four corners, each as two numbers x, y")) from None
    if not np.isfinite(points).all():
        raise MarkedCornersError(_("the corners marked must be finite numbers, not inf or nan"))
    height, width = int(image_shape[0]), int(image_shape[1])
    slack = margin * max(height, width)
    for x, y in points:
        if not (-slack <= x <= width + slack and -slack <= y <= height + slack):
            raise MarkedCornersError(
                _(
                    "the corners marked lie outside the photo: {point} is beyond its "
                    "{width}×{height} px",
                    point="(" + format(x, ".6g") + ", " + format(y, ".6g") + ")",
                    width=width,
                    height=height,
                )
            )
    quad = order_corners(points)
    shortest = float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).min())
    if shortest < squares * min_square:
        raise MarkedCornersError(
            _(
                "the corners marked are only {apart} px apart: too small to hold {squares} "
                "squares a side (at least {least} px)",
                apart=format(shortest, ".0f"),
                squares=squares,
                least=format(squares * min_square, ".0f"),
            )
        )
    return quad


def check_corners(quad: np.ndarray, min_side: int) -> None:
    """Refuse marked corners that do not outline a four-sided area (in working pixels)."""
    contour = quad.reshape(-1, 1, 2).astype(np.float32)
    if not cv2.isContourConvex(contour) or cv2.contourArea(contour) < min_side**2:
        raise MarkedCornersError(
            _(
                "the four corners marked do not outline a kingdom: mark four distinct corners "
                "of the kingdom, going round it"
            )
        )


def move(r0: int, r1: int, c0: int, c1: int, side: Side, by: int) -> tuple[int, int, int, int]:
    """The extent ``r0, r1, c0, c1`` grown by ``by`` rows (negative: shrunk) at ``side``."""
    if side == Side.TOP:
        return r0 - by, r1, c0, c1
    if side == Side.BOTTOM:
        return r0, r1 + by, c0, c1
    if side == Side.LEFT:
        return r0, r1, c0 - by, c1
    return r0, r1, c0, c1 + by


def intersect(
    l1: tuple[np.ndarray, np.ndarray],
    l2: tuple[np.ndarray, np.ndarray],
) -> np.ndarray | None:
    """Where two lines (point, direction) cross; None when they are parallel."""
    (p, r), (q, s) = l1, l2
    cross = r[0] * s[1] - r[1] * s[0]
    if abs(cross) < 1e-6:
        return None
    t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / cross
    return np.asarray(p + t * r, dtype=np.float64)


def quad_from_lines(lines: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """Corners where four side lines, in order round the outline, meet; None unless convex."""
    corners = []
    for j in range(4):
        p = intersect(lines[j - 1], lines[j])
        if p is None:
            return None
        corners.append(p)
    quad = np.array(corners)
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


def _grid_quad(location: BoardLocation, extent: tuple[int, int, int, int]) -> np.ndarray:
    """Photo corners of the grid rows ``r0..r1`` and columns ``c0..c1`` of a location."""
    to_photo = grid_homography(location.corners, location.shape)
    r0, r1, c0, c1 = extent
    points = np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1]], np.float32).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(points, to_photo), dtype=np.float64).reshape(4, 2)
