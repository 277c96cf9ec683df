"""Whether the program stands behind a total read from a photo (scorer.results.verdict)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorer.read.hidden import Cause, Unreadable
from scorer.read.params import DEFAULT
from scorer.results.verdict import SIDES, at_photo_edge, edge_sides, kingdom_verdict
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
            "the kingdom runs off the photo's edge at the right and the bottom",
        ),
        ({"doubtful": 3}, "3 squares are doubtful"),
        (
            {"violations": [Violation(ViolationKind.TOO_MANY_OF_PAIR, "2 squares of M3", ())]},
            "the squares read cannot all come from the 48 dominoes: 2 squares of M3",
        ),
    ],
)
def test_each_doubt_is_a_plain_reason(kw: dict[str, object], reason: str) -> None:
    reasons = _reasons(**kw)
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons


def test_a_grid_of_the_largest_side_at_the_edge_cannot_be_cut_off() -> None:
    """Kingdomino's kingdoms are at most 5×5 (7×7 in Mighty Duel): a grid already that large
    cannot continue past the edge it touches, whereas a 5×5 one in an unknown variant may be
    the middle of a 7×7 kingdom."""
    at_edge = [[0, 100], [500, 100], [500, 600], [0, 600]]
    assert _reasons(corners=at_edge, side=5) == ()
    assert _reasons(corners=at_edge, shape=(7, 7)) == ()
    assert _reasons(corners=at_edge, shape=(7, 7), side=7) == ()
    maybe_cut = "the kingdom reaches the photo's edge, so part of it may be cut off"
    assert _reasons(corners=at_edge) == (maybe_cut,)
    assert _reasons(corners=at_edge, shape=(4, 5), side=5)[-1] == maybe_cut
    beyond = [[-20, 100], [480, 100], [480, 600], [-20, 600]]  # squares cut: still unconfirmed
    assert _reasons(corners=beyond, side=5)[-1].startswith("the kingdom runs off the photo's edge")


def test_corners_the_player_marked_confirm_the_outline_not_the_squares() -> None:
    at_edge = [[0, 0], [500, 0], [500, 500], [0, 500]]
    assert _reasons(corners=at_edge, detected_shape=(4, 5), marked=True) == ()
    assert _reasons(corners=at_edge, marked=True, doubtful=4) == ("4 squares are doubtful",)
    assert _reasons(shape=(5, 4), marked=True) == ("the grid found is 5×4, not square",)


def test_the_margin_and_the_doubt_count_come_from_the_parameters() -> None:
    near = [[8, 100], [508, 100], [508, 600], [8, 600]]  # 8 pixels: 0.08 of a square
    assert _reasons(corners=near) == ()
    assert _reasons(corners=near, params=replace(DEFAULT, edge_margin=0.1))
    assert _reasons(doubtful=2, params=replace(DEFAULT, several_doubtful=2))


def test_a_corner_beyond_the_border_is_at_the_edge() -> None:
    assert at_photo_edge([[-1, 5], [50, 5], [50, 50], [5, 50]], (100, 100), 0.0)
    assert not at_photo_edge([[5, 5], [50, 5], [50, 50], [5, 50]], (100, 100), 4.0)


# --- squares that cannot be read, and a kingdom running off the photo ---------------------

GLARE = Unreadable((2, 1), Cause.GLARE)
HIDDEN = Unreadable((1, 1), Cause.HIDDEN)
CUT = Unreadable((0, 0), Cause.CUT_OFF)


@pytest.mark.parametrize("marked", [False, True])
def test_an_unreadable_square_always_leaves_the_total_unconfirmed(marked: bool) -> None:
    reasons = _reasons(unreadable=[GLARE, HIDDEN], marked=marked)
    assert reasons == (
        "glare hides row 3 column 2",
        "row 2 column 2 reads as empty inside the kingdom: something may hide it",
    )


@pytest.mark.parametrize(
    ("corners", "side"),
    [
        ([[-50, 100], [450, 100], [450, 600], [-50, 600]], "the left"),
        ([[600, 100], [1100, 100], [1100, 600], [600, 600]], "the right"),
        ([[100, -80], [600, -80], [600, 420], [100, 420]], "the top"),
        ([[-50, 600], [450, 600], [450, 1100], [-50, 1100]], "the left and the bottom"),
    ],
)
def test_a_kingdom_running_off_the_photo_names_the_side_and_what_to_do(
    corners: list[list[float]], side: str
) -> None:
    assert _reasons(corners=corners) == (
        f"the kingdom runs off the photo's edge at {side}: step back and take it again",
    )


def test_squares_cut_off_are_named_once_by_the_side_even_in_marked_corners() -> None:
    beyond = [[-50, 100], [450, 100], [450, 600], [-50, 600]]
    cut = [Unreadable((r, 0), Cause.CUT_OFF) for r in range(5)]
    expected = "the kingdom runs off the photo's edge at the left: step back and take it again"
    assert _reasons(corners=beyond, unreadable=cut, marked=True) == (expected,)
    assert _reasons(corners=beyond, unreadable=[*cut, GLARE]) == (
        expected,
        "glare hides row 3 column 2",
    )


def test_edge_sides_names_each_border_a_corner_reaches() -> None:
    assert edge_sides(INSIDE, PHOTO, 0.0) == ()
    assert edge_sides(INSIDE, PHOTO, 150.0) == ("left", "top")
    assert edge_sides([[0, 0], [999, 0], [999, 999], [0, 999]], PHOTO, 0.5) == SIDES
