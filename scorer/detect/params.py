"""Every tuned value of kingdom detection, grouped by the stage that uses it.

:data:`DEFAULT` holds the values detection runs with; :func:`with_overrides`
makes a variant for a sweep (``extent.dark_row_ratio=1.4``). What was tried
before a value was settled is in ``docs/experiments.md``.

>>> DEFAULT.extent.dark_row_ratio
1.3
>>> with_overrides(DEFAULT, ["extent.dark_row_ratio=1.4"]).extent.dark_row_ratio
1.4
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Final, TypeVar


@dataclass(frozen=True)
class WorkParams:
    """Sizes of the downscaled working image and of the canvases measured on it."""

    side: int = 800
    """Longest side of the downscaled copy of the photo used for detection, in pixels."""

    min_side: int = 16
    """Working pixels below which a picture's side, or a marked area's side, holds no kingdom."""

    min_photo_side: int = 16
    """Photo pixels below which a photo's shorter side holds no kingdom."""

    corner_margin: float = 0.05
    """Share of the photo's longer side by which a marked corner may lie outside the photo."""

    min_marked_square: float = 8.0
    """Photo pixels below which a marked area's shortest side, over its squares, holds no
    readable square."""

    grid_canvas: int = 320
    """Side, in pixels, of the square canvas the grid shape is measured on."""


@dataclass(frozen=True)
class TableParams:
    """The table's colour and texture model: what is tile and what is table."""

    blur_side: int = 5
    """Side, in work-image pixels, of the Gaussian blur applied before colours are compared."""

    border_band: float = 0.02
    """Width of the photo's border bands, where the table shows, as a share of its shorter side."""

    min_border_band: int = 3
    """Least width of a border band, in work-image pixels."""

    border_samples: int = 1000
    """Pixels drawn from each border band to learn the table's colours."""

    colours: int = 8
    """Clusters (k-means in Lab) the border's colours are grouped into."""

    kmeans_rounds: int = 20
    """Most iterations of one k-means run."""

    kmeans_epsilon: float = 0.5
    """Movement of the cluster centres (Lab units) under which k-means stops."""

    kmeans_attempts: int = 2
    """k-means runs from different seeds, the tightest kept."""

    side_share: float = 0.03
    """Share of one border band's samples a colour needs to be seen along that side."""

    min_sides: int = 2
    """Sides of the photo along which a colour must be seen to be a table colour."""

    border_share: float = 0.2
    """Share of the border samples, averaged over the four sides, that makes a colour a table
    colour wherever it is seen."""

    shades: tuple[float, ...] = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1)
    """Brightness factors of the table colours taken as table too: shadow and lighter light."""

    glares: tuple[float, ...] = (0.15, 0.3, 0.45)
    """Shares of white mixed into the table colours taken as table too: glare."""

    glare_light: tuple[float, ...] = (50.0, 100.0, 150.0)
    """White light added to each 8-bit channel of the table colours, taken as table too: a
    glare spot, which brightens a colour where mixing in white would dim it."""

    lightness_weight: float = 0.5
    """Weight of Lab lightness against a* and b* in the distance from the table colours."""

    glare_lightness: float = 88.0
    """Lab lightness above which a pale colour is glare or white paper, not tile."""

    glare_chroma: float = 12.0
    """Lab chroma under which a colour lighter than :attr:`glare_lightness` is glare."""

    tile_distance: float = 18.0
    """Lab distance (lightness counting half) from the table colours beyond which a pixel is
    tile."""

    off_colour_lift: float = 0.5
    """Lab units past :attr:`tile_distance` to which the distance of a pixel off a one-coloured
    table's colour is raised."""

    found_share: float = 0.01
    """Share of the work image that must be tile for any tile-like area to count as seen."""

    table_spread: float = 4.0
    """Spread of colour (Lab a*b*) under which nine in ten of the photo's border pixels make a
    table of one colour, near grey or near the line from grey through the table's colour."""

    spread_quantile: float = 90.0
    """Percentile of the border pixels' distance from the table's hue taken as its spread."""

    off_table_colour: float = 4.0
    """How much further than the table's spread from its colour (Lab a*b*), averaged over a
    small window, makes a tile on a table of one colour."""

    clipped: float = 0.97
    """Share of full scale at which a colour channel of the table is taken as clipped by the
    camera's exposure."""

    clipped_stretch: float = 1.6
    """Up to how many times its shown value a clipped channel of the table's colour may be."""

    colour_window: int = 7
    """Side, in work-image pixels, of the window a pixel's distance from the table's hue is
    averaged over."""

    cell_tile_distance: float = 12.0
    """Lab distance from the table colours above which a pixel of a square counts as tile."""

    cell_px: int = 16
    """Side, in pixels, of one square when a grid's squares are warped small to be measured."""

    cell_inset: int = 6
    """A square is measured without a margin of this fraction (1/cell_inset) of its side."""

    cell_inside: float = 0.7
    """Share of a square that must lie inside the photo for it to be measured."""

    ridge_side: int = 5
    """Side, in work-image pixels, of the opening whose top-hat finds the table's thin lines."""

    ridge_contrast: float = 0.12
    """Share of the local lightness by which a thin line or speck stands out of its
    surroundings."""

    ridge_floor: float = 4.0
    """Least lightness step (OpenCV's 8-bit scale) of a thin line or speck: dark noise is none."""

    ridge_window: int = 9
    """Side, in work-image pixels, of the window the table's ridge density is averaged over."""

    min_table_ridges: float = 0.05
    """Ridge density of the photo's border under which the table has no pattern to go by."""

    border_block: int = 40
    """Length, in work-image pixels, of the pieces of the border band compared for ridge
    density."""

    even_pattern: float = 0.3
    """Share of the border's median ridge density that nine in ten of its pieces must reach for
    the pattern to cover the whole table."""

    even_quantile: float = 10.0
    """Percentile of the border pieces' ridge densities held to :attr:`even_pattern`."""

    glare_gap: float = 0.5
    """Drop in a square's tileness when glare counts as table above which the square's lack of
    the table's pattern says nothing."""

    plain_below: float = 0.1
    """Ridge density, against the table's, under which a square is wholly without its
    pattern."""

    patterned_above: float = 0.5
    """Ridge density, against the table's, from which a square shows the table's pattern."""


