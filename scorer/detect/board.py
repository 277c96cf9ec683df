"""Find kingdoms in a photo and rectify each to a canonical image of equal squares.

Detection works on a downscaled copy of the photo:

1. a colour model of the table is learnt from the photo's border, and every
   pixel far from it is taken as tile;
2. each large connected area of tiles becomes a quadrilateral: the four
   longest sides of its simplified outline, intersected (so a missing corner
   square does not move the corners);
3. the quadrilateral is warped to a square and the grid shape (rows, columns)
   is read from the periodic seams between the squares; where no outline of an
   area shows a clear grid (shadow breaks it into pieces), grids are also laid
   on the lattice of the seams and edges inside it.

:func:`rectify` then crops each kingdom from the full-resolution photo, so no
detail is lost. Rows run from the side nearest the top of the photo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

import cv2
import numpy as np

from scorer.rules.errors import BoardNotFoundError, GridNotConsistentError
from scorer.rules.kingdom import DUEL_SIZE, MAX_SIZE, STANDARD_SIZE, Position

SQUARE_PX: Final = 100
"""Default side of one square in a rectified board, in pixels."""

MIN_SIDE: Final = 3
"""The fewest squares along a side of a kingdom that detection will report."""

_WORK_SIDE: Final = 800
"""Longest side of the downscaled copy used for detection."""

_MIN_WORK_SIDE: Final = 16
"""Working pixels below which a picture's side, or a marked area's side, holds no kingdom."""

_GRID_CANVAS: Final = 320
"""Side of the square canvas the grid shape is measured on."""

_SHADES: Final = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1)
"""Brightness factors of the table colours taken as table too: shadow and lighter light."""

_GLARES: Final = (0.15, 0.3, 0.45)
"""Shares of white mixed into the table colours taken as table too: glare."""

_GLARE_LIGHT: Final = (50.0, 100.0, 150.0)
"""White light added to each channel of the table colours, taken as table too: a glare spot.

Mixing in white (:data:`_GLARES`) dims the table's own colour; a spot of
reflected light adds to it, and a green cloth under it turns a pale yellow-green
that no mixture reaches."""

_TILE_DISTANCE: Final = 18.0
"""Lab distance (lightness counting half) from the table colours beyond which a pixel is tile."""

_MIN_SEAM_SCORE: Final = 1.4
"""Seam strength (peak over typical gradient) below which no grid is seen."""

_FAINT_SEAM_SCORE: Final = 1.05
"""Seam strength along the fainter axis that still counts when the other axis is clear."""

_ONE_AXIS_CLEAR: Final = 2.0
"""Seam strength along one axis that lets a fainter grid along the other count as a grid."""

_FULL_SHARE: Final = 0.75
"""Share of a faint axis's seam strength that a full kingdom's count needs to be preferred.

On development scenes (seeds 20000-20599, 40000-40599, 11000-11599,
50000-50599; 3,034 kingdoms detected), shares from 0.7 to 0.8 each gave the
same 3 kingdoms their right grid and no other a wrong one; 0.6 broke one
kingdom of 5×4 (see :func:`_prefer_full`)."""

_MIN_TYPICAL_GRADIENT: Final = 1.0
"""Floor on the typical grey-level gradient a seam is compared with (board squares show 5-15)."""

_CLEAR_SEAMS: Final = 3.0
"""Seam strength above which a grid is clear: clearer seams do not make a better outline."""

_TRIM_SHARE: Final = 0.5
"""Tile share under which each extra line of a 7×5 grid is left out of a 5×5 kingdom."""

_NEAR_CLEAREST: Final = 0.55
"""Share of the clearest outline's seam strength an outline needs to be chosen."""

_NEAR_BEST: Final = 0.7
"""Share of the chosen outline's seam strength another outline of its area needs to be kept
as an alternative (:attr:`BoardLocation.alternatives`).

On development scenes (seeds 20000-20599, 40000-40599, 11000-11599 and
50000-50599, read by classifiers that never saw their kingdoms), 0.85 kept
alternatives for 22 of 1,200 scenes and let the reading mend 1 kingdom; 0.7, for
any seam strength, kept them for 465 of 2,400 scenes and mended 5 more than it
broke (see :data:`_MAX_ALTERNATIVES` and :data:`scorer.pipeline.CLEARER_BY`)."""

_MAX_ALTERNATIVES: Final = 4
"""Most alternative outlines kept for one kingdom, clearest seams first: each costs one more
reading. On the development scenes of :data:`_NEAR_BEST`, the 510 kingdoms with
alternatives gave 3, 4, 4, 5 and 5 more kingdoms right than the first outline alone with
at most 1, 2, 3, 4 and 6 read (the squares read right at their place: +36, +41, +41, +44
and +44)."""

_SAME_OUTLINE: Final = 0.2
"""Corner distance, in squares, under which two outlines of one grid shape are the same."""

_COVER_POWER: Final = 3
"""Weight of tile coverage against seam strength when an outline is chosen."""

_SPARSE_DENSITY: Final = 0.7
"""Tile density, against the densest outline's, under which an outline holds too much table."""

_DENSITY_POWER: Final = 2
"""Weight of a sparse outline's tile density when an outline is chosen."""

_MIN_AREA_SHARE: Final = 0.015
"""Share of the work image an area of tiles needs to be looked at as a kingdom."""

_JOIN_SHARE: Final = 0.8
"""Area share under which a part inside a larger part is a separate place of it."""

_PLACE_SHARE: Final = 0.4
"""Size, as a share of the largest, of a group of outlines inside another that makes a
separate place (see :func:`_places`)."""

_STEP_REACH: Final = 2
"""Pixels either side over which a side's edge must be a step in colour, not a thin line."""

_STEP_ONLY_REACH: Final = 0.02
"""A side's search reaching further than this share of its length (the first, wide
search) counts only steps in colour as edges; the final, narrow one counts any edge."""

_WHOLE_TILE: Final = 0.9
"""Cell tileness above which a lone square beyond a side counts as wholly tile.

At 0.97, a pale grassland square alone in an edge column, its noisy colour
near the table's in places, was left out (0.94); at 0.9, 600 development
scenes (seeds 20000-20599) found 2 more kingdoms whole and none worse."""

_IN_LINE_TILE: Final = 0.7
"""Tile share above which a square of a sparse edge row is taken as tile."""

_IN_LINE_TABLE: Final = 0.15
"""Tile share under which a square of a sparse edge row is taken as bare table."""

_IN_LINE_SHARP: Final = 0.4
"""Share of the next grid line's edge strength that a sparse edge row's tile edges need."""

_TEXTURE_RATIO: Final = 0.8
"""Edge strength a square further out, against a row's outer edge, that shows table texture."""

_DARK_ROW_TILE: Final = 0.8
"""Cell tileness (shadow counted as tile) above which a square of a dark edge row is tile."""

_DARK_ROW_SHARE: Final = 0.75
"""Share of a dark edge row's squares that must be tile (:func:`_dark_row`)."""

_DARK_ROW_RATIO: Final = 1.3
"""Edge strength of a dark edge row's outer line, against the seam one square inside,
above which it is a row of the kingdom and not a strip of shadow.

Dark forest rows in a large shadow on development scenes measured 1.5 and 3.8 and
were dropped before (seeds 20163 and 20463, board 11); strips of shadow or glare
taken for a row measure about 0.5. With it, seeds 20000-20599 found 740 of 747
kingdoms (was 738) and 11000-11599 the same 777 of 783."""

_DARK_ROW_BEYOND: Final = 0.6
"""Edge strength one square further out, against a dark row's outer line, under which
that line is the kingdom's edge and not one of the table's own lines (0.1 and 0.3 on the
two rows above)."""

_TABLE_SPREAD: Final = 4.0
"""Spread of colour (Lab a*b*) under which nine in ten of the photo's border pixels make a
table of one colour: within that distance of grey (a grey table) or of the line from grey
through the table's colour (a coloured table, in light and in shade)."""

_OFF_TABLE_COLOUR: Final = 4.0
"""How much further than the table's spread from its colour, averaged over a small window,
makes a tile on a table of one colour.

A margin of 2.5 found 9 more kingdoms and lost 2 on development scenes, but on draws
not tuned on it gained 1 (seeds 12000-12399) and lost 1 on each reported draw: no
better than noise, so the margin stays at 4."""

_CLIPPED: Final = 0.97
"""Share of full scale at which a colour channel of the table is taken as clipped by the
camera's exposure."""

_CLIPPED_STRETCH: Final = 1.6
"""Up to how many times its shown value a clipped channel of the table's colour may be."""

_COLOUR_WINDOW: Final = 7
"""Side, in work-image pixels, of that window."""

_ROW_SLACK: Final = 0.15
"""How far (in squares) either way of the grid's line a grown row's outer edge is looked for."""

_SLACK_STEP: Final = 0.05
"""Step (in squares) of that search."""

_LATTICE_BANDS: Final = 4
"""Bands across an outline in each of which every seam's place is measured for a lattice fit."""

_LATTICE_REACH: Final = 0.25
"""How far (in squares) either way of its expected place a seam is looked for in a lattice fit."""

_LATTICE_PEAK: Final = 1.5
"""Seam peak over the band's typical gradient for a seam's place to count in a lattice fit."""

_LATTICE_TOLERANCE: Final = 3.0
"""Canvas pixels a seam's place may be off the fitted lattice and still count (RANSAC)."""

_LATTICE_ROUNDS: Final = 2
"""Lattice fits in turn, each from the outline the last one gave, while the seams get clearer."""

_SEAM_LATTICE_MARGIN: Final = 0.3
"""Margin round an area, as a share of the side of a square of the same area, searched for
the seams' own lattice."""

_SEAM_LATTICE_PERIODS: Final = (1 / 12, 1 / 3)
"""Least and most side of a square, as shares of the side of a square of the area's size."""

_SEAM_LATTICE_EDGES: Final = 0.8
"""Quantile of the gradient near the tiles above which a pixel's direction counts towards
the grid's orientation."""

_ABOVE_TABLE: Final = 1.5
"""How much sharper than the grid line over bare table a sparse edge row's tile edges are."""


_CELL_TILE_DISTANCE: Final = 12.0
"""Distance from the table colours above which a pixel of a square counts as tile."""

_RIDGE_SIDE: Final = 5
"""Side, in work-image pixels, of the opening whose top-hat finds the table's thin lines."""

_RIDGE_CONTRAST: Final = 0.12
"""Share of the local lightness by which a thin line or speck stands out of its surroundings."""

_RIDGE_FLOOR: Final = 4.0
"""Least lightness step (OpenCV's 8-bit scale) of a thin line or speck: dark noise is none."""

_RIDGE_WINDOW: Final = 9
"""Side, in work-image pixels, of the window the table's ridge density is averaged over."""

_MIN_TABLE_RIDGES: Final = 0.05
"""Ridge density of the photo's border under which the table has no pattern to go by."""

_BORDER_BLOCK: Final = 40
"""Length, in work-image pixels, of the pieces of the border band compared for ridge density."""

_EVEN_PATTERN: Final = 0.3
"""Share of the border's median ridge density that nine in ten of its pieces must reach:
a pattern that covers the whole table, not wood grain that comes and goes."""

_GLARE_GAP: Final = 0.5
"""Drop in a square's tileness when glare counts as table, above which the square's lack of
the table's pattern says nothing: glare washes a carpet's specks out."""

_PLAIN_BELOW: Final = 0.1
"""Ridge density, against the table's, under which a square is wholly without its pattern."""

