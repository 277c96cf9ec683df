"""Whether the program stands behind a total read from a photo (scorer.results.verdict)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorer.read.params import DEFAULT
from scorer.results.verdict import at_photo_edge, kingdom_verdict
from scorer.rules.scoring import Violation, ViolationKind

# A 5×5 kingdom of 100-pixel squares, 100 pixels inside a 1000×1000 photo.
INSIDE = [[100, 100], [600, 100], [600, 600], [100, 600]]
PHOTO = (1000, 1000)


def _reasons(**kw: object) -> tuple[str, ...]:
    shape = kw.pop("shape", (5, 5))
    corners = kw.pop("corners", INSIDE)
    return kingdom_verdict(shape, corners, PHOTO, 100.0, **kw)  # type: ignore[arg-type]


def test_a_clear_kingdom_inside_the_photo_is_confirmed() -> None:
    assert _reasons() == ()
    assert _reasons(shape=(7, 7)) == ()
    assert _reasons(doubtful=DEFAULT.several_doubtful - 1) == ()


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({"shape": (5, 4)}, "the grid found is 5×4, not square"),
        ({"shape": (6, 6)}, "the grid found is 6×6, not 5×5 or 7×7"),
        ({"shape": (5, 5), "side": 7}, "the grid found is 5×5, not the 7×7 of the variant"),
        ({"detected_shape": (4, 5)}, "the reading moved the outline detection found (4×5)"),
        (
            {"corners": [[3, 100], [503, 100], [503, 600], [3, 600]]},
            "the kingdom reaches the photo's edge",
        ),
        (
            {"corners": [[500, 500], [1010, 500], [1010, 1000], [500, 1000]]},
            "the kingdom reaches the photo's edge",
        ),
        ({"doubtful": 3}, "3 squares were read with low confidence"),
        (
            {"violations": [Violation(ViolationKind.TOO_MANY_OF_PAIR, "2 squares of M3", ())]},
            "the squares read cannot all come from the 48 dominoes: 2 squares of M3",
        ),
    ],
)
def test_each_doubt_is_a_plain_reason(kw: dict[str, object], reason: str) -> None:
    reasons = _reasons(**kw)
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons


def test_corners_the_player_marked_confirm_the_outline_not_the_squares() -> None:
    at_edge = [[0, 0], [500, 0], [500, 500], [0, 500]]
    assert _reasons(corners=at_edge, detected_shape=(4, 5), marked=True) == ()
    assert _reasons(corners=at_edge, marked=True, doubtful=4) == (
        "4 squares were read with low confidence",
    )
    assert _reasons(shape=(5, 4), marked=True) == ("the grid found is 5×4, not square",)


def test_the_margin_and_the_doubt_count_come_from_the_parameters() -> None:
    near = [[8, 100], [508, 100], [508, 600], [8, 600]]  # 8 pixels: 0.08 of a square
    assert _reasons(corners=near) == ()
    assert _reasons(corners=near, params=replace(DEFAULT, edge_margin=0.1))
    assert _reasons(doubtful=2, params=replace(DEFAULT, several_doubtful=2))


def test_a_corner_beyond_the_border_is_at_the_edge() -> None:
    assert at_photo_edge([[-1, 5], [50, 5], [50, 50], [5, 50]], (100, 100), 0.0)
    assert not at_photo_edge([[5, 5], [50, 5], [50, 50], [5, 50]], (100, 100), 4.0)