@dataclass(frozen=True)
class OutlinesParams:
    """Candidate outlines of the areas of tiles, and the choice among them."""

    min_area_share: float = 0.015
    """Share of the work image an area of tiles needs to be looked at as a kingdom."""

    speck_divisor: int = 130
    """The work image's longest side over this is the side (odd) of the opening that takes
    specks off the tile mask, in pixels."""

    min_speck: int = 3
    """Least side of that opening, in pixels."""

    gap_divisor: int = 45
    """The work image's longest side over this is the side (odd) of the closing that fills
    small gaps in the tile mask, in pixels."""

    min_gap: int = 5
    """Least side of that closing, in pixels."""

    bridge_divisor: int = 55
    """The work image's longest side over this is the side (odd) of the disc that cuts thin
    lines and bridges off an area, in pixels."""

    min_bridge: int = 5
    """Least side of that disc, in pixels."""

    convex_solidity: float = 0.97
    """Area over hull area from which an area not at the photo's edge is taken whole, not cut."""

    min_solidity: float = 0.55
    """Area over hull area under which an area is too ragged to outline as a kingdom."""

    lit_same_share: float = 0.95
    """Area share, against its area, from which a part seen apart from shadow and glare is the
    same outline as the area."""

    kingdom_share: float = 0.2
    """Area share, against the largest kingdom-like outline, under which a part or an area is
    no kingdom."""

    join_share: float = 0.8
    """Area share under which a part inside a larger part is a separate place of it."""

    place_share: float = 0.4
    """Size, as a share of the largest, of a group of outlines inside another that makes a
    separate place."""

    border_run: float = 0.08
    """Share of an outline's points on the photo's edge above which it is cut off by it."""

    inside_margin: float = 0.01
    """Margin, as a share of the photo's shorter side, that an outline cut off by the photo's
    edge must keep inside it."""

    segment_epsilon: float = 0.008
    """Tolerance of the outline's simplification into straight stretches, as a share of its
    perimeter."""

    min_segment: float = 0.08
    """Length, as a share of a quarter of the perimeter, under which a straight stretch is not
    pooled into a side."""

    same_angle: float = 6.0
    """Angle, in degrees, under which two straight stretches may lie on one side."""

    same_offset: float = 0.04
    """Offset across, as a share of a quarter of the perimeter, under which two straight
    stretches lie on one side."""

    parallel_angle: float = 35.0
    """Angle, in degrees, under which a pooled side runs along the first one, not across it."""

    apart_offset: float = 0.4
    """Distance, as a share of a quarter of the perimeter, that opposite sides must lie
    apart."""

    poly_epsilons: tuple[float, ...] = (0.02, 0.03, 0.05, 0.08, 0.12)
    """Tolerances, as shares of the perimeter, tried in turn to simplify a hull to four
    corners."""

    hull_epsilon: float = 0.015
    """Tolerance, as a share of the perimeter, of the hull's simplification into sides."""

    hull_area: tuple[float, float] = (0.8, 1.6)
    """Least and most area of a quad from a hull's four longest sides, as shares of the hull's."""

    side_span: tuple[float, float] = (0.1, 0.9)
    """Stretch of a hull side, as shares of its length, whose outline points fit its line."""

    side_near_px: float = 2.0
    """Least distance, in pixels, from a hull side within which outline points fit its line."""

    side_near_share: float = 0.02
    """That distance as a share of the side's length, where it is more."""

    same_quad_px: float = 2.0
    """Corner distance, in work-image pixels, under which two candidate quads are the same."""

    same_refined_px: float = 1.0
    """Corner distance, in work-image pixels, under which two quads snapped onto edges are the
    same."""

    clear_seams: float = 3.0
    """Seam strength above which a grid is clear: clearer seams do not make a better outline."""

    near_clearest: float = 0.55
    """Share of the clearest outline's seam strength an outline needs to be chosen."""

    cover_power: int = 3
    """Weight (a power) of tile coverage against seam strength when an outline is chosen."""

    sparse_density: float = 0.7
    """Tile density, against the densest outline's, under which an outline holds too much
    table."""

    density_power: int = 2
    """Weight (a power) of a sparse outline's tile density when an outline is chosen."""

    near_best: float = 0.7
    """Share of the chosen outline's seam strength another outline of its area needs to be kept
    as an alternative."""

    max_alternatives: int = 4
    """Most alternative outlines kept for one kingdom, clearest seams first."""

    grow_rows: int = 1
    """Most rows (and columns) by which a kingdom-sized grid laid over an outline that is no
    kingdom's grid may reach beyond it (:func:`scorer.detect.geometry.kingdom_grids`); 0 lays
    them inside it only."""

    same_outline: float = 0.2
    """Corner distance, in squares, under which two outlines of one grid shape are the same."""

    whole_aspect: tuple[float, float] = (0.6, 1.67)
    """Least and most width over height of a photo that may be one rectified kingdom."""

    whole_chroma: float = 15.0
    """Lab chroma above which a pixel of such a photo is colourful."""

    whole_colourful: float = 0.5
    """Share of colourful pixels from which such a photo may be one kingdom."""


