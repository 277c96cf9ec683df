"""Tests for the squares that cannot be read (scorer.read.unreadable)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.read.classify import predict_from_probabilities
from scorer.read.corrections import read_and_correct
from scorer.read.hidden import Cause, Unreadable
from scorer.read.params import DEFAULT
from scorer.read.unreadable import (
    cut_off_squares,
    glare_squares,
    over_the_edge,
    squares_like_table,
    unlike_table,
    unreadable_squares,
    walled_in_empty,
    with_unreadable,
)
from scorer.rules.kingdom import ALL_CELLS, EMPTY, Kingdom

Board = tuple[np.ndarray, Kingdom]
SIDE = 64
WHOLE = BoardLocation(
    np.array([[0, 0], [5 * SIDE, 0], [5 * SIDE, 5 * SIDE], [0, 5 * SIDE]], np.float64), (5, 5)
)


def _glare(board: np.ndarray, row: int, col: int, strength: float = 400.0) -> np.ndarray:
    """A white glare spot centred on one square, fading over about half a square."""
    yy, xx = np.mgrid[0 : board.shape[0], 0 : board.shape[1]].astype(np.float64)
    cy, cx = (row + 0.5) * SIDE, (col + 0.5) * SIDE
    spot = strength * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (0.4 * SIDE) ** 2))
    return np.clip(board + spot[..., None], 0, 255).astype(np.uint8)


def _reading(grid: str) -> object:
    """What a sure classifier reads on a grid (every square's label at probability ~1)."""
    kingdom = Kingdom.parse(grid)
    proba = np.full((kingdom.height, kingdom.width, len(ALL_CELLS)), 1e-6)
    for (r, c), cell in kingdom.cells():
        proba[r, c, ALL_CELLS.index(cell)] = 1.0
    return predict_from_probabilities(proba)


class ConstantModel:
    """A stand-in classifier: the fixture board's labels, and empty where told."""

    def __init__(self, grid: Kingdom, empty: Sequence[tuple[int, int]] = ()) -> None:
        self.grid, self.empty = grid, set(empty)

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        proba = np.full((len(crops), len(ALL_CELLS)), 1e-6)
        for i, (pos, cell) in enumerate(self.grid.cells()):
            proba[i, ALL_CELLS.index(EMPTY if pos in self.empty else cell)] = 1.0
        return proba


def test_the_fixture_board_has_no_unreadable_square(crop_board: Board) -> None:
    board, grid = crop_board
    prediction = ConstantModel(grid)
    read = read_and_correct(board, WHOLE, board, prediction, SIDE, refine=False)[1]  # type: ignore[arg-type]
    assert read.prediction.unreadable == ()
    assert read.prediction.kingdom == grid


@pytest.mark.parametrize(("row", "col"), [(2, 1), (0, 4), (4, 0)])
def test_a_glare_spot_over_one_square_is_flagged_with_its_row_and_column(
    crop_board: Board, row: int, col: int
) -> None:
    board, _ = crop_board
    assert glare_squares(board, (5, 5)) == []
    assert glare_squares(_glare(board, row, col), (5, 5)) == [(row, col)]


def test_a_faint_sheen_is_not_glare(crop_board: Board) -> None:
    board, _ = crop_board
    assert glare_squares(_glare(board, 2, 1, strength=60.0), (5, 5)) == []


@pytest.mark.parametrize("refine", [True, False])
def test_glare_read_as_empty_is_flagged_and_guessed_whoever_found_the_corners(
    crop_board: Board, refine: bool
) -> None:
    board, grid = crop_board
    washed = _glare(board, 2, 1)
    model = ConstantModel(grid, empty=[(2, 1)])  # the washed square reads as empty
    read = read_and_correct(washed, WHOLE, washed, model, SIDE, refine=refine)[1]  # type: ignore[arg-type]
    assert read.prediction.unreadable == (Unreadable((2, 1), Cause.GLARE),)
    assert (2, 1) in read.prediction.doubtful
    assert read.prediction.kingdom[(2, 1)] != EMPTY  # the best guess is a tile
    assert read.prediction.unreadable[0].reason == "glare hides row 3 column 2"


@pytest.mark.parametrize(
    ("grid", "holes"),
    [
        ("W0 W0 F0\nL0 . F0\nL0 C .", [(1, 1)]),  # one square walled in by tiles
        ("W0 W0 F0 F0\nL0 . . F0\nL0 C W0 W0", [(1, 1), (1, 2)]),  # a domino's hole
        ("W0 W0 F0\nL0 C F0\nL0 . .", []),  # at the rim: no domino was placed there
        ("W0 W0 F0\n. . F0\nL0 C F0", []),  # open to the rim through another empty square
        ("W0 W0 .\nF0 F0 .\nC . .", []),
    ],
)
def test_an_empty_read_walled_in_by_tiles_is_hidden_but_one_at_the_rim_is_not(
    grid: str, holes: list[tuple[int, int]]
) -> None:
    found = walled_in_empty(_reading(grid))  # type: ignore[arg-type]
    assert [s.position for s in found] == holes
    assert all(s.cause is Cause.HIDDEN for s in found)


def test_a_hidden_square_gets_its_best_tile_guess() -> None:
    prediction = _reading("W0 W0 F0\nL0 . F0\nL0 C .")
    hidden = walled_in_empty(prediction)  # type: ignore[arg-type]
    guessed = with_unreadable(prediction, hidden)  # type: ignore[arg-type]
    assert guessed.kingdom[(1, 1)] != EMPTY
    assert guessed.kingdom[(2, 2)] == EMPTY  # the rim square stays empty
    assert (1, 1) in guessed.doubtful and guessed.unreadable == tuple(hidden)
    assert with_unreadable(prediction, ()) is prediction  # type: ignore[arg-type]


def test_once_an_empty_read_is_walled_in_every_empty_read_is_doubtful() -> None:
    # The reader took tiles for table in the middle (1, 1): its empty reads at the rim,
    # (2, 2) and (2, 3), possible in a kingdom's shape, are no surer and go to the player.
    prediction = _reading("W0 W0 F0 F0\nL0 . F0 F0\nL0 C . .")
    checked = with_unreadable(prediction, walled_in_empty(prediction))  # type: ignore[arg-type]
    assert {(1, 1), (2, 2), (2, 3)} <= checked.doubtful
    assert checked.kingdom[(2, 2)] == EMPTY and checked.kingdom[(2, 3)] == EMPTY


def test_an_empty_read_at_the_rim_stays_sure_when_no_empty_read_is_shown_wrong() -> None:
    prediction = _reading("W0 W0 F0\nL0 C F0\nL0 . .")  # a discarded domino's place
    glare = [Unreadable((0, 0), Cause.GLARE)]
    checked = with_unreadable(prediction, glare)  # type: ignore[arg-type]
    assert checked.doubtful == frozenset({(0, 0)})


@pytest.mark.parametrize(
    ("empty", "doubted"),
    [
        ([(0, 4)], True),  # 23 terrain squares: no number of whole dominoes leaves that
        ([(0, 3), (0, 4)], False),  # 22: one domino discarded
    ],
)
def test_an_odd_number_of_terrain_squares_puts_the_empty_reads_in_doubt(
    empty: list[tuple[int, int]], doubted: bool
) -> None:
    rows = [row.split() for row in LAYOUT_READ.splitlines()]
    for r, c in empty:
        rows[r][c] = "."
    prediction = _reading("\n".join(" ".join(row) for row in rows))
    checked = with_unreadable(prediction, ())  # type: ignore[arg-type]
    assert (set(empty) <= checked.doubtful) is doubted
    assert all(checked.kingdom[pos] == EMPTY for pos in empty)


@pytest.mark.parametrize(
    ("corners", "cut"),
    [
        ([[0, 0], [500, 0], [500, 500], [0, 500]], []),
        ([[-40, 0], [460, 0], [460, 500], [-40, 500]], [(r, 0) for r in range(5)]),
        ([[-20, 0], [480, 0], [480, 500], [-20, 500]], []),  # a fifth of a square: read
        ([[100, 300], [600, 300], [600, 800], [100, 800]], [(4, c) for c in range(5)]),
    ],
)
def test_squares_beyond_the_photos_border_are_cut_off(
    corners: list[list[float]], cut: list[tuple[int, int]]
) -> None:
    location = BoardLocation(np.array(corners, np.float64), (5, 5))
    assert cut_off_squares(location, (720, 1000)) == cut


def test_each_square_is_named_for_one_cause_the_cut_first(crop_board: Board) -> None:
    board, grid = crop_board
    washed = _glare(_glare(board, 0, 0), 2, 2)
    prediction = _reading("\n".join(" ".join(c.token for c in row) for row in grid.rows))
    location = BoardLocation(WHOLE.corners - [20.0, 0.0], (5, 5))
    found = unreadable_squares(washed, location, prediction, washed)  # type: ignore[arg-type]
    assert found[0] == Unreadable((0, 0), Cause.CUT_OFF)
    assert Unreadable((2, 2), Cause.GLARE) in found
    strict = replace(DEFAULT, glare_share=1.0)  # no share of a square is over all of it
    assert Unreadable((2, 2), Cause.GLARE) not in unreadable_squares(
        washed,
        location,
        prediction,  # type: ignore[arg-type]
        washed,
        strict,
    )


@pytest.mark.parametrize(("table", "glare"), [(250, False), (60, True)])
def test_a_white_square_read_empty_at_the_rim_is_glare_only_off_a_white_table(
    crop_board: Board, table: int, glare: bool
) -> None:
    board, grid = crop_board
    photo = np.full((7 * SIDE, 7 * SIDE, 3), table, np.uint8)
    photo[SIDE : 6 * SIDE, SIDE : 6 * SIDE] = board
    photo[SIDE : 2 * SIDE, SIDE : 2 * SIDE] = 250  # the corner square: bare, or washed out
    location = BoardLocation(WHOLE.corners + SIDE, (5, 5))
    kingdom = "\n".join(" ".join(c.token for c in row) for row in grid.rows)
    prediction = _reading("." + kingdom[2:])  # read as empty
    found = unreadable_squares(photo[SIDE : 6 * SIDE, SIDE : 6 * SIDE], location, prediction, photo)  # type: ignore[arg-type]
    assert (Unreadable((0, 0), Cause.GLARE) in found) is glare


@pytest.mark.parametrize(
    ("colour", "covered"),
    [((60, 60, 60), False), ((125, 155, 215), True)],  # the table; a hand's skin
)
def test_an_empty_read_at_the_rim_unlike_the_table_is_covered(
    crop_board: Board, colour: tuple[int, int, int], covered: bool
) -> None:
    board, _ = crop_board
    photo = np.full((7 * SIDE, 7 * SIDE, 3), 60, np.uint8)
    photo[SIDE : 6 * SIDE, SIDE : 6 * SIDE] = board
    photo[SIDE : 2 * SIDE, 5 * SIDE : 6 * SIDE] = colour  # the top right corner square
    location = BoardLocation(WHOLE.corners + SIDE, (5, 5))
    rows = [row.split() for row in LAYOUT_READ.splitlines()]
    rows[0][4] = "."  # read as empty
    prediction = _reading("\n".join(" ".join(row) for row in rows))
    inner = photo[SIDE : 6 * SIDE, SIDE : 6 * SIDE]
    found = unreadable_squares(inner, location, prediction, photo)  # type: ignore[arg-type]
    assert (Unreadable((0, 4), Cause.COVERED) in found) is covered
    assert unlike_table(inner, location, prediction, photo) == ([(0, 4)] if covered else [])  # type: ignore[arg-type]


@pytest.mark.parametrize(("margin", "unchecked"), [(SIDE, False), (0, True)])
def test_an_empty_read_with_no_table_in_view_is_left_to_the_player(
    crop_board: Board, margin: int, unchecked: bool
) -> None:
    # The last two squares of the top row (a discarded domino's place) show the table's
    # grey and are read as empty. With the table in view around the kingdom that is
    # confirmed; in a photo cropped to the kingdom's edge nothing confirms it, and they keep
    # their reading but are flagged.
    photo, inner, location = _on_grey_table(crop_board[0], margin, bare=2)
    rows = [row.split() for row in LAYOUT_READ.splitlines()]
    rows[0][3] = rows[0][4] = "."
    prediction = _reading("\n".join(" ".join(row) for row in rows))
    found = unreadable_squares(inner, location, prediction, photo)  # type: ignore[arg-type]
    assert (Unreadable((0, 4), Cause.NO_TABLE) in found) is unchecked
    checked = with_unreadable(prediction, found)  # type: ignore[arg-type]
    assert checked.kingdom[(0, 4)] == EMPTY
    assert ((0, 4) in checked.doubtful) is unchecked


@pytest.mark.parametrize(("margin", "alike"), [(SIDE, [(0, 3)]), (0, [])])
def test_squares_like_the_table_around_are_those_compared_with_it_and_alike(
    crop_board: Board, margin: int, alike: list[tuple[int, int]]
) -> None:
    # Square (0, 3) shows the table's grey, (0, 4) and (2, 2) their tiles. In a photo cropped
    # to the kingdom's edge no table is in view, and no square is said to look like it.
    photo, inner, location = _on_grey_table(crop_board[0], margin, bare=1)
    squares = [(0, 3), (0, 4), (2, 2)]
    assert squares_like_table(inner, location, squares, photo) == alike


def _on_grey_table(
    board: np.ndarray, margin: int, bare: int
) -> tuple[np.ndarray, np.ndarray, BoardLocation]:
    """The fixture board on a grey table ``margin`` pixels wide, with the table showing
    through the top row's ``bare`` squares from its fourth on: the photo, the board as
    rectified from it, and where it lies."""
    side = 5 * SIDE + 2 * margin
    photo = np.full((side, side, 3), 60, np.uint8)
    photo[margin : margin + 5 * SIDE, margin : margin + 5 * SIDE] = board
    photo[margin : margin + SIDE, margin + 3 * SIDE : margin + (3 + bare) * SIDE] = 60
    inner = photo[margin : margin + 5 * SIDE, margin : margin + 5 * SIDE]
    return photo, inner, BoardLocation(WHOLE.corners + margin, (5, 5))


LAYOUT_READ = "W0 W0 F0 F0 L0\nW1 M0 F1 G0 L0\nS0 S0 C G0 L1\nS2 G2 G2 W0 W0\nM2 L0 L1 F0 F0"
"""The grid of the fixture board (``conftest.LAYOUT``)."""


SKIN = (125, 155, 215)
"""A hand's colour (BGR)."""


@pytest.mark.parametrize(
    ("inside", "outside", "over"),
    [
        (SKIN, SKIN, True),  # a hand over the corner square, reaching out over the table
        (None, (110, 110, 110), False),  # a brighter patch of table beside the square
        (SKIN, None, False),  # a skin-coloured square, the table clear beside it
    ],
)
def test_something_lying_over_the_kingdoms_edge_covers_the_rim_square_it_reaches(
    crop_board: Board,
    inside: tuple[int, int, int] | None,
    outside: tuple[int, int, int] | None,
    over: bool,
) -> None:
    board, _ = crop_board
    photo = np.full((7 * SIDE, 7 * SIDE, 3), 60, np.uint8)
    photo[SIDE : 6 * SIDE, SIDE : 6 * SIDE] = board
    if outside is not None:  # over the table beside the top-right corner square
        photo[SIDE // 2 : SIDE, 5 * SIDE : 6 * SIDE + SIDE // 2] = outside
        photo[SIDE : 2 * SIDE, 6 * SIDE : 6 * SIDE + SIDE // 2] = outside
    if inside is not None:
        photo[SIDE : 2 * SIDE, 5 * SIDE + SIDE // 3 : 6 * SIDE] = inside
    location = BoardLocation(WHOLE.corners + SIDE, (5, 5))
    inner = photo[SIDE : 6 * SIDE, SIDE : 6 * SIDE]
    assert over_the_edge(inner, location, photo) == ([(0, 4)] if over else [])
    prediction = _reading(LAYOUT_READ)
    found = unreadable_squares(inner, location, prediction, photo)  # type: ignore[arg-type]
    assert (Unreadable((0, 4), Cause.OVER_EDGE) in found) is over
