"""The domain: cells, the text grid, kingdom geometry and the tile set."""

from __future__ import annotations

import pytest

from scorer.rules.kingdom import (
    ALL_CELLS,
    CASTLE,
    DUEL_SIZE,
    EMPTY,
    LAND_TERRAINS,
    STANDARD_SIZE,
    Cell,
    GridParseError,
    Kingdom,
    Terrain,
    tileset,
    tileset_counts,
)

ROW8 = " ".join(["W0"] * 8)


@pytest.mark.parametrize(
    ("text", "line", "column", "token", "reason"),
    [
        ("W0 X0 C", 1, 2, "X0", "unknown terrain letter"),
        ("W0 C\nF0 W2", 2, 2, "W2", "wheat never has 2 crowns"),
        ("M4 C", 1, 1, "M4", "mine never has 4 crowns"),
        ("C F", 1, 2, "F", "a terrain letter and a crown count"),
        ("W0 C\nC W0", 2, 1, "C", "a second castle; the first is at line 1, column 2"),
        ("W0 W0\nF0 F0", None, None, None, "no castle"),
        ("W0 C W0\nF0 F0", 2, None, None, "ragged row: 2 squares, but line 1 has 3"),
        ("# a comment\n\nW0 C W0\nF0 F0 F0 F0", 4, None, None, "ragged row"),
        ("\n".join(["C W0"] + ["W0 W0"] * 7), 8, None, None, "more than 7 rows"),
        (f"C {ROW8}", 1, 8, "W0", "9 squares in a row; a kingdom is at most 7×7"),
        ("", None, None, None, "the grid is empty"),
        ("# only a comment", None, None, None, "the grid is empty"),
    ],
)
def test_parse_errors_name_line_column_token_and_reason(
    text: str, line: int | None, column: int | None, token: str | None, reason: str
) -> None:
    with pytest.raises(GridParseError) as caught:
        Kingdom.parse(text)
    err = caught.value
    assert (err.line, err.column, err.token) == (line, column, token)
    assert reason in err.reason
    assert reason in str(err)
    if line is not None:
        assert f"line {line}" in str(err)
    if token is not None:
        assert repr(token) in str(err)


def test_parse_skips_comments_and_blank_lines_and_reads_lower_case() -> None:
    kingdom = Kingdom.parse("# board 1\n\n  g0 l1 c  \n\nw0 . m3\n")
    assert kingdom.lines() == ["G0 L1 C", "W0 . M3"]
    assert kingdom.castle == (0, 2)


@pytest.mark.parametrize(
    ("text", "shape", "side"),
    [
        ("C", (1, 1), STANDARD_SIZE),
        ("C W0 W0 W0 W0", (1, 5), STANDARD_SIZE),
        ("C W0 W0 W0 W0 W0", (1, 6), DUEL_SIZE),
        ("\n".join(["C"] + ["W0"] * 6), (7, 1), DUEL_SIZE),
    ],
)
def test_shape_and_side(text: str, shape: tuple[int, int], side: int) -> None:
    kingdom = Kingdom.parse(text)
    assert kingdom.shape == shape
    assert kingdom.side == side


def test_rotate_and_mirror() -> None:
    kingdom = Kingdom.parse("F1 C\nW0 .\nL0 M2")
    assert kingdom.rotate().lines() == ["L0 W0 F1", "M2 . C"]
    assert kingdom.mirror().lines() == ["C F1", ". W0", "M2 L0"]
    assert kingdom.rotate().rotate().rotate().rotate() == kingdom
    assert kingdom.mirror().mirror() == kingdom


def test_replace_and_counts() -> None:
    kingdom = Kingdom.parse("F1 C F1")
    changed = kingdom.replace((0, 2), EMPTY)
    assert changed.lines() == ["F1 C ."]
    assert kingdom.counts()[Cell(Terrain.FOREST, 1)] == 2
    assert changed.counts()[EMPTY] == 1


@pytest.mark.parametrize(
    "rows",
    [
        (),
        ((CASTLE,), (CASTLE,)),
        ((EMPTY,),),
        ((CASTLE, EMPTY), (EMPTY,)),
        tuple((CASTLE if r == c == 0 else EMPTY for c in range(8)) for r in range(1)),
    ],
)
def test_invalid_kingdoms_are_refused(rows: tuple[tuple[Cell, ...], ...]) -> None:
    with pytest.raises(ValueError):
        Kingdom.from_cells(rows)


def test_cells_outside_the_tile_set_do_not_exist() -> None:
    with pytest.raises(ValueError, match="never has"):
        Cell(Terrain.WHEAT, 2)
    assert len(ALL_CELLS) == 16 + 2


def test_tileset_matches_the_data_readme() -> None:
    dominoes = tileset()
    assert [d.number for d in dominoes] == list(range(1, 49))
    counts = tileset_counts()
    assert sum(counts.values()) == 96
    squares = {t: sum(n for c, n in counts.items() if c.terrain is t) for t in LAND_TERRAINS}
    crowns = {
        t: sum(n * c.crowns for c, n in counts.items() if c.terrain is t) for t in LAND_TERRAINS
    }
    assert [squares[t] for t in LAND_TERRAINS] == [26, 22, 18, 14, 10, 6]
    assert [crowns[t] for t in LAND_TERRAINS] == [5, 6, 6, 6, 6, 10]
    assert set(counts) == set(ALL_CELLS) - {CASTLE, EMPTY}