@dataclass(frozen=True)
class SeamsParams:
    """Gradients, seam strength and the snapping of sides onto edges."""

    min_seam_score: float = 1.4
    """Seam strength (peak over typical gradient) below which no grid is seen."""

    faint_seam_score: float = 1.05
    """Seam strength along the fainter axis that still counts when the other axis is clear."""

    one_axis_clear: float = 2.0
    """Seam strength along one axis that lets a fainter grid along the other count as a grid."""

    full_share: float = 0.75
    """Share of a faint axis's seam strength that a full kingdom's count needs to be
    preferred."""

    min_typical_gradient: float = 1.0
    """Floor on the typical grey-level gradient a seam is compared with (board squares show
    5-15)."""

    count_gain: float = 1.03
    """Factor by which a count's seam strength must beat the best so far to replace it."""

    count_tie: float = 0.97
    """Factor of the best seam strength from which a larger count replaces it."""

    peak_window: float = 0.08
    """Reach, as a share of a square, either way of a seam's place within which its peak is
    taken."""

    seam_quantile: float = 0.25
    """Quantile of a grid's seam peaks taken as its seam strength: a seam must show along most
    of the grid."""

    count_stride: int = 2
    """Every how many canvas lines the median across the seams is taken."""

    profile_smooth: int = 3
    """Length, in canvas pixels, of the moving average that smooths a seam profile."""

    gradient_blur: int = 3
    """Side, in work-image pixels, of the Gaussian blur applied before the gradients."""

    wide_reach: float = 0.05
    """Reach, as a share of a side's length, of the first search for its edge."""

    narrow_reach: float = 0.015
    """Reach, as a share of a side's length, of the final search for its edge."""

    step_only_reach: float = 0.02
    """A side's search reaching further than this share of its length counts only steps in
    colour as edges."""

    step_reach: int = 2
    """Pixels either side over which a side's edge must be a step in colour, not a thin line."""

    max_move: float = 0.08
    """Most a corner may move onto the edges, as a share of two sides' length."""

    snap_samples: int = 32
    """Points along a side at which the edge across it is measured."""

    snap_margin: float = 0.04
    """Share of a side's length at each end left out of that measure."""

    snap_offsets: int = 12
    """Offsets tried either way of a side, at most, before the search steps more coarsely."""

    line_samples: int = 48
    """Points along a grid line at which its edge strength is measured."""

    line_margin: float = 0.05
    """Share of a grid line's length at each end left out of that measure."""

    line_reach: int = 2
    """Pixels either way of a grid line within which its edge is looked for."""


