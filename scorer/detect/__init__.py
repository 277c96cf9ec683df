"""Find kingdoms in a photo and rectify them to a square grid."""

from scorer.detect.board import (
    MIN_SIDE,
    SQUARE_PX,
    BoardLocation,
    Side,
    beyond_side,
    extend_location,
    find_kingdoms,
    grid_homography,
    order_corners,
    parse_corners,
    rectify,
)

__all__ = [
    "MIN_SIDE",
    "SQUARE_PX",
    "BoardLocation",
    "Side",
    "beyond_side",
    "extend_location",
    "find_kingdoms",
    "grid_homography",
    "order_corners",
    "parse_corners",
    "rectify",
]
