"""The order of four corners clicked on a photo, against orders worked out by hand.

Picture coordinates: x to the right, y down. Clockwise is clockwise as seen on the screen.
The page orders clicks with :func:`scorer.detect.order_corners`, the rule detection applies
to any corners it is given.
"""

from __future__ import annotations

from itertools import permutations

import pytest

from scorer.page.photo import corners_in_order

Point = tuple[float, float]

CASES: list[tuple[str, list[Point], list[Point]]] = [
    (
        # An upright rectangle, clicked bottom-right, top-left, bottom-left, top-right.
        "upright, clicks scrambled",
        [(240, 200), (80, 40), (80, 200), (240, 40)],
        [(80, 40), (240, 40), (240, 200), (80, 200)],
    ),
    (
        # The same rectangle clicked anticlockwise from the bottom-left.
        "upright, clicked anticlockwise",
        [(80, 200), (240, 200), (240, 40), (80, 40)],
        [(80, 40), (240, 40), (240, 200), (80, 200)],
    ),
    (
        # A square turned about 27° clockwise (sides (20, 10), (-10, 20), ...). Side
        # midpoints' heights: top (10,0)-(30,10) 5, right 20, bottom 25, left 10, so the top
        # side starts at (10, 0), the highest corner.
        "square turned clockwise",
        [(20, 30), (10, 0), (0, 20), (30, 10)],
        [(10, 0), (30, 10), (20, 30), (0, 20)],
    ),
    (
        # A square turned about 27° anticlockwise. Its highest corner (20, 0) is the top-RIGHT
        # one: side midpoints' heights are 5 for (0,10)-(20,0), 10, 25 and 20, so the top
        # side starts at the leftmost corner (0, 10).
        "square turned anticlockwise",
        [(30, 20), (20, 0), (10, 30), (0, 10)],
        [(0, 10), (20, 0), (30, 20), (10, 30)],
    ),
    (
        # A square turned 80° clockwise: what was its left side is now nearly level at the
        # top. Corners at 10·(cos, sin) of -55°, 35°, 125°, 215° about (50, 50), rounded;
        # side midpoints' heights 43 for (42,44)-(56,42), then 49, 57 and 51: the top side
        # starts at (42, 44), the old bottom-left corner.
        "square turned 80°",
        [(56, 42), (58, 56), (44, 58), (42, 44)],
        [(42, 44), (56, 42), (58, 56), (44, 58)],
    ),
    (
        # Photographed from a player's seat: the far side is shorter (a trapezoid).
        "trapezoid from a seat",
        [(100, 60), (0, 60), (30, 0), (70, 0)],
        [(30, 0), (70, 0), (100, 60), (0, 60)],
    ),
    (
        # Clicks a little off a square's corners, as a finger leaves them.
        "clicks off the corners",
        [(203, 198), (98, 102), (101, 205), (199, 97)],
        [(98, 102), (199, 97), (203, 198), (101, 205)],
    ),
]


@pytest.mark.parametrize(
    ("clicks", "expected"), [(c, e) for _, c, e in CASES], ids=[n for n, _, _ in CASES]
)
def test_corners_start_top_left_and_go_clockwise(
    clicks: list[Point], expected: list[Point]
) -> None:
    assert corners_in_order(clicks) == tuple((float(x), float(y)) for x, y in expected)


@pytest.mark.parametrize(("clicks", "expected"), [(c, e) for _, c, e in CASES[2:4]])
def test_any_click_order_gives_the_same_corners(clicks: list[Point], expected: list[Point]) -> None:
    for order in permutations(clicks):
        assert corners_in_order(list(order)) == tuple(expected)


def test_corners_are_plain_floats_for_the_page_state() -> None:
    corners = corners_in_order([(1, 1), (9, 1), (9, 9), (1, 9)])
    assert all(type(v) is float for point in corners for v in point)
