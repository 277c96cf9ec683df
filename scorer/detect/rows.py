"""The rules by which a row of squares along a grid's side is, or is not, the kingdom's.

Each rule looks at one :class:`Row`: its squares' tileness by colour, and how
sharp the grid's lines round it are. The squares beyond a side are a row of
the kingdom when one of :data:`GROW_RULES` holds (:func:`row_beyond`); an
edge row with some tile stays in the kingdom when one of :data:`KEEP_RULES`
holds (:func:`row_not_kingdom`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from scorer.detect.edges import Extent, GridEdges, cross_segments, edge_ratio, outer_segments
from scorer.detect.geometry import Side, move
from scorer.detect.params import ExtentParams
from scorer.quantiles import median


@dataclass(frozen=True, eq=False)
class Row:
    """A row of squares under test: the edge row along ``side`` of ``extent``.

    Attributes
    ----------
    edges : GridEdges
    extent : tuple of int
        The grid whose edge row along ``side`` is the row: the grid grown by it
        when the row lies beyond a side.
    side : Side
    tiles : ndarray
        Cell tileness of the row's squares (NaN outside the photo).
    lit : ndarray
        The same with shadow and glare as table.
    """

    edges: GridEdges
    extent: Extent
    side: Side
    tiles: np.ndarray
    lit: np.ndarray

    @property
    def p(self) -> ExtentParams:
        """The row rules' tuned values."""
        return self.edges.params.extent

    @property
    def inside(self) -> Extent:
        """The grid without this row."""
        return move(*self.extent, self.side, -1)

    @cached_property
    def ratio(self) -> float:
        """How sharp the row's outer line is against the seam inside it (:func:`edge_ratio`)."""
        return edge_ratio(self.edges, self.extent, self.side)

    @property
    def strong(self) -> np.ndarray:
        """The squares that are clearly tile in any light."""
        p = self.p
        tile = np.nan_to_num(self.tiles) > p.strong_tile
        return np.asarray(tile & (np.nan_to_num(self.lit) > p.strong_lit))


def _known_max(values: np.ndarray) -> float:
    """The largest value that is not NaN; NaN when there is none (a row wholly off the
    photo), which every comparison takes as false. ``numpy.nanmax`` without its warning.

    >>> _known_max(np.array([0.2, np.nan, 0.7])), _known_max(np.array([np.nan]))
    (0.7, nan)
    """
    known = values[~np.isnan(values)]
    return float(known.max()) if known.size else math.nan


def _known_mean(values: np.ndarray) -> float:
    """The mean of the values that are not NaN; NaN when there is none, as
    :func:`_known_max`.

    >>> _known_mean(np.array([0.2, np.nan, 0.6])), _known_mean(np.array([], bool))
    (0.4, nan)
    """
    known = values[~np.isnan(values)] if values.dtype.kind == "f" else values
    return float(known.mean()) if known.size else math.nan


Rule = Callable[[Row], bool]
"""A test of a row of squares: whether it shows the row is the kingdom's."""


def row_beyond(row: Row) -> bool:
    """Whether the squares just beyond one side are a row of the kingdom: one of
    :data:`GROW_RULES` holds."""
    return any(rule(row) for _, rule in GROW_RULES)


def row_not_kingdom(row: Row) -> bool:
    """Whether the edge row along one side is table, shadow or glare, not the kingdom's.

    It is when no square of it is a tile, or when none of :data:`KEEP_RULES` holds.
    """
    if _known_max(row.tiles) < row.p.no_tile:
        return True
    return not any(rule(row) for _, rule in KEEP_RULES)


def _tile_in_any_light(row: Row) -> bool:
    """Most squares are tile apart from the table in any light."""
    p, known = row.p, ~np.isnan(row.tiles)
    return bool(
        _known_mean(row.strong[known]) >= p.strong_share
        and _known_mean(row.lit[known] > p.strong_lit) >= p.lit_share
    )


def _dark_tiles_sharp_edge(row: Row) -> bool:
    """The squares are darker tiles, hard to tell from the table by colour, whose row ends in
    a sharp straight edge, not the table's texture (:func:`_table_texture`)."""
    p = row.p
    return bool(
        _known_mean(row.tiles) >= p.dark_mean
        and row.ratio >= p.dark_edge
        and not _table_texture(row)
    )