_PATTERNED_ABOVE: Final = 0.5
"""Ridge density, against the table's, from which a square shows the table's pattern."""


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
        those of the table (see :func:`_fit_extent`).
    alternatives : tuple of BoardLocation
        Other outlines of the same tiles whose seams were nearly as clear
        (:func:`_rivals`); reading the squares decides between them
        (:func:`scorer.pipeline.clearest_outline`).
    """

    corners: np.ndarray
    shape: tuple[int, int]
    empty: frozenset[Position] = field(default_factory=frozenset)
    score: float = 0.0
    tiles: frozenset[Position] = field(default_factory=frozenset)
    trimmed: frozenset[Side] = field(default_factory=frozenset)
    alternatives: tuple[BoardLocation, ...] = ()


def find_kingdoms(
    image: np.ndarray,
    *,
    corners: np.ndarray | list[list[float]] | list[tuple[float, float]] | None = None,
    grid: int | None = None,
) -> list[BoardLocation]:
    """Find every kingdom in a photo.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        BGR photo, any size.
    corners : array-like of shape (4, 2), optional
        Corners marked by the player, in any order; detection is skipped.
    grid : int, optional
        Force a square grid of this side (5 or 7) instead of measuring it.

    Returns
    -------
    list of BoardLocation
        Ordered left to right, then top to bottom.

    Raises
    ------
    BoardNotFoundError
        No kingdom-sized area of tiles is in the photo.
    GridNotConsistentError
        Tiles were found but no consistent grid of equal squares fits them.
    """
    _check_image(image)
    if grid is not None and not MIN_SIDE <= grid <= MAX_SIZE:
        raise ValueError(f"grid must be between {MIN_SIDE} and {MAX_SIZE}, not {grid}")
    work, scale = _downscale(image, _WORK_SIDE)
    if min(work.shape[:2]) < _MIN_WORK_SIDE:
        raise BoardNotFoundError(
            f"no kingdom-sized area of tiles found: the image is {image.shape[1]}×"
            f"{image.shape[0]} px, too narrow to hold a kingdom"
        )
    if corners is not None:
        quad = order_corners(np.asarray(corners, dtype=np.float64).reshape(4, 2))
        _check_corners(quad * scale)
        location = _locate(work, quad * scale, grid=grid, require_grid=False)
        assert location is not None
        return [_to_original(location, scale)]

    mask, dist, lit_dist, found_any = _tile_mask(work)
    lit_mask = (lit_dist > _TILE_DISTANCE).astype(np.uint8) * 255
    areas = _candidate_quads(mask, lit_mask)
    gradients = _gradients(work) if areas else None
    texture = _table_texture_map(work) if areas else None
    locations: list[BoardLocation] = []
    faint: list[BoardLocation] = []
    for quads in areas:
        assert gradients is not None
        refined: list[np.ndarray] = []
        for q in quads:
            r = _refine_quad(gradients, q)
            if not _has_quad(refined, r, tolerance=1.0):
                refined.append(r)  # outlines often snap onto the same edges
        tried = [_locate(work, q, grid=grid, require_grid=False) for q in refined]
        if all(loc is None or loc.score < _MIN_SEAM_SCORE for loc in tried):
            # No outline of this area shows a clear grid: move each onto the seams inside it.
            tried = [loc and _onto_seams(work, gradients, loc, grid) for loc in tried]
        best = _choose(tried, lit_mask)
        located: BoardLocation | None = None
        if best.score < _MIN_SEAM_SCORE:
            # Still none: lay grids on the lattice of the seams themselves. One with
            # many squares of bare table is a lattice in the table's grain.
            guessed = [
                _locate(work, _refine_quad(gradients, q), grid=grid, require_grid=False)
                for q in _seam_lattice_guesses(work, quads, lit_mask, grid)
            ]
            guess = _choose(tried + guessed, lit_mask)
            if any(guess is g for g in guessed):
                laid = _settle(work, (dist, lit_dist), gradients, guess, grid, texture)
                if not _too_bare(laid):
                    best, located = guess, laid
                    tried += guessed
        clear = grid is not None or best.score >= _MIN_SEAM_SCORE
        if not clear and not _one_axis_clear(work, best):
            continue
        if located is None:
            located = _settle(work, (dist, lit_dist), gradients, best, grid, texture)
        others = _rivals(tried, best) if grid is None else []
        if others:
            settled = [_settle(work, (dist, lit_dist), gradients, o, grid, texture) for o in others]
            located = replace(located, alternatives=_distinct(located, settled))
        (locations if clear else faint).append(located)
    # A faint grid is a kingdom only where no clear grid overlaps it.
    locations = _apart(locations + faint)
    if not locations:
        whole = _whole_image(work, grid)
        if whole is not None:
            locations = [whole]
        elif areas:
            raise GridNotConsistentError(
                "found tiles but no consistent grid: the seams between the squares do not "
                "line up into equal squares"
            )
        else:
            why = "" if found_any else " (the photo shows no colourful tiles apart from the table)"
            raise BoardNotFoundError(f"no kingdom-sized area of tiles found{why}")
    return [_to_original(loc, scale) for loc in _reading_order(locations)]


def rectify(image: np.ndarray, location: BoardLocation, square_px: int = SQUARE_PX) -> np.ndarray:
    """Warp one kingdom to a canonical top-down image.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The full-resolution BGR photo the location was found in.
    location : BoardLocation
        The kingdom's corners and grid shape.
    square_px : int
        Side of one square in the output.

    Returns
    -------
    ndarray of shape (rows * square_px, cols * square_px, 3)
        BGR image; row 0 is the side nearest the top of the photo.
    """
    rows, cols = location.shape
    out_w, out_h = cols * square_px, rows * square_px
    corners = np.asarray(location.corners, dtype=np.float64)
    # Warp at up to three times the output size, then average down, so fine
    # texture of a large photo is not aliased away; the cost follows the output.
    side_px = float(
        max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[0]))
    )
    k = int(np.clip(np.ceil(side_px / max(out_w, out_h)), 1, 3))
    dst = np.array(
        [[0, 0], [out_w * k, 0], [out_w * k, out_h * k], [0, out_h * k]], dtype=np.float32
    )
    h = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    warped = cv2.warpPerspective(
        image, h, (out_w * k, out_h * k), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if k > 1:
        warped = cv2.resize(warped, (out_w, out_h), interpolation=cv2.INTER_AREA)
    return np.asarray(warped, dtype=np.uint8)


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
    r0, r1, c0, c1 = _move(0, rows, 0, cols, side, by)
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
    rows, cols = shape
    grid = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32)
    to_photo = cv2.getPerspectiveTransform(grid, np.asarray(corners, np.float32).reshape(4, 2))
    return np.asarray(to_photo, np.float64)


def _grid_quad(location: BoardLocation, extent: tuple[int, int, int, int]) -> np.ndarray:
    """Photo corners of the grid rows ``r0..r1`` and columns ``c0..c1`` of a location."""
    to_photo = grid_homography(location.corners, location.shape)
    r0, r1, c0, c1 = extent
    points = np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1]], np.float32).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(points, to_photo), dtype=np.float64).reshape(4, 2)


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


# --- detection helpers -------------------------------------------------------------------------


def _check_image(image: np.ndarray) -> None:
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 image of shape (H, W, 3), got {image.shape}")
    if min(image.shape[:2]) < 16:
        raise BoardNotFoundError(
            f"no kingdom-sized area of tiles found: the image is only "
            f"{image.shape[1]}×{image.shape[0]} px"
        )


def _check_corners(quad: np.ndarray) -> None:
    """Refuse marked corners that do not outline a four-sided area (in working pixels)."""
    contour = quad.reshape(-1, 1, 2).astype(np.float32)
    if not cv2.isContourConvex(contour) or cv2.contourArea(contour) < _MIN_WORK_SIDE**2:
        raise BoardNotFoundError(
            "the four corners marked do not outline a kingdom: mark four distinct corners "
            "of the kingdom, going round it"
        )


def _downscale(image: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    scale = min(1.0, side / max(image.shape[:2]))
    if scale >= 1.0:
        return image, 1.0
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return small.astype(np.uint8), scale


def _to_original(location: BoardLocation, scale: float) -> BoardLocation:
    return replace(
        location,
        corners=location.corners / scale,
        alternatives=tuple(_to_original(a, scale) for a in location.alternatives),
    )


def _settle(
    work: np.ndarray,
    dists: tuple[np.ndarray, np.ndarray],
    gradients: tuple[np.ndarray, np.ndarray],
    location: BoardLocation,
    grid: int | None,
    texture: _TableTexture | None,
) -> BoardLocation:
    """An outline grown or shrunk to its tiles, its count made full where seams allow."""
    located = _fit_extent(dists, gradients, location, grid, texture)
    return located if grid is not None else _prefer_full(work, dists, located, texture)


def _rivals(tried: Sequence[BoardLocation | None], best: BoardLocation) -> list[BoardLocation]:
    """The other outlines of an area whose seams are nearly as clear as the chosen one's,
    clearest first.

    Seams can be faint (lake beside lake, dark squares on a dark cutting mat),
    and then a grid one row short, or a fraction of a square off, can show them
    a little more clearly than the right one; and among outlines with clear
    seams, the one covering the most tiles can have taken in a loose domino or
    a shadow. Which grid's squares look like squares of a tile is then the
    better test, and only reading them tells.
    """
    near = [
        loc
        for loc in tried
        if loc is not None and loc is not best and loc.score >= _NEAR_BEST * best.score
    ]
    return sorted(near, key=lambda loc: -loc.score)


def _distinct(chosen: BoardLocation, others: Sequence[BoardLocation]) -> tuple[BoardLocation, ...]:
    """``others`` without the outlines that repeat ``chosen`` or each other, at most
    :data:`_MAX_ALTERNATIVES`."""
    kept: list[BoardLocation] = []
    for loc in others:
        if len(kept) == _MAX_ALTERNATIVES:
            break
        if not any(_same_outline(loc, k) for k in [chosen, *kept]):
            kept.append(loc)
    return tuple(kept)


def _same_outline(a: BoardLocation, b: BoardLocation) -> bool:
    """Whether two outlines have the same grid and corners within :data:`_SAME_OUTLINE` of a
    square."""
    if a.shape != b.shape:
        return False
    square = np.linalg.norm(a.corners[1] - a.corners[0]) / a.shape[1]
    return bool(np.linalg.norm(a.corners - b.corners, axis=1).max() < _SAME_OUTLINE * square)


def _lab(image: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    return lab


def _tile_mask(work: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Pixels unlike the table: a colour model of the photo's border, k-means in Lab.

    Returns the mask, each pixel's distance from the table colours, the same
    distance from the table colours in shadow and glare as well, and whether any
    tile-like area was seen.
    """
    blur = cv2.GaussianBlur(work, (5, 5), 0)
    lab8 = cv2.cvtColor(blur, cv2.COLOR_BGR2LAB)
    lab = _lab8_to_float(lab8)
    sides = [side.reshape(-1, 3) for side in _border_bands(lab)]
    rng = np.random.default_rng(0)
    per_side = 1000
    sample = np.concatenate(
        [
            side[rng.choice(len(side), size=min(per_side, len(side)), replace=False)]
            for side in sides
        ]
    )
    side_of = np.repeat(np.arange(4), [min(per_side, len(side)) for side in sides])
    k = 8
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)  # k-means++ seeding draws from OpenCV's global generator
    _, labels, centres = cv2.kmeans(
        sample.astype(np.float32), k, None, criteria, 2, cv2.KMEANS_PP_CENTERS
    )
    # A table colour runs along at least two sides of the photo; a tile or an object
    # touching one side only must not become "table".
    labels = labels.ravel()
    share = np.zeros((k, 4))
    for s in range(4):
        in_side = labels[side_of == s]
        share[:, s] = np.bincount(in_side, minlength=k) / max(len(in_side), 1)
    keep = ((share >= 0.03).sum(axis=1) >= 2) | (share.mean(axis=1) >= 0.2)
    centres = centres[keep]
    # Distances through lookup tables over quantised Lab (32 levels a channel), computed
    # for the levels present only.
    q = np.right_shift(np.asarray(lab8, dtype=np.int32), 3)
    index = (q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]
    present = np.flatnonzero(np.bincount(index.ravel(), minlength=1 << 15))
    table = np.zeros((2, 1 << 15), np.float32)
    table[0, present] = _distance_table(present, centres)
    table[1, present] = _distance_table(present, _lit_variants(centres))
    dist, lit_dist = table[0][index], table[1][index]
    # On a table of one colour any other colour is a tile, however dark: a forest square
    # in the shade of a black cutting mat is within the colour distance of the mat.
    colour = _colour_off_table(lab, np.concatenate(sides))
    dist = np.where(colour, np.maximum(dist, _TILE_DISTANCE + 0.5), dist)
    lit_dist = np.where(colour, np.maximum(lit_dist, _TILE_DISTANCE + 0.5), lit_dist)
    mask = (dist > _TILE_DISTANCE).astype(np.uint8) * 255
    found_any = bool(mask.mean() > 255 * 0.01)
    return mask, dist, lit_dist, found_any


