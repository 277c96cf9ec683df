"""The grid's extent: whole rows and columns added or dropped until the grid covers the tiles.

:func:`fit_extent` runs :data:`STEPS` in order: the first drops each edge row
that is no part of the kingdom and adds each row beyond a side that is (by the
rules of :mod:`scorer.detect.rows`), the next trim a 7×5 grid to its 5×5
kingdom and complete a grid one row short of a square kingdom.
:func:`prefer_full` then counts a faint axis full where its seams allow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.detect.edges import Extent, GridEdges, edge_ratio
from scorer.detect.geometry import BoardLocation, Side, grid_homography, move, order_corners
from scorer.detect.params import ExtentParams
from scorer.detect.rows import Row, row_beyond, row_not_kingdom
from scorer.detect.seams import count_scores, on_grid_canvas, refine_quad
from scorer.detect.table import cell_maps
from scorer.detect.view import View
from scorer.rules.kingdom import DUEL_SIZE, MAX_SIZE, STANDARD_SIZE, Position


def settle(view: View, location: BoardLocation) -> BoardLocation:
    """An outline grown or shrunk to its tiles, its count made full where seams allow.

    Parameters
    ----------
    view : View
    location : BoardLocation
        A measured outline in the work image.

    Returns
    -------
    BoardLocation
        With ``empty``, ``tiles`` and ``trimmed`` filled in.
    """
    located = fit_extent(view, location)
    return located if view.grid is not None else prefer_full(view, located)


@dataclass(frozen=True, eq=False)
class Fit:
    """A grid whose extent is being fitted: what the steps of :func:`fit_extent` measure.

    Attributes
    ----------
    view : View
    edges : GridEdges
        The work image's edges in the grid's coordinates.
    shape : tuple of int
        ``(rows, columns)`` of the grid measured.
    maps : tuple of ndarray
        Tileness of its squares and a ring round them (:func:`scorer.detect.table.cell_maps`):
        by colour, with shadow and glare as table, and each with squares
        lacking the table's pattern as tile (``kept``, ``kept_lit``).
    """

    view: View
    edges: GridEdges
    shape: tuple[int, int]
    maps: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    @property
    def limit(self) -> int:
        """The most squares along a side: the player's grid, or the largest kingdom's."""
        return self.view.grid if self.view.grid is not None else MAX_SIZE


Step = Callable[[Fit, Extent], tuple[Extent, bool]]
"""One step of :func:`fit_extent`: the extent after it, and whether it changed the grid."""


def fit_extent(view: View, location: BoardLocation) -> BoardLocation:
    """Grow or shrink the grid by whole rows and columns to cover exactly the tiles.

    A row of dark squares on a dark table may be missing from the tile mask, and
    a domino touching the kingdom, or a shadow or glare beside it, may stretch the
    outline: the squares just outside and along each side decide, through the
    :data:`STEPS` in turn. The distances from the table colours, without and with
    shadow and glare, both count: a row grows only where both see tiles, and
    shrinks where either sees table. On a table with a fine, even pattern
    (``view.texture``), squares without it are tile to both, whatever their colour
    (:func:`scorer.detect.table.cell_plainness`), where an edge row is kept and
    empty squares are named, but not where the grid grows: the pattern fades in
    places (glare on a carpet).
    """
    rows, cols = location.shape
    quad = location.corners
    params = view.params
    maps = cell_maps(view.dists, quad, (rows, cols), view.texture, params.table)
    to_photo = grid_homography(quad, (rows, cols))
    fit = Fit(view, GridEdges(view.gradients, to_photo, params), (rows, cols), maps)
    extent: Extent = (0, rows, 0, cols)
    changed = False
    for _, step in STEPS:
        extent, moved = step(fit, extent)
        changed = changed or moved
    empty, tiles_seen = seen_squares(maps[0], maps[2], extent, params.extent)
    if not changed:
        return BoardLocation(quad, (rows, cols), empty, location.score, tiles_seen)
    r0, r1, c0, c1 = extent
    grid_pts = np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1]], np.float32).reshape(-1, 1, 2)
    new_quad = cv2.perspectiveTransform(grid_pts, to_photo).reshape(4, 2).astype(np.float64)
    new_quad = refine_quad(view, new_quad, narrow=True)
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


def prefer_full(view: View, location: BoardLocation) -> BoardLocation:
    """A grid read short of a full kingdom along a faint axis, counted full when its seams
    allow it.

    Seams that barely show along one axis (under ``seams.one_axis_clear``, with
    the other axis clear) fit a wrong count almost as well as the right one,
    and the fewer seams of a shorter count can happen to fall on marks inside
    the squares. Along such an axis, the count of a full kingdom (5, or 7 when
    the clear axis counts more than 5) is taken when its seams show at least
    ``seams.full_share`` as clearly as the count read, and at least
    ``seams.faint_seam_score``. The outline stays; only the squares within it change.
    """
    p = view.params.seams
    found = location.shape  # axis 0 counts rows, axis 1 columns
    full = [STANDARD_SIZE if other <= STANDARD_SIZE else DUEL_SIZE for other in found[::-1]]
    if all(n >= f for n, f in zip(found, full, strict=True)):
        return location
    warped = on_grid_canvas(view.work, location.corners, view.params.work.grid_canvas)
    scores = [count_scores(warped, axis, (found[axis], full[axis]), p) for axis in (0, 1)]
    counts = list(found)
    for axis in (0, 1):
        n, here, across = found[axis], scores[axis], scores[1 - axis][found[1 - axis]]
        if (
            n < full[axis]
            and across >= p.one_axis_clear
            and here[n] < p.one_axis_clear
            and here[full[axis]] >= max(p.full_share * here[n], p.faint_seam_score)
        ):
            counts[axis] = full[axis]
    shape = (counts[0], counts[1])
    if shape == location.shape:
        return location
    tiles, _, kept, _ = cell_maps(
        view.dists, location.corners, shape, view.texture, view.params.table
    )
    empty, tiles_seen = seen_squares(tiles, kept, (0, shape[0], 0, shape[1]), view.params.extent)
    return BoardLocation(
        location.corners, shape, empty, location.score, tiles_seen, location.trimmed
    )


def seen_squares(
    tiles: np.ndarray, kept: np.ndarray, extent: Extent, p: ExtentParams
) -> tuple[frozenset[Position], frozenset[Position]]:
    """The squares of ``extent`` (in the ring's grid) that look like bare table, and
    those clearly covered by a tile."""
    r0, r1, c0, c1 = extent
    inner = tiles[r0 + 1 : r1 + 1, c0 + 1 : c1 + 1]
    # A square without the table's pattern is not bare table, whatever its colour.
    bare = kept[r0 + 1 : r1 + 1, c0 + 1 : c1 + 1]
    empty = frozenset(
        (int(r), int(c))
        for r, c in zip(*np.nonzero(np.nan_to_num(bare) < p.bare_below), strict=True)
    )
    tiles_seen = frozenset(
        (int(r), int(c))
        for r, c in zip(*np.nonzero(np.nan_to_num(inner) > p.tile_above), strict=True)
    )
    return empty, tiles_seen


def _edge_rows(fit: Fit, extent: Extent) -> tuple[Extent, bool]:
    """Drop each edge row that is no part of the kingdom, add each row beyond that is,
    side by side, for up to ``rounds`` rounds; the grid stays within the measured ring."""
    p, grid = fit.view.params, fit.view.grid
    rows, cols = fit.shape
    tiles, lit, kept, kept_lit = fit.maps
    r0, r1, c0, c1 = extent
    changed = False
    for _ in range(p.extent.rounds):
        step = False
        for side in (Side.TOP, Side.BOTTOM, Side.LEFT, Side.RIGHT):
            outside, _, length = _side_cells(tiles, r0, r1, c0, c1, side)
            lit_out, _, _ = _side_cells(lit, r0, r1, c0, c1, side)
            _, edge, _ = _side_cells(kept, r0, r1, c0, c1, side)
            _, lit_edge, _ = _side_cells(kept_lit, r0, r1, c0, c1, side)
            span = (r1 - r0) if side in (Side.TOP, Side.BOTTOM) else (c1 - c0)
            here = (r0, r1, c0, c1)
            # A side whose edge row is no part of the kingdom does not grow past it.
            if (
                span > p.min_side
                and grid is None
                and row_not_kingdom(Row(fit.edges, here, side, edge, lit_edge))
            ):
                r0, r1, c0, c1 = move(r0, r1, c0, c1, side, -1)
                step = changed = True
            elif (
                span < fit.limit
                and np.count_nonzero(~np.isnan(outside)) >= p.extent.known_share * length
                and row_beyond(Row(fit.edges, move(*here, side, +1), side, outside, lit_out))
            ):
                r0, r1, c0, c1 = move(r0, r1, c0, c1, side, +1)
                step = changed = True
        if not step:
            break
        # Stay within the measured ring of cells.
        r0, r1 = max(r0, -1), min(r1, rows + 1)
        c0, c1 = max(c0, -1), min(c1, cols + 1)
    return (r0, r1, c0, c1), changed


def _trim_step(fit: Fit, extent: Extent) -> tuple[Extent, bool]:
    """:func:`_trim_to_square`, unless the player set the grid."""
    if fit.view.grid is not None:
        return extent, False
    trimmed = _trim_to_square(fit.maps[1], extent, fit.view.params.extent)
    return trimmed, trimmed != extent


def _square_step(fit: Fit, extent: Extent) -> tuple[Extent, bool]:
    """Grow by the sides of :func:`_square_sides`."""
    sides = _square_sides(fit, extent)
    for side in sides:
        extent = move(*extent, side, +1)
    return extent, bool(sides)


def _trim_to_square(lit: np.ndarray, extent: Extent, p: ExtentParams) -> Extent:
    """A 7×5 or 5×7 grid cut to the 5×5 kingdom when its extra lines are mostly table.

    A domino or a stray shape beside a kingdom can stretch its outline by two
    lines. The 5×5 window along the long side holding the most tile (``lit``:
    cell tileness with shadow and glare as table, ring included) is kept when
    every line left out is under ``trim_share`` tile.
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
    if left_out.max() >= p.trim_share:
        return extent
    if rows > cols:
        return r0 + start, r0 + start + STANDARD_SIZE, c0, c1
    return r0, r1, c0 + start, c0 + start + STANDARD_SIZE


def _square_sides(fit: Fit, extent: Extent) -> list[Side]:
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
    p = fit.view.params.extent
    r0, r1, c0, c1 = extent
    rows, cols = r1 - r0, c1 - c0
    target = STANDARD_SIZE if max(rows, cols) <= STANDARD_SIZE else DUEL_SIZE
    if target > fit.limit or max(rows, cols) > target or min(rows, cols) < target - 1:
        return []
    directions = []
    if rows == target - 1:
        directions.append((Side.TOP, Side.BOTTOM))
    if cols == target - 1:
        directions.append((Side.LEFT, Side.RIGHT))
    tiles, lit = fit.maps[0], fit.maps[1]
    grow = []
    for sides in directions:
        found = []
        for side in sides:
            outside, _, length = _side_cells(tiles, r0, r1, c0, c1, side)
            lit_out, _, _ = _side_cells(lit, r0, r1, c0, c1, side)
            if np.count_nonzero(~np.isnan(outside)) >= p.known_share * length:
                mean, lit_mean = float(np.nanmean(outside)), float(np.nanmean(lit_out))
                grown = move(*extent, side, +1)
                ratio = edge_ratio(fit.edges, grown, side, p.row_slack)
                if _square_row(mean, lit_mean, ratio, p):
                    found.append((mean, side))
        if found:
            grow.append(max(found)[1])
    return grow


def _square_row(mean: float, lit_mean: float, ratio: float, p: ExtentParams) -> bool:
    """Whether squares beyond a side, which would complete a square kingdom, are its row.

    They are when their row ends in an edge at least somewhat sharp and they
    are partly tile in any light, or mostly tile apart from the table (a row in
    shadow or glare, which the lit colours take for table); or when they are
    nearly half tile apart from the table and the row ends in an edge sharper
    than the side's own.

    >>> from scorer.detect.params import DEFAULT
    >>> _square_row(0.2, 0.2, 0.5, DEFAULT.extent), _square_row(0.45, 0.0, 0.9, DEFAULT.extent)
    (True, False)
    """
    if ratio >= p.square_edge and (
        (mean >= p.square_tile and lit_mean >= p.square_tile) or mean >= p.square_mostly
    ):
        return True
    return mean >= p.square_half and ratio >= p.square_sharper


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


STEPS: tuple[tuple[str, Step], ...] = (
    ("drop or add edge rows", _edge_rows),
    ("trim a 7×5 grid to its 5×5 kingdom", _trim_step),
    ("complete a square kingdom", _square_step),
)
"""The steps of :func:`fit_extent`, in the order it runs them, each with its name."""