def _sharp_squares(row: Row) -> bool:
    """Two or more squares are strongly tile, or one wholly is, each ending in a sharp edge
    (a row with squares missing)."""
    p, strong = row.p, row.strong
    if not strong.any():
        return False
    segments = outer_segments(row.edges, row.extent, row.side)
    current = outer_segments(row.edges, row.inside, row.side)
    sharp = segments >= p.sharp_share * float(median(current))
    # A lone square must be wholly tile: a domino lying near the kingdom is not in line.
    whole = (np.nan_to_num(row.tiles) > p.whole_tile) & (np.nan_to_num(row.lit) > p.whole_lit)
    return int((strong & sharp).sum()) >= p.min_sharp_squares or bool((whole & sharp).any())


def _clear_tile(row: Row) -> bool:
    """A square is a tile once shadow and glare count as table, and one is clearly tile or
    the row ends in a sharp outer edge."""
    p = row.p
    if not _known_max(row.lit) >= p.edge_lit:  # also when no square is in the photo
        return False
    clear = ((row.tiles > p.edge_tile) & (row.lit > p.edge_tile_lit)).any()
    return bool(clear or row.ratio >= p.edge_sharp)


def _dark_row(row: Row) -> bool:
    """An edge row that only the shadow-blind colours see as tile is the kingdom's.

    Dark forests or mines in a large shadow match the table's shaded colours,
    so only the colours without shadow see them as tile; so does a strip of
    shadow along the side. The strip's edge is soft, a real row's outer edge is
    a sharp straight line against the table: it is when most of its squares
    are tile, its outer edge is ``dark_row_ratio`` times as sharp as the
    seam one square inside (:attr:`Row.ratio`), and a square further out shows
    no such line (a cutting mat's printed lines, see :func:`_table_texture`).
    """
    p, known = row.p, ~np.isnan(row.tiles)
    if _known_mean((np.nan_to_num(row.tiles) > p.dark_row_tile)[known]) < p.dark_row_share:
        return False
    if row.ratio < p.dark_row_ratio:
        return False
    beyond = edge_ratio(row.edges, move(*row.extent, row.side, +1), row.side)
    return beyond < p.dark_row_beyond


def _row_in_line(row: Row) -> bool:
    """The row holds tiles lying square on the grid, and bare table.

    An edge row of an unfinished kingdom may hold only a few tiles, as pale or
    dark as the table in some light. Each of its tile squares ends in a sharp edge along
    the grid's outer line, and each run of them ends in a sharp edge along a
    grid line across the row where bare table follows: the tiles line up with
    the kingdom's columns. A loose domino lying near the kingdom is not in line
    with them, and a strip of shadow or glare has soft edges.
    """
    p, edge = row.p, np.nan_to_num(row.tiles, nan=0.5)
    tile = edge > p.in_line_tile
    table = edge < p.in_line_table
    if not tile.any() or not table.any() or not (tile | table).all():
        return False
    inner = outer_segments(row.edges, row.inside, row.side)
    outer = outer_segments(row.edges, row.extent, row.side)
    # Sharp against the grid line inside, and against the table's own texture.
    sharp = max(
        p.in_line_sharp * float(median(inner)),
        p.above_table * float(median(outer[table])),
    )
    across = cross_segments(row.edges, row.extent, row.side)
    before = np.concatenate([[True], table[:-1]])  # table (or the grid's end) before a square
    after = np.concatenate([table[1:], [True]])
    ends = np.where(before, across[:-1], np.inf), np.where(after, across[1:], np.inf)
    return bool(np.all(~tile | ((outer >= sharp) & (ends[0] >= sharp) & (ends[1] >= sharp))))


def _table_texture(row: Row) -> bool:
    """Whether a row beyond a side that is tile by colour only ends in no more than the
    table's texture.

    In shadow a patterned table (a cutting mat's printed lines) looks like dark
    tiles by colour and shows sharp lines; a square further out they are as
    sharp, where a real row's edge stands out above the table beyond it.
    """
    p = row.p
    if _known_max(row.lit) >= p.texture_lit:
        return False
    further = edge_ratio(row.edges, move(*row.extent, row.side, +1), row.side)
    return further >= p.texture_ratio


GROW_RULES: tuple[tuple[str, Rule], ...] = (
    ("tile in any light", _tile_in_any_light),
    ("darker tiles ending in a sharp edge", _dark_tiles_sharp_edge),
    ("squares with sharp edges, some missing", _sharp_squares),
    ("tiles in line with the grid", _row_in_line),
)
"""The rules, tried in order, by which the squares beyond a side are a row of the kingdom."""

KEEP_RULES: tuple[tuple[str, Rule], ...] = (
    ("a clear tile", _clear_tile),
    ("dark tiles ending in a sharp edge", _dark_row),
    ("tiles in line with the grid", _row_in_line),
)
"""The rules, tried in order, by which an edge row with some tile is kept in the kingdom."""