def _border_bands(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bands along the top, bottom, left and right of an image, where the table shows.

    Each is 2% of the image's shorter side wide, and at least 3 pixels.
    """
    h, w = image.shape[:2]
    band = max(3, int(0.02 * min(h, w)))
    return image[:band], image[-band:], image[:, :band], image[:, -band:]


def _colour_off_table(lab: np.ndarray, border: np.ndarray) -> np.ndarray:
    """Where a photo of a table of one colour shows another colour, however dark (boolean mask).

    ``lab`` is the work image in float Lab and ``border`` the Lab values of its
    border band. Shade darkens a table but keeps its hue: in the a*b* plane its
    pixels stay near grey (a grey table) or near the line from grey through the
    table's median colour (a coloured table; if the camera clipped a channel, in
    the wedge between that line and the line through its truest colour,
    :func:`_shade_tints`). A pixel far off them is a tile, however close to the
    table in lightness. On a coloured table only pixels no lighter than the
    table's median count: glare there moves the table's colour off the line.
    Nothing is marked on a table of many colours.

    The distance is averaged over a small window (tile artwork is speckled where it
    is dark) and the mask is then shrunk by half the window, so that it does not
    spill over a tile's edge onto the table.
    """
    a, b = lab[..., 1], lab[..., 2]
    spread = float(np.percentile(np.hypot(border[:, 1], border[:, 2]), 90))
    if spread <= _TABLE_SPREAD:
        away = np.hypot(a, b)
    else:
        tints = _shade_tints(np.median(border, axis=0))
        spread = float(np.percentile(_off_wedge(border[:, 1], border[:, 2], tints), 90))
        if spread > _TABLE_SPREAD:
            return np.zeros(lab.shape[:2], bool)
        lighter = lab[..., 0] > float(np.median(border[:, 0]))
        away = np.where(lighter, 0.0, _off_wedge(a, b, tints))
    smooth = cv2.blur(away.astype(np.float32), (_COLOUR_WINDOW, _COLOUR_WINDOW))
    coloured = (smooth > spread + _OFF_TABLE_COLOUR).astype(np.uint8)
    window = np.ones((_COLOUR_WINDOW, _COLOUR_WINDOW), np.uint8)
    return np.asarray(cv2.erode(coloured, window) > 0)


def _shade_tints(median: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two a*b* colours between which a table of median Lab colour ``median`` lies.

    Shade scales a table's colour channels alike and keeps its hue, so its colour
    alone is enough, unless the camera's exposure clipped a channel at full scale:
    then the table's true colour holds more of that channel than it shows, and its
    shade, no longer clipped, shows a truer hue, somewhere up to the colour with
    that channel :data:`_CLIPPED_STRETCH` times as strong. Returns the shown
    colour and the truest one (the same colour twice when nothing is clipped).

    >>> grey, same = _shade_tints(np.array([50.0, 0.0, 0.0]))
    >>> bool(np.allclose(grey, same))
    True
    >>> shown, truest = _shade_tints(np.array([70.0, 35.0, 55.0]))  # orange, red clipped
    >>> bool(truest[0] > shown[0] + 10)  # redder
    True
    """
    lab = median.reshape(1, 1, 3).astype(np.float32)
    bgr = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)[0, 0]
    clipped = bgr >= _CLIPPED
    shown = np.asarray(median[1:], dtype=np.float64)
    if not clipped.any() or clipped.all():
        return shown, shown
    truest = np.where(clipped, bgr * _CLIPPED_STRETCH, bgr)
    truest = (truest / truest.max()).reshape(1, 1, 3).astype(np.float32)
    return shown, np.asarray(cv2.cvtColor(truest, cv2.COLOR_BGR2Lab)[0, 0, 1:], np.float64)


def _off_wedge(a: np.ndarray, b: np.ndarray, tints: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Distance in the a*b* plane from the wedge of hues between the half-lines from grey
    through the two ``tints`` (0 inside it; see :func:`_off_line`).

    >>> tints = (np.array([1.0, 0.0]), np.array([1.0, 1.0]))
    >>> _off_wedge(np.array([5.0, 5.0, 3.0]), np.array([2.0, -3.0, 1.0]), tints)
    array([0., 3., 0.])
    """
    first, last = tints
    turn = float(first[0] * last[1] - first[1] * last[0])
    if abs(turn) < 1e-9:  # one hue: the wedge is its half-line
        return _off_line(a, b, first)
    off = np.minimum(_off_line(a, b, first), _off_line(a, b, last))
    after_first = (first[0] * b - first[1] * a) * turn >= 0
    before_last = (a * last[1] - b * last[0]) * turn >= 0
    ahead = a * (first[0] + last[0]) + b * (first[1] + last[1]) > 0
    return np.asarray(np.where(after_first & before_last & ahead, 0.0, off))


def _off_line(a: np.ndarray, b: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """Distance in the a*b* plane from the half-line that starts at grey and runs through
    ``tint``: the colours of a table of that colour in any light.

    >>> _off_line(np.array([6.0, 0.0, -3.0]), np.array([0.0, 5.0, 4.0]), np.array([2.0, 0.0]))
    array([0., 5., 5.])
    """
    unit = tint / max(float(np.hypot(*tint)), 1e-6)
    along = a * unit[0] + b * unit[1]
    return np.asarray(np.where(along >= 0, np.abs(a * unit[1] - b * unit[0]), np.hypot(a, b)))


def _lab8_to_float(lab8: np.ndarray) -> np.ndarray:
    lab = lab8.astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    return lab


def _distance_table(index: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Distance to the nearest table colour of quantised Lab values; 0 for glare.

    ``index`` packs the three 5-bit levels of each value as ``L << 10 | a << 5 | b``.
    Lightness counts half as much as colour: shadows and glare change it.
    """
    levels = np.stack([index >> 10, (index >> 5) & 31, index & 31], axis=-1) * 8 + 4
    lab = _lab8_to_float(levels.astype(np.uint8)[:, None, :])[:, 0, :]
    weight = np.array([0.5, 1.0, 1.0], dtype=np.float32)
    lab_w = lab * weight
    table = np.asarray(centres, np.float32) * weight
    # |x - c|^2 = |x|^2 - 2 x.c + |c|^2, the nearest of all table colours at once.
    d2 = (lab_w**2).sum(axis=1)[:, None] - 2 * lab_w @ table.T + (table**2).sum(axis=1)[None, :]
    dist = np.asarray(np.sqrt(np.maximum(d2.min(axis=1), 0.0)), dtype=np.float32)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    dist[(lab[:, 0] > 88) & (chroma < 12)] = 0.0  # glare and white paper are not tiles
    return dist


def _lit_variants(centres: np.ndarray) -> np.ndarray:
    """Table colours (float Lab) as they look in shadow and under glare, in float Lab.

    A shadow scales a colour's BGR down; glare mixes white into it or adds white light.
    """
    lab8 = np.empty((len(centres), 1, 3), np.float32)
    lab8[:, 0, 0] = centres[:, 0] * 255.0 / 100.0
    lab8[:, 0, 1:] = centres[:, 1:] + 128.0
    bgr = cv2.cvtColor(np.clip(lab8, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)
    bgr = bgr.reshape(-1, 1, 3).astype(np.float32)
    shades = np.array(_SHADES, np.float32)[None, :, None]
    whites = np.array(_GLARES, np.float32)[None, :, None]
    dark = bgr * shades
    bright = bgr + (255.0 - bgr) * whites
    lit = bgr + np.array(_GLARE_LIGHT, np.float32)[None, :, None]
    variants = np.concatenate([dark, bright, lit], axis=1).reshape(-1, 1, 3)
    out = cv2.cvtColor(np.clip(variants, 0, 255).astype(np.uint8), cv2.COLOR_BGR2LAB)
    return np.asarray(_lab8_to_float(out)[:, 0, :], dtype=np.float32)


def _candidate_quads(
    mask: np.ndarray, lit_mask: np.ndarray | None = None
) -> list[list[np.ndarray]]:
    """Possible outlines of each kingdom-sized area of tiles: a few quads per area.

    ``lit_mask`` leaves out the table in shadow and glare too; its areas inside an
    area of ``mask`` are more outlines of the same kingdom, without the shadow or
    glare stuck to it.
    """
    h, w = mask.shape
    clean = _clean_mask(mask)
    contours, _ = cv2.findContours(clean, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = _MIN_AREA_SHARE * h * w
    # Each area as it is and without the thin lines and bridges stuck to it; an area
    # that falls into several parts is several areas.
    groups = [_split_joined(clean, c, min_area) for c in contours if cv2.contourArea(c) >= min_area]
    if not groups:
        return []
    lit_parts: list[np.ndarray] = []
    if lit_mask is not None:
        found, _ = cv2.findContours(_clean_mask(lit_mask), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        lit_parts = [c for c in found if cv2.contourArea(c) >= min_area]
    grouped = []
    for whole, *parts in groups:
        parts += [
            c
            for c in lit_parts
            if _contains(whole, _centre(c))
            and cv2.contourArea(c) < 0.95 * cv2.contourArea(whole)  # else the same outline
        ]
        grouped.append([whole, *_without_joins(parts)])
    # Sizes compare with the largest kingdom-like outline: an area's parts where it has
    # any (a blob of shadow joining several kingdoms is none), else the area itself.
    largest = max(cv2.contourArea(c) for group in grouped for c in (group[1:] or group))
    areas = []
    for whole, *parts in grouped:
        parts = [c for c in parts if cv2.contourArea(c) >= 0.2 * largest]
        clusters = _clusters(parts)
        if cv2.contourArea(whole) < 0.2 * largest and not clusters:
            continue
        if len(clusters) <= 1:
            quads = _quads_of(whole, w, h)
            for c in clusters[0] if clusters else []:
                quads += [q for q in _quads_of(c, w, h) if not _has_quad(quads, q)]
            areas.append(quads)
        else:  # the parts first; the whole area only where no part is a kingdom
            for cluster in clusters:
                quads = []
                for c in cluster:
                    quads += [q for q in _quads_of(c, w, h) if not _has_quad(quads, q)]
                areas.append(quads)
            areas.append(_quads_of(whole, w, h))
    return [quads for quads in areas if quads]


def _without_joins(parts: list[np.ndarray]) -> list[np.ndarray]:
    """The parts of an area less those that join several places (shadow spread between kingdoms).

    A part holds several places when the smaller parts inside it fall into two or
    more groups that do not overlap, each of a kingdom's size next to the others
    (:func:`_places`); it is then an outline of them all, like the whole area,
    and no kingdom's.
    """
    kept = []
    for part in parts:
        area = cv2.contourArea(part)
        inside = [
            c
            for c in parts
            if c is not part
            and cv2.contourArea(c) < _JOIN_SHARE * area
            and _contains(part, _centre(c))
        ]
        if len(_places(_clusters(inside))) < 2:
            kept.append(part)
    return kept


def _places(clusters: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """The clusters that may each be a kingdom: those whose largest outline is at least
    :data:`_PLACE_SHARE` of the largest one's. Kingdoms joined by shadow are alike in
    size; a kingdom that glare breaks into pieces leaves one large piece and small ones."""
    largest = [max(cv2.contourArea(c) for c in cluster) for cluster in clusters]
    return [c for c, a in zip(clusters, largest, strict=True) if a >= _PLACE_SHARE * max(largest)]


def _clean_mask(mask: np.ndarray) -> np.ndarray:
    """The mask without specks, its small gaps closed."""
    side = max(mask.shape)
    open_k = max(3, round(side / 130) | 1)
    clean = cv2.morphologyEx(
        mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (open_k, open_k))
    )
    close_k = max(5, round(side / 45) | 1)
    return np.asarray(
        cv2.morphologyEx(
            clean, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (close_k, close_k))
        ),
        dtype=np.uint8,
    )


def _clusters(outlines: list[np.ndarray]) -> list[list[np.ndarray]]:
    """Outlines grouped by overlap: each group is one place, outlined several ways."""
    clusters: list[list[np.ndarray]] = []
    for c in outlines:
        for cluster in clusters:
            first = cluster[0]
            if _contains(first, _centre(c)) or _contains(c, _centre(first)):
                cluster.append(c)
                break
        else:
            clusters.append([c])
    return clusters


def _centre(contour: np.ndarray) -> tuple[float, float]:
    m = cv2.moments(contour)
    if m["m00"] == 0:
        x, y = contour.reshape(-1, 2).mean(axis=0)
        return float(x), float(y)
    return m["m10"] / m["m00"], m["m01"] / m["m00"]


def _contains(contour: np.ndarray, point: tuple[float, float]) -> bool:
    return bool(cv2.pointPolygonTest(contour, point, False) >= 0)


def _has_quad(quads: list[np.ndarray], quad: np.ndarray, tolerance: float = 2.0) -> bool:
    """Whether a quad within ``tolerance`` pixels of this one is already in the list."""
    return any(np.abs(quad - q).max() < tolerance for q in quads)


def _quads_of(contour: np.ndarray, w: int, h: int) -> list[np.ndarray]:
    """Possible outlines of the kingdom in one area of tiles."""
    hull = cv2.convexHull(contour)
    if _touches_border(contour, w, h):
        # Cut off by the photo's edge, or joined to glare or an object that is:
        # only straight sides lying wholly inside the photo may make a kingdom.
        inside = _quad_from_segments(contour)
        margin = 0.01 * min(h, w)
        if inside is None or not (
            (inside >= margin).all()
            and (inside[:, 0] <= w - margin).all()
            and (inside[:, 1] <= h - margin).all()
        ):
            return []
        return [inside]
    if cv2.contourArea(contour) / max(cv2.contourArea(hull), 1.0) < 0.55:
        return []
    quads: list[np.ndarray] = []
    for quad in (
        _quad_from_hull(hull),
        _quad_from_poly(hull),
        _quad_from_rect(contour),
        _quad_from_segments(contour),
    ):
        if quad is not None and not _has_quad(quads, quad):
            quads.append(quad)
    return quads


def _split_joined(clean: np.ndarray, contour: np.ndarray, min_area: float) -> list[np.ndarray]:
    """An area, followed by its parts once thin lines and narrow bridges are cut away.

    An area that reaches the photo's edge, or is not convex, is opened with a
    disc a fraction of a square wide: lines and bridges narrower than it vanish,
    whole squares stay. A convex area is returned alone.
    """
    h, w = clean.shape
    area = cv2.contourArea(contour)
    solidity = area / max(cv2.contourArea(cv2.convexHull(contour)), 1.0)
    if solidity >= 0.97 and not _touches_border(contour, w, h):
        return [contour]
    x, y, bw, bh = cv2.boundingRect(contour)
    own = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(own, [contour], -1, 255, -1, offset=(-x, -y))
    own &= clean[y : y + bh, x : x + bw]
    k = max(5, round(max(h, w) / 55) | 1)
    opened = cv2.morphologyEx(
        own, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x, y))
    return [contour] + [p for p in parts if cv2.contourArea(p) >= min_area]


def _quad_from_segments(contour: np.ndarray) -> np.ndarray | None:
    """Four corners from the straight stretches of the outline itself, not of its hull.

    Collinear stretches are pooled (a side broken by a missing square is still
    one side), and the longest pooled lines in two directions make the sides.
    Blobs of glare or shadow stuck to the kingdom have no long straight edges.
    """
    perimeter = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, 0.008 * perimeter, True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    if n < 4:
        return None
    quarter = perimeter / 4
    clusters: list[dict[str, Any]] = []
    segments = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    segments.sort(key=lambda ab: -float(np.linalg.norm(ab[1] - ab[0])))
    for a, b in segments:
        length = float(np.linalg.norm(b - a))
        if length < 0.08 * quarter:
            break
        theta = float(np.arctan2(b[1] - a[1], b[0] - a[0]) % np.pi)
        normal = np.array([-np.sin(theta), np.cos(theta)])
        rho = float((a + b) @ normal / 2)
        for c in clusters:
            dt = abs(theta - c["theta"])
            dt = min(dt, np.pi - dt)
            # Offsets are compared along the cluster's own normal.
            if (
                dt < np.radians(6)
                and abs(float((a + b) @ c["normal"] / 2) - c["rho"]) < 0.04 * quarter
            ):
                c["points"].extend([a, b])
                c["weight"] += length
                break
        else:
            clusters.append(
                {"theta": theta, "normal": normal, "rho": rho, "points": [a, b], "weight": length}
            )
    clusters.sort(key=lambda c: -c["weight"])
    if len(clusters) < 4:
        return None
    first = clusters[0]

    def angle_to(c: dict[str, Any]) -> float:
        dt = abs(c["theta"] - first["theta"])
        return float(min(dt, np.pi - dt))

    parallel = [c for c in clusters[1:] if angle_to(c) < np.radians(35)]
    across = [c for c in clusters[1:] if angle_to(c) >= np.radians(35)]
    partner = next(
        (
            c
            for c in parallel
            if abs(float(np.mean(c["points"], axis=0) @ first["normal"]) - first["rho"])
            > 0.4 * quarter
        ),
        None,
    )
    if partner is None or len(across) < 2:
        return None
    side_a = across[0]
    side_b = next(
        (
            c
            for c in across[1:]
            if abs(float(np.mean(c["points"], axis=0) @ side_a["normal"]) - side_a["rho"])
            > 0.4 * quarter
        ),
        None,
    )
    if side_b is None:
        return None
    lines = []
    for c in (first, side_a, partner, side_b):
        pts = np.array(c["points"], dtype=np.float32)
        vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01)
        lines.append((np.array([x0.item(), y0.item()]), np.array([vx.item(), vy.item()])))
    quad = _quad_from_lines(lines)
    return None if quad is None else order_corners(quad)


def _quad_from_poly(hull: np.ndarray) -> np.ndarray | None:
    """The hull simplified until four corners remain."""
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.05, 0.08, 0.12):
        poly = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(poly) == 4:
            return order_corners(poly.reshape(4, 2).astype(np.float64))
        if len(poly) < 4:
            return None
    return None


