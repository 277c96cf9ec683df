"""Find kingdoms in a photo and rectify them to a square grid.

:func:`find_kingdoms` gives where each kingdom lies (:class:`BoardLocation`);
:func:`rectify` crops one to a canonical image of equal squares. The modules:

- :mod:`~scorer.detect.find`: the entry points, and the steps of detection in turn;
- :mod:`~scorer.detect.params`: every tuned value, grouped by stage (:class:`DetectParams`);
- :mod:`~scorer.detect.view`: one photo as detection measures it, handed to every step;
- :mod:`~scorer.detect.geometry`: locations, sides, corners and grid homographies;
- :mod:`~scorer.detect.table`: the table's colour and texture model, which pixels are tile;
- :mod:`~scorer.detect.outlines`: candidate outlines of the areas of tiles, and the choice;
- :mod:`~scorer.detect.seams`: gradients, seam strength, and sides snapped onto edges;
- :mod:`~scorer.detect.lattice`: grids fitted to, or laid on, the lattice of the seams;
- :mod:`~scorer.detect.edges`: how sharp a grid's lines are in the photo;
- :mod:`~scorer.detect.extent`: the steps that grow or shrink a grid to its tiles;
- :mod:`~scorer.detect.rows`: the rules by which a row is or is not the kingdom's.
- :mod:`~scorer.detect.light`: a dim photo's exposure and white balance evened;
- :mod:`~scorer.detect.plausible`: the check every candidate kingdom passes.
"""

from scorer.detect.find import find_kingdoms, rectify
from scorer.detect.geometry import (
    BoardLocation,
    Side,
    beyond_side,
    extend_location,
    grid_homography,
    order_corners,
    parse_corners,
)
from scorer.detect.params import DEFAULT, DetectParams

SQUARE_PX: int = DEFAULT.square_px
"""Default side of one square in a rectified board, in pixels."""

MIN_SIDE: int = DEFAULT.min_side
"""The fewest squares along a side of a kingdom that detection will report."""

__all__ = [
    "MIN_SIDE",
    "SQUARE_PX",
    "BoardLocation",
    "DetectParams",
    "Side",
    "beyond_side",
    "extend_location",
    "find_kingdoms",
    "grid_homography",
    "order_corners",
    "parse_corners",
    "rectify",
]