@dataclass(frozen=True)
class LatticeParams:
    """Grids fitted to, or laid on, the lattice of the seams themselves."""

    bands: int = 4
    """Bands across an outline in each of which every seam's place is measured for a lattice
    fit."""

    reach: float = 0.25
    """How far (in squares) either way of its expected place a seam is looked for in a lattice
    fit."""

    peak: float = 1.5
    """Seam peak over the band's typical gradient for a seam's place to count in a lattice
    fit."""

    tolerance: float = 3.0
    """Canvas pixels a seam's place may be off the fitted lattice and still count (RANSAC)."""

    min_seams: int = 8
    """Fewest seam places found, and fitting the lattice, for a lattice fit."""

    rounds: int = 2
    """Lattice fits in turn, each from the outline the last one gave, while the seams get
    clearer."""

    margin: float = 0.3
    """Margin round an area, as a share of the side of a square of the same area, searched for
    the seams' own lattice."""

    periods: tuple[float, float] = (1 / 12, 1 / 3)
    """Least and most side of a square, as shares of the side of a square of the area's size."""

    min_period: float = 4.0
    """Least side of a square tried for the seams' lattice, in work-image pixels."""

    period_step: float = 0.5
    """Step, in work-image pixels, between the sides of a square tried."""

    edges: float = 0.8
    """Quantile of the gradient near the tiles above which a pixel's direction counts towards
    the grid's orientation."""

    near_tiles_px: int = 5
    """Side, in work-image pixels, of the square by which the tiles are grown to take the
    edges near them."""

    min_near_tiles: int = 50
    """Pixels near the tiles under which the whole area's edges give the orientation."""

    min_region_px: int = 8
    """Least side, in work-image pixels, of the region searched for the seams' lattice."""

    smooth_divisor: int = 8
    """The side of a square of the area's size over this is the length (odd) of the moving
    average taken off the seam profiles, in pixels."""

    min_smooth: int = 3
    """Least length of that moving average, in pixels."""

    standard_places: int = 2
    """Places each way a 5×5 grid is laid on the lattice."""

    duel_places: int = 1
    """Places each way a 7×7 grid (or one of a set side) is laid on the lattice."""

    bare_parts: int = 3
    """A grid laid on the lattice is too bare when one in this many of its squares, or more,
    look like bare table."""