def _quad_from_rect(contour: np.ndarray) -> np.ndarray:
    """The smallest rotated rectangle around the area."""
    return order_corners(cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64))


def _touches_border(contour: np.ndarray, w: int, h: int) -> bool:
    """True when a long stretch of the outline runs along the photo's edge (a cut-off board)."""
    pts = contour.reshape(-1, 2)
    on_edge = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= w - 2) | (pts[:, 1] >= h - 2)
    return bool(on_edge.mean() > 0.08)


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    """Four corners from a convex outline: intersect the lines of its four longest sides."""
    pts = hull.reshape(-1, 2).astype(np.float64)
    perimeter = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.015 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    n = len(poly)
    lengths = np.array([np.linalg.norm(poly[(i + 1) % n] - poly[i]) for i in range(n)])
    keep = sorted(np.argsort(lengths)[-4:])
    lines = []
    for i in keep:
        a, b = poly[i], poly[(i + 1) % n]
        lines.append(_fit_side(pts, a, b))
    quad = _quad_from_lines(lines)
    if quad is None:
        return None
    hull_area = cv2.contourArea(hull.astype(np.float32))
    quad_area = cv2.contourArea(quad.astype(np.float32))
    if not 0.8 * hull_area <= quad_area <= 1.6 * hull_area:
        return None
    return order_corners(quad)