@dataclass(frozen=True)
class ExtentParams:
    """The row rules that grow or shrink a grid to the kingdom's extent."""

    rounds: int = 2
    """Rounds over the four sides in which edge rows are dropped and rows beyond added."""

    known_share: float = 0.6
    """Share of the squares beyond a side that must lie inside the photo for the side to grow."""

    strong_tile: float = 0.9
    """Cell tileness above which a square beyond a side is strongly tile."""

    strong_lit: float = 0.5
    """Cell tileness, with shadow and glare as table, above which such a square is strongly
    tile."""

    strong_share: float = 0.8
    """Share of the squares beyond a side that must be strongly tile for the row to be tile in
    any light."""

    lit_share: float = 0.6
    """Share of those squares that must be tile with shadow and glare as table as well."""

    dark_mean: float = 0.5
    """Mean cell tileness from which the squares beyond a side are darker tiles."""

    dark_edge: float = 0.6
    """Edge ratio from which a row of darker tiles ends in a sharp straight edge."""

    sharp_share: float = 0.3
    """Share of the side's median outer-line strength from which a square's edge further out is
    sharp."""

    min_sharp_squares: int = 2
    """Strongly tile squares with sharp edges that make a row with squares missing."""

    whole_tile: float = 0.9
    """Cell tileness above which a lone square beyond a side counts as wholly tile."""

    whole_lit: float = 0.7
    """Cell tileness, with shadow and glare as table, above which such a square is wholly
    tile."""

    texture_lit: float = 0.15
    """Cell tileness with shadow and glare as table under which every square of a row is tile
    by colour only."""

    texture_ratio: float = 0.8
    """Edge strength a square further out, against a row's outer edge, that shows table
    texture."""

    trim_share: float = 0.5
    """Tile share under which each extra line of a 7×5 grid is left out of a 5×5 kingdom."""

    row_slack: float = 0.15
    """How far (in squares) either way of the grid's line a grown row's outer edge is looked
    for."""

    slack_step: float = 0.05
    """Step (in squares) of that search."""

    square_edge: float = 0.4
    """Edge ratio from which a row that completes a square kingdom ends in a somewhat sharp
    edge."""

    square_tile: float = 0.15
    """Mean tileness, in either light, from which such a row is partly tile."""

    square_mostly: float = 0.5
    """Mean tileness from which such a row is mostly tile apart from the table."""

    square_half: float = 0.4
    """Mean tileness from which such a row is nearly half tile."""

    square_sharper: float = 1.0
    """Edge ratio from which a nearly half-tile row ends in an edge sharper than the side's
    own."""

    no_tile: float = 0.2
    """Cell tileness under which no square of an edge row is a tile."""

    edge_lit: float = 0.15
    """Cell tileness, with shadow and glare as table, from which an edge row has a tile."""

    edge_tile: float = 0.8
    """Cell tileness above which a square of an edge row is clearly tile."""

    edge_tile_lit: float = 0.5
    """Cell tileness, with shadow and glare as table, above which it is clearly tile."""

    edge_sharp: float = 0.8
    """Edge ratio from which an edge row with a tile ends in a sharp outer edge."""

    dark_row_tile: float = 0.8
    """Cell tileness (shadow counted as tile) above which a square of a dark edge row is tile."""

    dark_row_share: float = 0.75
    """Share of a dark edge row's squares that must be tile."""

    dark_row_ratio: float = 1.3
    """Edge strength of a dark edge row's outer line, against the seam one square inside,
    above which it is a row of the kingdom and not a strip of shadow."""

    dark_row_beyond: float = 0.6
    """Edge strength one square further out, against a dark row's outer line, under which
    that line is the kingdom's edge and not one of the table's own lines."""

    in_line_tile: float = 0.7
    """Tile share above which a square of a sparse edge row is taken as tile."""

    in_line_table: float = 0.15
    """Tile share under which a square of a sparse edge row is taken as bare table."""

    in_line_sharp: float = 0.4
    """Share of the next grid line's edge strength that a sparse edge row's tile edges need."""

    above_table: float = 1.5
    """How much sharper than the grid line over bare table a sparse edge row's tile edges
    are."""

    bare_below: float = 0.15
    """Cell tileness (squares without the table's pattern as tile) under which a square is
    bare table."""

    tile_above: float = 0.97
    """Cell tileness above which a square is clearly covered by a tile."""


@dataclass(frozen=True)
class LightParams:
    """How the working image's light is evened (:mod:`scorer.detect.light`)."""

    dim_gain: float = 1.45
    """Gain on the highlights (to reach the target) from which a photo is dim and evened."""

    max_cast: float = 2.5
    """Largest gain (and its inverse the smallest) grey world puts on one colour channel."""

    exposure_quantile: float = 99.0
    """Percentile (0–100) of the brightest channel that is brought up to the target."""

    exposure_target: float = 230.0
    """Level (0–255) the exposure percentile is brightened to; a photo is never darkened."""


@dataclass(frozen=True)
class PlausibleParams:
    """The check every candidate kingdom passes (:mod:`scorer.detect.plausible`)."""

    outside_squares: float = 0.5
    """Squares of its own grid by which a candidate's corner may lie beyond the photo."""

    in_photo_share: float = 0.5
    """Share of the strip beyond a side (0–1) that must lie in the photo for the side to count."""

    surrounded_tile: float = 0.8
    """Share of tile pixels (0–1) in the strip beyond a side from which that side has tiles."""

    min_sides_seen: int = 2
    """Sides with the photo beyond them needed before a candidate can be surrounded by tiles."""

    max_overlap: float = 0.2
    """Share of the smaller candidate's area (0–1) two kingdoms may share; beyond, one goes."""


@dataclass(frozen=True)
class DetectParams:
    """All tuned values of detection, one group per stage."""

    square_px: int = 100
    """Default side of one square in a rectified board, in pixels."""

    min_side: int = 3
    """The fewest squares along a side of a kingdom that detection will report."""

    work: WorkParams = field(default_factory=WorkParams)
    """Sizes of the working image and canvases."""

    table: TableParams = field(default_factory=TableParams)
    """The table's colour and texture model."""

    outlines: OutlinesParams = field(default_factory=OutlinesParams)
    """Candidate outlines and the choice among them."""

    seams: SeamsParams = field(default_factory=SeamsParams)
    """Seam strength and snapping onto edges."""

    lattice: LatticeParams = field(default_factory=LatticeParams)
    """Lattice fits and grids laid on the seams' lattice."""

    extent: ExtentParams = field(default_factory=ExtentParams)
    """The row rules that fit the grid's extent."""

    plausible: PlausibleParams = field(default_factory=PlausibleParams)
    """The check that every candidate can be a kingdom."""

    light: LightParams = field(default_factory=LightParams)
    """How the working image's exposure and white balance are evened."""


DEFAULT: Final = DetectParams()
"""The values detection runs with."""


_P = TypeVar("_P")


def with_overrides(
    params: _P, assignments: Sequence[str], what: str = "the detection parameters"
) -> _P:
    """``params`` with fields replaced by ``GROUP.FIELD=VALUE`` (or ``FIELD=VALUE``) strings.

    Each value is parsed to the field's type: a whole number, a number,
    ``true``/``false``, or numbers separated by commas for a tuple.

    Parameters
    ----------
    params : DetectParams
        Or any other frozen dataclass of tuned values.
    assignments : sequence of str
        For example ``["extent.dark_row_ratio=1.4", "work.side=1000"]``.
    what : str
        What ``params`` are, for the error messages.

    Returns
    -------
    DetectParams

    Raises
    ------
    ValueError
        An assignment without ``=``, an unknown group or field, or a value that
        does not parse to the field's type.

    Examples
    --------
    >>> with_overrides(DEFAULT, ["square_px=64", "table.shades=0.5,1"]).table.shades
    (0.5, 1.0)
    >>> with_overrides(DEFAULT, ["extent.nothing=1"])
    Traceback (most recent call last):
    ...
    ValueError: unknown field 'nothing' in group 'extent' of the detection parameters
    """
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        if not sep:
            raise ValueError(f"expected GROUP.FIELD=VALUE, not {assignment!r}")
        params = _assign(params, name.strip().split("."), text.strip(), what)
    return params


def _assign(params: Any, path: list[str], text: str, what: str, where: str = "") -> Any:
    """``params`` (a dataclass) with the field at ``path`` set from ``text``."""
    head, *rest = path
    if head not in {f.name for f in fields(params)}:
        kind = f"field {head!r} in group {where!r}" if where else f"group or field {head!r}"
        raise ValueError(f"unknown {kind} of {what}")
    current = getattr(params, head)
    name = f"{where}.{head}" if where else head
    if is_dataclass(current):
        if not rest:
            raise ValueError(f"{name!r} is a group: name one of its fields, as {name}.FIELD=VALUE")
        return replace(params, **{head: _assign(current, rest, text, what, name)})
    if rest:
        raise ValueError(f"{name!r} is a field, not a group: it has no {'.'.join(rest)!r}")
    kind = typing.get_type_hints(type(params))[head]
    return replace(params, **{head: _parse(text, kind, current, name)})


def _parse(text: str, kind: Any, current: Any, name: str) -> Any:
    """``text`` as a value of type ``kind`` for the field ``name`` (now ``current``)."""
    if typing.get_origin(kind) is tuple:
        any_length = typing.get_args(kind)[-1:] == (Ellipsis,)
        expected = "numbers" if any_length else f"{len(current)} numbers"
        try:
            values = tuple(float(v) for v in text.split(",") if v.strip())
        except ValueError:
            values = ()
        if not values or (not any_length and len(values) != len(current)):
            raise _bad(text, name, f"{expected} separated by commas", current)
        return values
    if kind is bool:
        if text.lower() not in {"true", "false"}:
            raise _bad(text, name, "true or false", current)
        return text.lower() == "true"
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise _bad(text, name, kind.__name__, current) from None
    raise ValueError(f"{name!r} has a type {kind!r} that cannot be set from text")


def _bad(text: str, name: str, expected: str, current: Any) -> ValueError:
    """The error for a value that does not parse."""
    return ValueError(f"bad value {text!r} for {name!r}: expected {expected} (now {current!r})")