def _quad_from_lines(lines: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """Corners where four side lines, in order round the outline, meet; None unless convex."""
    corners = []
    for j in range(4):
        p = _intersect(lines[j - 1], lines[j])
        if p is None:
            return None
        corners.append(p)
    quad = np.array(corners)
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


def _fit_side(pts: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A line (point, direction) through the outline points near the segment ``a``–``b``."""
    d = b - a
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-9)
    rel = pts - a
    t = rel @ u
    dist = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
    near = (t > 0.1 * length) & (t < 0.9 * length) & (dist < max(2.0, 0.02 * length))
    if near.sum() < 2:
        return a, u
    vx, vy, x0, y0 = cv2.fitLine(pts[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
    return np.array([x0.item(), y0.item()]), np.array([vx.item(), vy.item()])


def _intersect(
    l1: tuple[np.ndarray, np.ndarray],
    l2: tuple[np.ndarray, np.ndarray],
) -> np.ndarray | None:
    (p, r), (q, s) = l1, l2
    cross = r[0] * s[1] - r[1] * s[0]
    if abs(cross) < 1e-6:
        return None
    t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / cross
    return np.asarray(p + t * r, dtype=np.float64)


def _choose(tried: list[BoardLocation | None], lit_mask: np.ndarray) -> BoardLocation:
    """The outline that best joins a clear grid with covering the tiles of its area.

    Each outline with a grid is scored by its seam strength, counted up to
    :data:`_CLEAR_SEAMS` only, times the cube of its share of the most tile
    pixels any outline covers (``lit_mask``, shadow and glare left out), times
    its tile density (tile pixels per pixel inside, against the densest
    outline's). An outline that leaves out a row of squares can show clearer
    seams than the whole kingdom, so clarity alone would favour it; once the
    seams are clear, what counts is which outline holds the tiles. An outline
    stretched over the table to a loose domino, or to a printed mat's lines
    whose grid looks like seams, holds a few more tiles but much more table.
    Outlines whose seams are much weaker than the clearest are not considered.
    """
    found = [loc for loc in tried if loc is not None]
    seen = [loc for loc in found if loc.score >= _MIN_SEAM_SCORE] or found
    clearest = max(loc.score for loc in seen)
    seen = [loc for loc in seen if loc.score >= _NEAR_CLEAREST * clearest]
    covered = [_pixels_inside(lit_mask, loc.corners) for loc in seen]
    most = max(max(covered), 1)
    areas = [max(cv2.contourArea(loc.corners.astype(np.float32)), 1.0) for loc in seen]
    densest = max(c / a for c, a in zip(covered, areas, strict=True))
    # Among faint grids only, a tight outline round part of the tiles is no likelier.
    power = _DENSITY_POWER if clearest >= _MIN_SEAM_SCORE else 0

    def joint(i: int) -> tuple[float, float]:
        share = covered[i] / most
        density = covered[i] / areas[i] / max(densest, 1e-9)
        sparse = min(1.0, density / _SPARSE_DENSITY) ** power
        return min(seen[i].score, _CLEAR_SEAMS) * share**_COVER_POWER * sparse, seen[i].score

    return seen[max(range(len(seen)), key=joint)]


def _pixels_inside(mask: np.ndarray, quad: np.ndarray) -> int:
    """How many marked pixels of ``mask`` lie inside the quadrilateral."""
    h, w = mask.shape
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 <= x0 or y1 <= y0:
        return 0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad - [x0, y0]).astype(np.int32), 1)
    return int(np.count_nonzero(mask[y0:y1, x0:x1][inside > 0]))


def _gradients(work: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel x and y derivatives of the lightly smoothed work image."""
    smooth = cv2.GaussianBlur(work, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
    return gx, gy


def _refine_quad(
    gradients: tuple[np.ndarray, np.ndarray],
    quad: np.ndarray,
    reaches: tuple[float, ...] = (0.05, 0.015),
) -> np.ndarray:
    """Move each side onto the strongest straight edge near it: the kingdom's outer edge.

    Each side may shift and tilt by up to a fraction of a square, so it cannot
    jump to a seam between two rows of squares.
    """
    refined = quad
    for reach in reaches:
        lines = [_snap_side(gradients, refined, i, reach) for i in range(4)]
        corners = []
        for j in range(4):
            p = _intersect(lines[j - 1], lines[j])
            if p is None:
                return quad
            corners.append(p)
        refined = np.array(corners)
    moved = np.linalg.norm(refined - quad, axis=1).max()
    side = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[0])
    if moved > 0.08 * side or not cv2.isContourConvex(refined.astype(np.float32)):
        return quad
    return order_corners(refined)


def _snap_side(
    gradients: tuple[np.ndarray, np.ndarray], quad: np.ndarray, i: int, reach: float
) -> tuple[np.ndarray, np.ndarray]:
    """The line near side ``i`` of ``quad`` with the strongest step edge across it.

    Thin lines beside a kingdom (a cutting mat's print) do not count as edges
    (:func:`_step_profile`).
    """
    h, w = gradients[0].shape[:2]
    a, b = quad[i], quad[(i + 1) % 4]
    d = b - a
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-9)
    n = np.array([u[1], -u[0]])  # outward for corners ordered clockwise on screen
    r = max(2, round(reach * length))
    offsets = np.arange(-r, r + 1, max(1, r // 12), dtype=np.float32)  # coarse for a long reach
    t = np.linspace(0.04, 0.96, 32, dtype=np.float32)
    base = a[None, :] + t[:, None] * d[None, :]
    pts = base[:, None, :] + offsets[None, :, None] * n[None, None, :]
    inside = (pts[..., 0] >= 0) & (pts[..., 0] < w) & (pts[..., 1] >= 0) & (pts[..., 1] < h)
    if reach > _STEP_ONLY_REACH:
        across = _step_profile(gradients, base, n, r)[:, offsets.astype(int) + r] * inside
    else:
        gx, gy = gradients
        xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        across = np.abs(gx[ys, xs] * n[0] + gy[ys, xs] * n[1]).sum(axis=-1) * inside
    # profile[t, k]: edge strength at sample t, offset k. A line is a pair of end offsets.
    k = np.arange(len(offsets))
    k0, k1 = np.meshgrid(k, k, indexing="ij")
    along = np.round(k0[..., None] * (1 - t) + k1[..., None] * t).astype(int)
    score = across[np.arange(len(t)), along].mean(axis=-1)
    best0, best1 = np.unravel_index(int(np.argmax(score)), score.shape)
    p0 = a + offsets[best0] * n
    p1 = b + offsets[best1] * n
    direction = (p1 - p0) / max(float(np.linalg.norm(p1 - p0)), 1e-9)
    return p0, direction


def _step_profile(
    gradients: tuple[np.ndarray, np.ndarray], base: np.ndarray, n: np.ndarray, reach: int
) -> np.ndarray:
    """Edge strength across ``n`` at whole-pixel offsets ``-reach..reach`` from each base point.

    Only steps in colour count (a kingdom's edge against the table): a thin line
    (a cutting mat's print, a stray thread) rises and falls within a few
    pixels, so its gradients across cancel over :data:`_STEP_REACH` pixels
    either side and it scores little.
    """
    gx, gy = gradients
    h, w = gx.shape[:2]
    fine = np.arange(-reach - _STEP_REACH, reach + _STEP_REACH + 1, dtype=np.float32)
    pts = base[:, None, :] + fine[None, :, None] * n.astype(np.float32)
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    signed = gx[ys, xs] * n[0] + gy[ys, xs] * n[1]  # (points, offsets, channels)
    width = 2 * _STEP_REACH + 1
    totals = np.cumsum(np.pad(signed, ((0, 0), (1, 0), (0, 0))), axis=1)
    step = np.abs(totals[:, width:] - totals[:, :-width]) / 2
    peak = np.abs(signed[:, _STEP_REACH : len(fine) - _STEP_REACH])
    return np.asarray(np.minimum(peak, step).sum(axis=-1))


@dataclass(frozen=True, eq=False)
class _GridEdges:
    """The work image's edges as a grid sees them: what the row tests measure on.

    Attributes
    ----------
    gradients : tuple of ndarray
        Horizontal and vertical gradients of the work image (:func:`_gradients`).
    to_photo : ndarray of shape (3, 3)
        Homography from grid coordinates (one unit a square, ``(x, y)`` = column,
        row) to the work image.
    """

    gradients: tuple[np.ndarray, np.ndarray]
    to_photo: np.ndarray


def _fit_extent(
    dists: tuple[np.ndarray, np.ndarray],
    gradients: tuple[np.ndarray, np.ndarray],
    location: BoardLocation,
    grid: int | None,
    texture: _TableTexture | None = None,
) -> BoardLocation:
    """Grow or shrink the grid by whole rows and columns to cover exactly the tiles.

    A row of dark squares on a dark table may be missing from the tile mask, and
    a domino touching the kingdom, or a shadow or glare beside it, may stretch the
    outline: the squares just outside and along each side decide. ``dists`` are
    the distances from the table colours, without and with shadow and glare: a
    row grows only where both see tiles, and shrinks where either sees table.
    On a table with a fine, even pattern (``texture``), squares without it are
    tile to both, whatever their colour (:func:`_cell_plainness`), where an edge
    row is kept and empty squares are named, but not where the grid grows: the
    pattern fades in places (glare on a carpet); grown by such squares too, 600
    development scenes (seeds 40000-40599) missed 28 of 744 kingdoms against 8.
    """
    rows, cols = location.shape
    quad = location.corners
    r0, r1, c0, c1 = 0, rows, 0, cols
    limit = grid if grid is not None else MAX_SIZE
    tiles, lit, kept, kept_lit = _cell_maps(dists, quad, rows, cols, texture)
    to_photo = grid_homography(quad, (rows, cols))
    edges = _GridEdges(gradients, to_photo)
    changed = False
    for _ in range(2):
        step = False
        for side in (Side.TOP, Side.BOTTOM, Side.LEFT, Side.RIGHT):
            outside, _, length = _side_cells(tiles, r0, r1, c0, c1, side)
            lit_out, _, _ = _side_cells(lit, r0, r1, c0, c1, side)
            _, edge, _ = _side_cells(kept, r0, r1, c0, c1, side)
            _, lit_edge, _ = _side_cells(kept_lit, r0, r1, c0, c1, side)
            span = (r1 - r0) if side in (Side.TOP, Side.BOTTOM) else (c1 - c0)
            extent = (r0, r1, c0, c1)
            # A side whose edge row is no part of the kingdom does not grow past it.
            if (
                span > MIN_SIDE
                and grid is None
                and _row_not_kingdom(edges, extent, side, edge, lit_edge)
            ):
                r0, r1, c0, c1 = _move(r0, r1, c0, c1, side, -1)
                step = changed = True
            elif (
                span < limit
                and np.count_nonzero(~np.isnan(outside)) >= 0.6 * length
                and _row_beyond(edges, extent, side, outside, lit_out)
            ):
                r0, r1, c0, c1 = _move(r0, r1, c0, c1, side, +1)
                step = changed = True
        if not step:
            break
        # Stay within the measured ring of cells.
        r0, r1 = max(r0, -1), min(r1, rows + 1)
        c0, c1 = max(c0, -1), min(c1, cols + 1)
    if grid is None:
        trimmed = _trim_to_square(lit, (r0, r1, c0, c1))
        changed = changed or trimmed != (r0, r1, c0, c1)
        r0, r1, c0, c1 = trimmed
    for side in _square_sides(edges, (r0, r1, c0, c1), (tiles, lit), limit):
        r0, r1, c0, c1 = _move(r0, r1, c0, c1, side, +1)
        changed = True
    empty, tiles_seen = _seen_squares(tiles, kept, (r0, r1, c0, c1))
    if not changed:
        return BoardLocation(quad, (rows, cols), empty, location.score, tiles_seen)
    grid_pts = np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1]], np.float32).reshape(-1, 1, 2)
    new_quad = cv2.perspectiveTransform(grid_pts, to_photo).reshape(4, 2).astype(np.float64)
    new_quad = _refine_quad(gradients, new_quad, reaches=(0.015,))
    left_out_sides = frozenset(
        side
        for side, left_out in (
            (Side.TOP, r0 > 0),
            (Side.BOTTOM, r1 < rows),
            (Side.LEFT, c0 > 0),
            (Side.RIGHT, c1 < cols),
        )
        if left_out
    )
    return BoardLocation(
        order_corners(new_quad),
        (r1 - r0, c1 - c0),
        empty,
        location.score,
        tiles_seen,
        left_out_sides,
    )


def _cell_maps(
    dists: tuple[np.ndarray, np.ndarray],
    quad: np.ndarray,
    rows: int,
    cols: int,
    texture: _TableTexture | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tileness of each square of a grid and of the ring around it: as the colours say,
    with shadow and glare as table too, and each of these where a square without the
    table's pattern counts as tile (see :func:`_fit_extent`)."""
    tiles = _cell_tileness(dists[0], quad, rows, cols)  # (rows + 2) × (cols + 2), ring included
    lit = _cell_tileness(dists[1], quad, rows, cols)
    # The squares without the table's pattern keep an edge row; they do not grow one.
    plain = np.zeros_like(tiles) if texture is None else _cell_plainness(texture, quad, rows, cols)
    plain[tiles - lit > _GLARE_GAP] = 0.0
    return tiles, lit, np.fmax(tiles, plain), np.fmax(lit, plain)


def _seen_squares(
    tiles: np.ndarray, kept: np.ndarray, extent: tuple[int, int, int, int]
) -> tuple[frozenset[Position], frozenset[Position]]:
    """The squares of ``extent`` (in the ring's grid) that look like bare table, and
    those clearly covered by a tile."""
    r0, r1, c0, c1 = extent
    inner = tiles[r0 + 1 : r1 + 1, c0 + 1 : c1 + 1]
    # A square without the table's pattern is not bare table, whatever its colour.
    bare = kept[r0 + 1 : r1 + 1, c0 + 1 : c1 + 1]
    empty = frozenset(
        (int(r), int(c)) for r, c in zip(*np.nonzero(np.nan_to_num(bare) < 0.15), strict=True)
    )
    tiles_seen = frozenset(
        (int(r), int(c)) for r, c in zip(*np.nonzero(np.nan_to_num(inner) > 0.97), strict=True)
    )
    return empty, tiles_seen


def _prefer_full(
    work: np.ndarray,
    dists: tuple[np.ndarray, np.ndarray],
    location: BoardLocation,
    texture: _TableTexture | None = None,
) -> BoardLocation:
    """A grid read short of a full kingdom along a faint axis, counted full when its seams
    allow it.

    Seams that barely show along one axis (under :data:`_ONE_AXIS_CLEAR`, with
    the other axis clear) fit a wrong count almost as well as the right one,
    and the fewer seams of a shorter count can happen to fall on marks inside
    the squares. Along such an axis, the count of a full kingdom (5, or 7 when
    the clear axis counts more than 5) is taken when its seams show at least
    :data:`_FULL_SHARE` as clearly as the count read, and at least
    :data:`_FAINT_SEAM_SCORE`. The outline stays; only the squares within it change.
    """
    found = location.shape  # axis 0 counts rows, axis 1 columns
    full = [STANDARD_SIZE if other <= STANDARD_SIZE else DUEL_SIZE for other in found[::-1]]
    if all(n >= f for n, f in zip(found, full, strict=True)):
        return location
    warped = _on_grid_canvas(work, location.corners)
    scores = [_count_scores(warped, axis, (found[axis], full[axis])) for axis in (0, 1)]
    counts = list(found)
    for axis in (0, 1):
        n, here, across = found[axis], scores[axis], scores[1 - axis][found[1 - axis]]
        if (
            n < full[axis]
            and across >= _ONE_AXIS_CLEAR
            and here[n] < _ONE_AXIS_CLEAR
            and here[full[axis]] >= max(_FULL_SHARE * here[n], _FAINT_SEAM_SCORE)
        ):
            counts[axis] = full[axis]
    shape = (counts[0], counts[1])
    if shape == location.shape:
        return location
    tiles, _, kept, _ = _cell_maps(dists, location.corners, *shape, texture)
    empty, tiles_seen = _seen_squares(tiles, kept, (0, shape[0], 0, shape[1]))
    return BoardLocation(
        location.corners, shape, empty, location.score, tiles_seen, location.trimmed
    )


def _row_beyond(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
    outside: np.ndarray,
    lit_out: np.ndarray,
) -> bool:
    """Whether the squares just beyond one side are a row of the kingdom.

    They are when they are tiles apart from the table in any light; when two or
    more are, or one wholly is, each ending in a sharp edge (a row with squares
    missing); when they are darker tiles, hard to tell from the table by
    colour, whose row ends in a sharp straight edge, not the table's texture
    (:func:`_table_texture`); or when they are tiles in line with the grid
    (:func:`_row_in_line`).
    """
    known = ~np.isnan(outside)
    strong = (np.nan_to_num(outside) > 0.9) & (np.nan_to_num(lit_out) > 0.5)
    if strong[known].mean() >= 0.8 and (lit_out[known] > 0.5).mean() >= 0.6:
        return True
    grown = _move(*extent, side, +1)
    if (
        np.nanmean(outside) >= 0.5
        and _edge_ratio(edges, grown, side) >= 0.6
        and not _table_texture(edges, grown, side, lit_out)
    ):
        return True
    if strong.any():
        segments = _outer_segments(edges, grown, side)
        current = _outer_segments(edges, extent, side)
        sharp = segments >= 0.3 * float(np.median(current))
        # A lone square must be wholly tile: a domino lying near the kingdom is not in line.
        whole = (np.nan_to_num(outside) > _WHOLE_TILE) & (np.nan_to_num(lit_out) > 0.7)
        if int((strong & sharp).sum()) >= 2 or bool((whole & sharp).any()):
            return True
    return _row_in_line(edges, grown, side, outside)


def _table_texture(
    edges: _GridEdges,
    grown: tuple[int, int, int, int],
    side: Side,
    lit_out: np.ndarray,
) -> bool:
    """Whether a row that is tile by colour only ends in no more than the table's texture.

    In shadow a patterned table (a cutting mat's printed lines) looks like dark
    tiles by colour and shows sharp lines; a square further out they are as
    sharp, where a real row's edge stands out above the table beyond it.
    """
    if np.nanmax(lit_out) >= 0.15:
        return False
    further = _edge_ratio(edges, _move(*grown, side, +1), side)
    return further >= _TEXTURE_RATIO


def _trim_to_square(
    lit: np.ndarray, extent: tuple[int, int, int, int]
) -> tuple[int, int, int, int]:
    """A 7×5 or 5×7 grid cut to the 5×5 kingdom when its extra lines are mostly table.

    A domino or a stray shape beside a kingdom can stretch its outline by two
    lines. The 5×5 window along the long side holding the most tile (``lit``:
    cell tileness with shadow and glare as table, ring included) is kept when
    every line left out is under :data:`_TRIM_SHARE` tile.
    """
    r0, r1, c0, c1 = extent
    rows, cols = r1 - r0, c1 - c0
    if sorted((rows, cols)) != [STANDARD_SIZE, DUEL_SIZE]:
        return extent
    inner = np.nan_to_num(lit[r0 + 1 : r1 + 1, c0 + 1 : c1 + 1])
    lines = inner.mean(axis=1) if rows > cols else inner.mean(axis=0)
    start = max(
        range(DUEL_SIZE - STANDARD_SIZE + 1),
        key=lambda k: float(lines[k : k + STANDARD_SIZE].sum()),
    )
    left_out = np.concatenate([lines[:start], lines[start + STANDARD_SIZE :]])
    if left_out.max() >= _TRIM_SHARE:
        return extent
    if rows > cols:
        return r0 + start, r0 + start + STANDARD_SIZE, c0, c1
    return r0, r1, c0 + start, c0 + start + STANDARD_SIZE


def _square_sides(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    tileness: tuple[np.ndarray, np.ndarray],
    limit: int,
) -> list[Side]:
    """The sides to grow by a row each that make the grid a whole kingdom's square.

    Kingdoms are squares of :data:`STANDARD_SIZE` or :data:`DUEL_SIZE`. A grid
    one row short of one, in one direction or in both, usually lost an edge row
    of squares that look like the table (lake on a blue mat, swamp on wood), so
    the weaker evidence of :func:`_square_row` suffices: across each short
    direction, of the sides whose outside squares pass it, the one whose squares
    are more tile-like grows (a strip of shadow along the other side may look
    more tile-like by colour, yet fail). A kingdom that truly lacks a row has
    bare table on both sides.
    """
    r0, r1, c0, c1 = extent
    rows, cols = r1 - r0, c1 - c0
    target = STANDARD_SIZE if max(rows, cols) <= STANDARD_SIZE else DUEL_SIZE
    if target > limit or max(rows, cols) > target or min(rows, cols) < target - 1:
        return []
    directions = []
    if rows == target - 1:
        directions.append((Side.TOP, Side.BOTTOM))
    if cols == target - 1:
        directions.append((Side.LEFT, Side.RIGHT))
    tiles, lit = tileness
    grow = []
    for sides in directions:
        found = []
        for side in sides:
            outside, _, length = _side_cells(tiles, r0, r1, c0, c1, side)
            lit_out, _, _ = _side_cells(lit, r0, r1, c0, c1, side)
            if np.count_nonzero(~np.isnan(outside)) >= 0.6 * length:
                mean, lit_mean = float(np.nanmean(outside)), float(np.nanmean(lit_out))
                grown = _move(*extent, side, +1)
                ratio = _edge_ratio(edges, grown, side, _ROW_SLACK)
                if _square_row(mean, lit_mean, ratio):
                    found.append((mean, side))
        if found:
            grow.append(max(found)[1])
    return grow


def _square_row(mean: float, lit_mean: float, ratio: float) -> bool:
    """Whether squares beyond a side, which would complete a square kingdom, are its row.

    They are when their row ends in an edge at least somewhat sharp and they
    are partly tile in any light, or mostly tile apart from the table (a row in
    shadow or glare, which the lit colours take for table); or when they are
    nearly half tile apart from the table and the row ends in an edge sharper
    than the side's own.
    """
    if ratio >= 0.4 and ((mean >= 0.15 and lit_mean >= 0.15) or mean >= 0.5):
        return True
    return mean >= 0.4 and ratio >= 1.0


def _row_not_kingdom(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
    edge: np.ndarray,
    lit_edge: np.ndarray,
) -> bool:
    """Whether the edge row along one side is table, shadow or glare, not the kingdom's.

    It is when no square of it is a tile; or, unless it holds a lone square
    (:func:`_lone_square`), tiles in line with the grid (:func:`_row_in_line`)
    or dark tiles ending in a sharp outer edge (:func:`_dark_row`), when no
    square is a tile once shadow and glare count as table, or when no square is
    a tile in any light and the row does not end in a sharp outer edge.
    """
    if np.nanmax(edge) < 0.2:
        return True
    ratio = _edge_ratio(edges, extent, side)
    if np.nanmax(lit_edge) >= 0.15 and (((edge > 0.8) & (lit_edge > 0.5)).any() or ratio >= 0.8):
        return False
    return not (
        _dark_row(edges, extent, side, edge, ratio)
        or _lone_square(edges, extent, side, edge)
        or _row_in_line(edges, extent, side, edge)
    )


def _dark_row(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
    edge: np.ndarray,
    ratio: float,
) -> bool:
    """Whether an edge row that only the shadow-blind colours see as tile is the kingdom's.

    Dark forests or mines in a large shadow match the table's shaded colours,
    so only the colours without shadow see them as tile; so does a strip of
    shadow along the side. The strip's edge is soft, a real row's outer edge is
    a sharp straight line against the table: it is when most of its squares
    are tile, its outer edge is :data:`_DARK_ROW_RATIO` times as sharp as the
    seam one square inside (``ratio``, :func:`_edge_ratio`), and a square
    further out shows no such line (a cutting mat's printed lines, see
    :func:`_table_texture`).
    """
    known = ~np.isnan(edge)
    if (np.nan_to_num(edge) > _DARK_ROW_TILE)[known].mean() < _DARK_ROW_SHARE:
        return False
    if ratio < _DARK_ROW_RATIO:
        return False
    return _edge_ratio(edges, _move(*extent, side, +1), side) < _DARK_ROW_BEYOND


def _lone_square(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
    edge: np.ndarray,
) -> bool:
    """Whether an edge row of one or two squares holds a whole tile with a sharp outer edge.

    Such a square may be as dark as the table in shadow; a strip of shadow along
    the side would cover the whole row, and its edge is soft.
    """
    edge = np.nan_to_num(edge)
    if (edge > 0.5).sum() > 2 or not (edge > 0.97).any():
        return False
    outer = _outer_segments(edges, extent, side)
    inner = _outer_segments(edges, _move(*extent, side, -1), side)
    return bool(((edge > 0.97) & (outer >= 0.5 * float(np.median(inner)))).any())


def _row_in_line(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
    edge: np.ndarray,
) -> bool:
    """Whether the edge row along one side holds tiles lying square on the grid, and bare table.

    An edge row of an unfinished kingdom may hold only a few tiles, as pale or
    dark as the table in some light. Each of its tile squares ends in a sharp edge along
    the grid's outer line, and each run of them ends in a sharp edge along a
    grid line across the row where bare table follows: the tiles line up with
    the kingdom's columns. A loose domino lying near the kingdom is not in line
    with them, and a strip of shadow or glare has soft edges.
    """
    edge = np.nan_to_num(edge, nan=0.5)
    tile = edge > _IN_LINE_TILE
    table = edge < _IN_LINE_TABLE
    if not tile.any() or not table.any() or not (tile | table).all():
        return False
    inner = _outer_segments(edges, _move(*extent, side, -1), side)
    outer = _outer_segments(edges, extent, side)
    # Sharp against the grid line inside, and against the table's own texture.
    sharp = max(
        _IN_LINE_SHARP * float(np.median(inner)),
        _ABOVE_TABLE * float(np.median(outer[table])),
    )
    across = _cross_segments(edges, extent, side)
    before = np.concatenate([[True], table[:-1]])  # table (or the grid's end) before a square
    after = np.concatenate([table[1:], [True]])
    ends = np.where(before, across[:-1], np.inf), np.where(after, across[1:], np.inf)
    return bool(np.all(~tile | ((outer >= sharp) & (ends[0] >= sharp) & (ends[1] >= sharp))))


def _cross_segments(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
) -> np.ndarray:
    """Edge strength of the grid lines across the edge row along one side, ends included."""
    r0, r1, c0, c1 = extent
    if side in (Side.TOP, Side.BOTTOM):
        r = r0 if side == Side.TOP else r1 - 1
        ends = [((c, r), (c, r + 1)) for c in range(c0, c1 + 1)]
    else:
        c = c0 if side == Side.LEFT else c1 - 1
        ends = [((c, r), (c + 1, r)) for r in range(r0, r1 + 1)]
    return _segment_strengths(edges, ends)


def _outer_segments(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
) -> np.ndarray:
    """Edge strength of the outer grid line of one side, square by square."""
    r0, r1, c0, c1 = extent
    if side in (Side.TOP, Side.BOTTOM):
        y = r0 if side == Side.TOP else r1
        ends = [((c, y), (c + 1, y)) for c in range(c0, c1)]
    else:
        x = c0 if side == Side.LEFT else c1
        ends = [((x, r), (x, r + 1)) for r in range(r0, r1)]
    return _segment_strengths(edges, ends)


def _segment_strengths(
    edges: _GridEdges,
    ends: list[tuple[tuple[int, int], tuple[int, int]]],
) -> np.ndarray:
    """Edge strength of each grid segment (ends in grid ``(x, y)``), mapped into the photo."""
    pts = cv2.perspectiveTransform(np.array(ends, np.float32).reshape(-1, 1, 2), edges.to_photo)
    pts = pts.reshape(-1, 2, 2).astype(np.float64)
    return np.array([_line_strength(edges.gradients, a, b) for a, b in pts])


def _edge_ratio(
    edges: _GridEdges,
    extent: tuple[int, int, int, int],
    side: Side,
    slack: float = 0.0,
) -> float:
    """How sharp one side's outer grid line is, against the grid line one square inside.

    A real row of tiles ends in a sharp straight edge against the table; a strip
    of shadow, glare or a stray line taken for a row does not. ``slack`` (in
    squares) lets the outer line be looked for that far either way of where the
    grid puts it, the sharpest place counting: a grid extended by a row beyond
    the squares it was measured on may miss that row's edge by a little.
    """
    r0, r1, c0, c1 = extent
    shifts = np.arange(-slack, slack + 1e-9, _SLACK_STEP) if slack > 0 else np.zeros(1)
    outward = -1 if side in (Side.TOP, Side.LEFT) else 1
    across = side in (Side.TOP, Side.BOTTOM)
    outer, inner = {
        Side.TOP: (r0, r0 + 1),
        Side.BOTTOM: (r1, r1 - 1),
        Side.LEFT: (c0, c0 + 1),
        Side.RIGHT: (c1, c1 - 1),
    }[side]
    start, end = (c0, c1) if across else (r0, r1)
    places = [outer + outward * float(s) for s in shifts] + [float(inner)]
    lines = [((start, at), (end, at)) if across else ((at, start), (at, end)) for at in places]
    strength = []
    for a, b in lines:
        ends = cv2.perspectiveTransform(np.array([[a, b]], np.float32), edges.to_photo)[0]
        strength.append(_line_strength(edges.gradients, ends[0].astype(np.float64), ends[1]))
    return max(strength[:-1]) / max(strength[-1], 1e-6)


def _line_strength(gradients: tuple[np.ndarray, np.ndarray], a: np.ndarray, b: np.ndarray) -> float:
    """Median edge strength across the segment ``a``–``b`` (within a pixel or two of it)."""
    gx, gy = gradients
    h, w = gx.shape[:2]
    d = b - a
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-9)
    n = np.array([u[1], -u[0]])
    t = np.linspace(0.05, 0.95, 48)
    offsets = np.arange(-2, 3)
    pts = a[None, None, :] + (t[:, None, None] * d) + offsets[None, :, None] * n
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    across = np.abs(gx[ys, xs] * n[0] + gy[ys, xs] * n[1]).sum(axis=-1)
    return float(np.median(across.max(axis=1)))


def _move(r0: int, r1: int, c0: int, c1: int, side: Side, by: int) -> tuple[int, int, int, int]:
    if side == Side.TOP:
        return r0 - by, r1, c0, c1
    if side == Side.BOTTOM:
        return r0, r1 + by, c0, c1
    if side == Side.LEFT:
        return r0, r1, c0 - by, c1
    return r0, r1, c0, c1 + by


def _side_cells(
    tiles: np.ndarray, r0: int, r1: int, c0: int, c1: int, side: Side
) -> tuple[np.ndarray, np.ndarray, int]:
    """Tileness of the cells just outside one side, and of the edge row along it."""
    t = tiles  # index offset 1: grid row r is tiles[r + 1]
    nr, nc = t.shape
    if side in (Side.TOP, Side.BOTTOM):
        r_out = r0 - 1 if side == Side.TOP else r1
        r_edge = r0 if side == Side.TOP else r1 - 1
        cs = slice(c0 + 1, c1 + 1)
        outside = t[r_out + 1, cs] if 0 <= r_out + 1 < nr else np.full(c1 - c0, np.nan)
        return outside, t[r_edge + 1, cs], c1 - c0
    c_out = c0 - 1 if side == Side.LEFT else c1
    c_edge = c0 if side == Side.LEFT else c1 - 1
    rs = slice(r0 + 1, r1 + 1)
    outside = t[rs, c_out + 1] if 0 <= c_out + 1 < nc else np.full(r1 - r0, np.nan)
    return outside, t[rs, c_edge + 1], r1 - r0


def _cell_tileness(dist: np.ndarray, quad: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Share of each square (and of a ring of squares around the grid) unlike the table.

    NaN where a square falls outside the photo.
    """
    return _per_cell(
        dist, quad, rows, cols, lambda cell: float((cell > _CELL_TILE_DISTANCE).mean())
    )


def _per_cell(
    values: np.ndarray,
    quad: np.ndarray,
    rows: int,
    cols: int,
    measure: Callable[[np.ndarray], float],
) -> np.ndarray:
    """``measure`` of the non-negative ``values`` inside each square, and a ring around the grid.

    NaN where a square falls outside the photo.
    """
    px = 16
    g = cv2.getPerspectiveTransform(
        np.array(
            [
                [px, px],
                [(cols + 1) * px, px],
                [(cols + 1) * px, (rows + 1) * px],
                [px, (rows + 1) * px],
            ],
            np.float32,
        ),
        quad.astype(np.float32),
    )
    size = ((cols + 2) * px, (rows + 2) * px)
    warped = cv2.warpPerspective(
        values,
        g,
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=-1.0,
    )
    out = np.full((rows + 2, cols + 2), np.nan)
    m = px // 6
    for r in range(rows + 2):
        for c in range(cols + 2):
            cell = warped[r * px + m : (r + 1) * px - m, c * px + m : (c + 1) * px - m]
            valid = cell >= 0
            if valid.mean() > 0.7:
                out[r, c] = measure(cell[valid])
    return out


@dataclass(frozen=True)
class _TableTexture:
    """The table's fine pattern: where the work image shows thin bright lines or specks.

    Attributes
    ----------
    ridges : ndarray of float32
        Share of the pixels around each pixel (:data:`_RIDGE_WINDOW`) that are
        brighter than their surroundings by a share of their lightness: a
        printed line, a carpet's speck. Averaged before a square is warped
        small, so that no thin line falls between the samples.
    density : float
        Share of such pixels along the photo's border (median of the four sides).
    """

    ridges: np.ndarray
    density: float


def _table_texture_map(work: np.ndarray) -> _TableTexture | None:
    """The table's fine pattern, or None when the table shows too little of one.

    A cutting mat's printed lines, a carpet's or a cloth's specks cover the
    table densely, in shadow as in light, where a tile's artwork at the same
    scale is smooth or sparsely marked: a blue lake on a blue mat differs by
    its lack of lines, not by its colour. The thin bright parts are measured
    against the local lightness, so shade does not hide them. A pattern that
    does not cover the whole border evenly (wood grain) is no cue.
    """
    lightness = cv2.cvtColor(work, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_RIDGE_SIDE, _RIDGE_SIDE))
    tophat = lightness - cv2.morphologyEx(lightness, cv2.MORPH_OPEN, kernel)
    local = cv2.blur(lightness, (3 * _RIDGE_SIDE, 3 * _RIDGE_SIDE))
    ridges = (tophat > np.maximum(_RIDGE_FLOOR, _RIDGE_CONTRAST * local)).astype(np.float32)
    top, bottom, left, right = _border_bands(ridges)
    sides = (top, bottom, left.T, right.T)  # each band × its length
    density = float(np.median([side.mean() for side in sides]))
    if density < _MIN_TABLE_RIDGES:
        return None
    # The pattern must cover the whole table: wood grain comes and goes.
    blocks = [
        side[:, i : i + _BORDER_BLOCK].mean()
        for side in sides
        for i in range(0, side.shape[1] - _BORDER_BLOCK + 1, _BORDER_BLOCK)
    ]
    if not blocks or np.percentile(blocks, 10) < _EVEN_PATTERN * np.median(blocks):
        return None
    return _TableTexture(cv2.blur(ridges, (_RIDGE_WINDOW, _RIDGE_WINDOW)), density)


def _cell_plainness(texture: _TableTexture, quad: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """How far each square (ring included) lacks the table's pattern, from 0 to 1.

    1 where its ridge density is under :data:`_PLAIN_BELOW` of the table's, 0 from
    :data:`_PATTERNED_ABOVE` of it up, linear between; NaN outside the photo.
    """
    density = _per_cell(texture.ridges, quad, rows, cols, np.mean) / texture.density
    return np.clip((_PATTERNED_ABOVE - density) / (_PATTERNED_ABOVE - _PLAIN_BELOW), 0.0, 1.0)


def _on_grid_canvas(work: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The inside of a quadrilateral of the work image, warped to the square grid canvas."""
    h = _to_grid_canvas(quad)
    canvas = _GRID_CANVAS
    return np.asarray(cv2.warpPerspective(work, h, (canvas, canvas), flags=cv2.INTER_LINEAR))


def _to_grid_canvas(quad: np.ndarray) -> np.ndarray:
    """Homography from the work image to the grid canvas of a quadrilateral."""
    canvas = _GRID_CANVAS
    dst = np.array([[0, 0], [canvas, 0], [canvas, canvas], [0, canvas]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(quad.astype(np.float32), dst))


def _onto_seams(
    work: np.ndarray,
    gradients: tuple[np.ndarray, np.ndarray],
    location: BoardLocation,
    grid: int | None,
) -> BoardLocation:
    """A faint outline moved onto the seams inside it, if that shows a clear grid.

    An outline drawn round an irregular tile area (empty squares along an edge,
    a shadow joined to the tiles) can be a fraction of a square off at a corner,
    so that the seams inside cross the canvas aslant and none is clear. The
    seams are where they are, though: :func:`_lattice_quad` fits the grid's
    lines to them and the outer sides are then snapped onto the nearest edges.
    The result is kept only if it shows a clear grid of the same shape.
    """
    best = location
    for _ in range(_LATTICE_ROUNDS):
        quad = _lattice_quad(work, best.corners, best.shape)
        if quad is None:
            break
        moved = _locate(
            work, _refine_quad(gradients, quad, reaches=(0.015,)), grid=grid, require_grid=False
        )
        if moved is None or moved.shape != location.shape or moved.score <= best.score:
            break
        best = moved
    return best if best.score >= _MIN_SEAM_SCORE else location


def _lattice_quad(work: np.ndarray, quad: np.ndarray, shape: tuple[int, int]) -> np.ndarray | None:
    """The outline of the ``shape`` grid whose inner lines best fit the seams inside ``quad``.

    In each of :data:`_LATTICE_BANDS` bands across the grid canvas, each inner
    seam is looked for near its expected place; the places found are matched
    to their grid lines by a robust homography, which gives the outline. None
    when too few seams show or the outline is not convex.
    """
    rows, cols = shape
    canvas = _GRID_CANVAS
    gray = cv2.cvtColor(_on_grid_canvas(work, quad), cv2.COLOR_BGR2GRAY).astype(np.float32)
    on_grid: list[tuple[float, float]] = []
    on_canvas: list[tuple[float, float]] = []
    band = canvas / _LATTICE_BANDS
    for axis, count, across in ((1, cols, rows), (0, rows, cols)):
        grad = _seam_gradient(gray, axis)
        step = canvas / count
        reach = max(2, int(_LATTICE_REACH * step))
        for b in range(_LATTICE_BANDS):
            profile = _seam_profile(grad[int(b * band) : int((b + 1) * band)])
            typical = max(float(np.median(profile)), _MIN_TYPICAL_GRADIENT)
            middle = (b + 0.5) * band
            for k in range(1, count):
                place = _peak_near(profile, round(k * step), reach, _LATTICE_PEAK * typical)
                if place is None:
                    continue
                if axis == 1:  # a column seam: x = place at the band's middle row
                    on_grid.append((k, middle / canvas * across))
                    on_canvas.append((place, middle))
                else:
                    on_grid.append((middle / canvas * across, k))
                    on_canvas.append((middle, place))
    if len(on_grid) < 8:
        return None
    grid_points, seen = np.array(on_grid, np.float32), np.array(on_canvas, np.float32)
    h, inliers = cv2.findHomography(grid_points, seen, cv2.RANSAC, _LATTICE_TOLERANCE)
    if h is None or inliers is None or int(inliers.sum()) < 8:
        return None
    corners = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32).reshape(-1, 1, 2)
    to_work = np.linalg.inv(_to_grid_canvas(quad))
    back = cv2.perspectiveTransform(cv2.perspectiveTransform(corners, h), to_work)
    if not cv2.isContourConvex(back):
        return None
    return order_corners(back.reshape(4, 2).astype(np.float64))


def _seam_lattice_guesses(
    work: np.ndarray, quads: Sequence[np.ndarray], lit_mask: np.ndarray, grid: int | None
) -> list[np.ndarray]:
    """Outlines of a grid laid on the lattice of seams and edges in an area of tiles.

    When shadow or dark squares break the tile mask into pieces, no outline of
    the area fits the kingdom, but the pieces are squares of its grid: their
    edges and the seams between them run two ways, a square apart. The grid's
    orientation is the dominant direction of the strong edges near the tiles
    (angles taken modulo 90°); turned upright, the gradient across each axis,
    summed along it, peaks once per square (:func:`_comb_phase`). Grids of a
    full kingdom's side are laid on that lattice where they cover the most
    tiles: the two best places each way for 5×5, the best for 7×7 (one of
    ``grid`` squares when the player set it). They are only guesses: each is
    measured and chosen among like any other outline.
    """
    points = np.vstack([q.reshape(-1, 2) for q in quads]).astype(np.float32)
    hull = cv2.convexHull(points)
    size = float(np.sqrt(max(cv2.contourArea(hull), 1.0)))
    bx, by, bw, bh = cv2.boundingRect(hull)
    margin = int(_SEAM_LATTICE_MARGIN * size)
    height, width = work.shape[:2]
    x0, y0 = max(0, bx - margin), max(0, by - margin)
    x1, y1 = min(width, bx + bw + margin), min(height, by + bh + margin)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    gray = cv2.cvtColor(work[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    region = np.zeros(gray.shape, np.uint8)
    cv2.fillConvexPoly(region, np.round(hull.reshape(-1, 2) - [x0, y0]).astype(np.int32), 1)
    tiles = (lit_mask[y0:y1, x0:x1] > 0).astype(np.uint8)
    near_tiles = region * cv2.dilate(tiles, np.ones((5, 5), np.uint8))
    weight = near_tiles if near_tiles.sum() >= 50 else region
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.hypot(gx, gy) * weight
    if not np.any(magnitude > 0):
        return []
    strong = magnitude > np.quantile(magnitude[weight > 0], _SEAM_LATTICE_EDGES)
    direction = (magnitude[strong] * np.exp(4j * np.arctan2(gy[strong], gx[strong]))).sum()
    turn = cv2.getRotationMatrix2D(
        ((x1 - x0) / 2, (y1 - y0) / 2), float(np.degrees(np.angle(direction) / 4)), 1.0
    )
    dsize = (x1 - x0, y1 - y0)
    upright = cv2.warpAffine(gray, turn, dsize, flags=cv2.INTER_LINEAR)
    inside = cv2.warpAffine(region, turn, dsize, flags=cv2.INTER_NEAREST).astype(np.float32)
    covered = cv2.warpAffine(tiles, turn, dsize, flags=cv2.INTER_NEAREST).astype(np.float64)
    across_x = _seam_gradient(upright, axis=1) * inside
    across_y = _seam_gradient(upright, axis=0).T * inside
    profiles = (
        across_x.sum(axis=0) / np.maximum(inside.sum(axis=0), 1.0),
        across_y.sum(axis=1) / np.maximum(inside.sum(axis=1), 1.0),
    )
    smooth = max(3, int(size / 8) | 1)
    profiles = tuple(p - np.convolve(p, np.ones(smooth) / smooth, mode="same") for p in profiles)
    least, most = (share * size for share in _SEAM_LATTICE_PERIODS)
    best = max(
        (
            (fx[0] + fy[0], step, fx[1], fy[1])
            for step in np.arange(max(least, 4.0), most, 0.5)
            for fx, fy in [(_comb_phase(profiles[0], step), _comb_phase(profiles[1], step))]
        ),
        default=None,
    )
    if best is None:
        return []
    _, step, phase_x, phase_y = best
    back = cv2.invertAffineTransform(turn)
    guesses = []
    for n, places in ((grid, 1),) if grid is not None else ((STANDARD_SIZE, 2), (DUEL_SIZE, 1)):
        for xa, xb in _best_spans(covered.sum(axis=0), phase_x, step, n, places):
            for ya, yb in _best_spans(covered.sum(axis=1), phase_y, step, n, places):
                upright_quad = np.array([[xa, ya, 1], [xb, ya, 1], [xb, yb, 1], [xa, yb, 1]], float)
                guesses.append(order_corners(upright_quad @ back.T + [x0, y0]))
    return guesses


def _too_bare(location: BoardLocation) -> bool:
    """Whether a third or more of the squares of a grid look like bare table.

    A grid laid on a lattice of seams (:func:`_seam_lattice_guesses`) must show
    its tiles: a kingdom is built of dominoes, few of them discarded, while wood
    grain, or a cutting mat's lines beside a loose domino, make a lattice too, but
    over bare table; and a 7×7 grid laid round a 5×5 kingdom is half table.

    >>> _too_bare(BoardLocation(np.zeros((4, 2)), (3, 3), frozenset({(0, 0), (1, 1)})))
    False
    >>> _too_bare(BoardLocation(np.zeros((4, 2)), (3, 3), frozenset({(0, 0), (1, 1), (2, 2)})))
    True
    """
    rows, cols = location.shape
    return 3 * len(location.empty) >= rows * cols


def _comb_phase(profile: np.ndarray, step: float) -> tuple[float, float]:
    """How strongly ``profile`` peaks every ``step`` pixels, and where the first peak is.

    The sum of the profile (centred on zero) at every ``step`` from the best
    phase: a lattice twice as fine adds the troughs between, one twice as
    coarse misses half the peaks, so the true step sums highest.

    >>> profile = np.zeros(100)
    >>> profile[[7, 27, 47, 67, 87]] = 1.0
    >>> score, phase = _comb_phase(profile - profile.mean(), 20.0)
    >>> round(phase), round(score, 2)
    (7, 4.75)
    """
    n = len(profile)
    phases = np.arange(0.0, step, 1.0)
    places = phases[:, None] + step * np.arange(int(n / step) + 1)[None, :]
    valid = places < n - 1
    low = np.minimum(np.floor(places).astype(int), n - 2)
    frac = places - low
    values = profile[low] * (1 - frac) + profile[low + 1] * frac
    sums = np.where(valid, values, 0.0).sum(axis=1)
    i = int(sums.argmax())
    return float(sums[i]), float(phases[i])


def _best_spans(
    coverage: np.ndarray, phase: float, step: float, n: int, places: int
) -> list[tuple[float, float]]:
    """The ``places`` spans of ``n`` lattice steps that cover the most tiles.

    >>> _best_spans(np.r_[np.zeros(10), np.ones(50), np.zeros(40)], 0.0, 10.0, 5, 2)
    [(10.0, 60.0), (0.0, 50.0)]
    """
    size = len(coverage)
    spans = []
    for k in range(-int(phase // step) - 1, int(size / step) + 1):
        a, b = phase + k * step, phase + (k + n) * step
        lo, hi = max(0, int(a)), min(size, int(b))
        spans.append((float(coverage[lo:hi].sum()) if hi > lo else 0.0, a, b))
    spans.sort(key=lambda s: -s[0])
    return [(float(a), float(b)) for _, a, b in spans[:places]]


def _peak_near(profile: np.ndarray, centre: int, reach: int, least: float) -> float | None:
    """Sub-pixel place of the highest point of ``profile`` within ``reach`` of ``centre``,
    if it reaches ``least``."""
    lo = max(0, centre - reach)
    segment = profile[lo : centre + reach + 1]
    i = int(segment.argmax())
    if segment[i] < least:
        return None
    place = float(lo + i)
    if 0 < i < len(segment) - 1:
        curve = segment[i - 1] - 2 * segment[i] + segment[i + 1]
        if curve < 0:
            place += 0.5 * (segment[i - 1] - segment[i + 1]) / curve
    return place


def _locate(
    work: np.ndarray,
    quad: np.ndarray,
    *,
    grid: int | None,
    require_grid: bool,
) -> BoardLocation | None:
    """Measure the grid inside one quadrilateral of the work image."""
    warped = _on_grid_canvas(work, quad)
    cols, col_score = _seam_count(warped, axis=1, forced=grid)
    rows, row_score = _seam_count(warped, axis=0, forced=grid)
    score = min(col_score, row_score)
    if require_grid and grid is None and score < _MIN_SEAM_SCORE:
        return None
    return BoardLocation(corners=quad, shape=(rows, cols), score=score)


def _one_axis_clear(work: np.ndarray, location: BoardLocation) -> bool:
    """Whether a grid too faint to count is clear along one axis and faint along the other.

    A blurred or dim kingdom often shows its seams clearly one way only (the
    light falls along them, or dark squares meet the other way); a patch of
    bare table shows faint seams, if any, both ways.
    """
    if location.score < _FAINT_SEAM_SCORE:
        return False
    warped = _on_grid_canvas(work, location.corners)
    rows, cols = location.shape
    clearer = max(_seam_count(warped, 0, rows)[1], _seam_count(warped, 1, cols)[1])
    return clearer >= _ONE_AXIS_CLEAR


def _seam_count(warped: np.ndarray, axis: int, forced: int | None) -> tuple[int, float]:
    """How many squares lie along one axis of a rectified board, and how clear its seams are.

    ``axis=1`` counts columns (seams are vertical lines), ``axis=0`` rows.
    """
    candidates = [forced] if forced is not None else list(range(MIN_SIDE + 1, MAX_SIZE + 1))
    scores = _count_scores(warped, axis, candidates)
    best_n, best = candidates[0], -np.inf
    for n in candidates:
        s = scores[n]
        if s > best * 1.03 or (s > best * 0.97 and n > best_n):
            best_n, best = n, s
    return best_n, best


def _count_scores(warped: np.ndarray, axis: int, counts: Sequence[int]) -> dict[int, float]:
    """How clear the seams of a grid of each of ``counts`` squares along one axis are."""
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # The median across the seams is taken over every other line: as robust, half the cost.
    profile = _seam_profile(_seam_gradient(gray, axis)[::2])
    size = len(profile)
    # A flat outline (a plain table, a blown-out patch) has almost no typical gradient: the
    # floor keeps a faint line there from counting as a clear seam.
    typical = max(float(np.median(profile)), _MIN_TYPICAL_GRADIENT)
    scores = {}
    for n in counts:
        step = size / n
        window = max(2, int(0.08 * step))
        peaks = []
        for k in range(1, n):
            c = round(k * step)
            peaks.append(profile[max(0, c - window) : c + window + 1].max())
        # A seam must show along most of the grid: use a low quantile, not the mean.
        scores[n] = float(np.quantile(peaks, 0.25)) / typical
    return scores


def _seam_gradient(gray: np.ndarray, axis: int) -> np.ndarray:
    """Gradient magnitude across the seams of one axis, one line of the grid canvas per row:
    ``axis=1`` for the column seams (as the canvas is), ``axis=0`` for the row seams
    (transposed)."""
    if axis == 1:
        return np.abs(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3))
    return np.abs(cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)).T


def _seam_profile(lines: np.ndarray) -> np.ndarray:
    """Median over lines of :func:`_seam_gradient`, lightly smoothed: seams are its peaks."""
    return np.convolve(np.median(lines, axis=0), np.ones(3) / 3, mode="same")


def _whole_image(work: np.ndarray, grid: int | None) -> BoardLocation | None:
    """The photo itself as one kingdom, when it is a cropped, rectified board."""
    h, w = work.shape[:2]
    if not 0.6 <= w / h <= 1.67:
        return None
    lab = _lab(work)
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    if (chroma > 15).mean() < 0.5:
        return None
    quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    return _locate(work, quad, grid=grid, require_grid=True)


def _apart(locations: list[BoardLocation]) -> list[BoardLocation]:
    """Kingdoms that do not overlap, earlier first: an area may be tried whole and in parts."""
    kept: list[BoardLocation] = []
    for loc in locations:
        if not any(_overlap(loc, other) for other in kept):
            kept.append(loc)
    return kept


def _overlap(a: BoardLocation, b: BoardLocation) -> bool:
    """Whether either kingdom's centre lies inside the other."""
    for inner, outer in ((a, b), (b, a)):
        centre = inner.corners.mean(axis=0)
        contour = outer.corners.astype(np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(contour, (float(centre[0]), float(centre[1])), False) >= 0:
            return True
    return False


def _reading_order(locations: list[BoardLocation]) -> list[BoardLocation]:
    """Sort kingdoms left to right within rows, rows top to bottom."""
    items = sorted(locations, key=lambda loc: float(loc.corners[:, 1].mean()))
    rows: list[list[BoardLocation]] = []
    for loc in items:
        cy = float(loc.corners[:, 1].mean())
        if rows:
            first = rows[-1][0]
            if first.corners[:, 1].min() <= cy <= first.corners[:, 1].max():
                rows[-1].append(loc)
                continue
        rows.append([loc])
    return [loc for row in rows for loc in sorted(row, key=lambda c: float(c.corners[:, 0].mean()))]
