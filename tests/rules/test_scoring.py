"""The rules of docs/rules.md: properties, points, bonuses, ranking, tile-set check."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.rules.kingdom import ALL_CELLS, CASTLE, MAX_SIZE, Cell, Kingdom, Terrain
from scorer.rules.scoring import (
    Player,
    Rules,
    TieBreakOrder,
    ViolationKind,
    is_centred,
    is_complete,
    properties,
    rank,
    score,
    tileset_violations,
)

BOTH = Rules(harmony=True, middle_kingdom=True)
HARMONY = Rules(harmony=True)
MIDDLE = Rules(middle_kingdom=True)
PLAIN = Rules()


def k(text: str) -> Kingdom:
    """A kingdom from a text grid written across lines."""
    return Kingdom.parse(text)


# The worked example of rules.md: a full 5×5 kingdom with two forests that do not
# touch (6 squares / 2 crowns at the top left, 2 squares / 1 crown at the bottom
# left), an 11-square lake without crowns and a 5-square grassland with 3 crowns:
# 6×2 + 2×1 + 11×0 + 5×3 = 12 + 2 + 0 + 15 = 29; 24 squares plus the castle fill it.
WORKED_CENTRED = k("""
F1 F1 F0 L0 L0
F0 F0 F0 L0 L0
G0 G0 C  L0 L0
G1 G2 G0 L0 L0
F1 F0 L0 L0 L0
""")
# The same kingdom with the castle swapped into the top-left corner: the forest
# keeps 6 squares and 2 crowns (it now includes the centre square), so still 29,
# still complete, but the castle is not in the middle.
WORKED_CORNER = k("""
C  F1 F0 L0 L0
F0 F0 F0 L0 L0
G0 G0 F1 L0 L0
G1 G2 G0 L0 L0
F1 F0 L0 L0 L0
""")

# The 45-45 tie of rules.md. Anna: forest 8 squares, no crown (0); grassland
# G2 G2 G1 G0 G0, 5 squares × 5 crowns (25); swamp S2 S2 S0 S0 S0, 5 × 4 (20):
# 45, largest 8, 9 crowns.
ANNA = k("""
F0 F0 F0 F0 .
F0 F0 F0 F0 .
C  G2 G2 G1 G0
S2 S2 S0 S0 G0
S0 .  .  .  .
""")
# Ben: wheat 7 squares × 5 crowns (35); mine M3 M2, 2 × 5 (10): 45, largest 7, 10 crowns.
BEN = k("""
W1 W1 W1 W1 W1
W0 W0 .  .  .
C  M3 M2 .  .
""")
# Cleo: wheat 3 × 1 (3) + mine 1 × 1 (1) = 4, largest 3, 2 crowns.
CLEO = k("W1 W0 W0 C M1")
# Dan: forest 3 × 0 + swamp 1 × 2 + grassland 1 × 2 = 4, largest 3, 4 crowns.
DAN = k("""
F0 F0 F0 C S2
.  .  .  G2 .
""")


@pytest.mark.parametrize(
    ("kingdom", "rules", "total"),
    [
        (WORKED_CENTRED, PLAIN, 29),
        (WORKED_CENTRED, HARMONY, 34),
        (WORKED_CENTRED, MIDDLE, 39),
        (WORKED_CENTRED, BOTH, 44),
        (WORKED_CORNER, PLAIN, 29),
        (WORKED_CORNER, HARMONY, 34),
        (WORKED_CORNER, MIDDLE, 29),
        (WORKED_CORNER, BOTH, 34),
    ],
)
def test_worked_example_totals(kingdom: Kingdom, rules: Rules, total: int) -> None:
    assert score(kingdom, rules).total == total


def test_worked_example_properties() -> None:
    found = sorted(
        (p.terrain.value, p.squares, p.crowns, p.points) for p in properties(WORKED_CENTRED)
    )
    assert found == [
        ("forest", 2, 1, 2),
        ("forest", 6, 2, 12),
        ("grassland", 5, 3, 15),
        ("lake", 11, 0, 0),
    ]
    assert sum(p.squares for p in properties(WORKED_CENTRED)) == 24


@pytest.mark.parametrize(
    ("grid", "points"),
    [
        # only crownless properties score nothing, however large
        ("W0 W0 W0 W0 W0\nF0 F0 F0 F0 F0\nL0 L0 C L0 L0\nG0 G0 G0 G0 G0\nS0 S0 S0 S0 M0", 0),
        ("C", 0),
        ("C . .\n. . .", 0),
        # two separate areas of one terrain are two properties: 2×1 + 2×1, not 4×2
        ("F1 F0 C F1 F0", 4),
        ("F1 F0 C F0", 2),
        # a diagonal does not join
        ("F1 L0\nL0 F1\nC .", 2),
        # the castle and empty cells join nothing
        ("W1 . W0\nW0 C W0", 2 + 1 * 0),
        # one property: squares × crowns
        ("M3 M2 M1 M0 C", 4 * 6),
    ],
)
def test_property_points(grid: str, points: int) -> None:
    assert score(k(grid)).property_points == points


@pytest.mark.parametrize(
    ("grid", "rules", "harmony", "middle"),
    [
        # incomplete and centred: Middle Kingdom needs no complete kingdom
        ("W0 C W0", BOTH, 0, 10),
        # castle in a corner of a 3×3: every square within 2 rows and columns
        ("C W0 W0\nW0 W0 W0\nW0 W0 W0", BOTH, 0, 10),
        # off-centre: a square 3 columns from the castle
        ("C W0 W0 W0", BOTH, 0, 0),
        ("W0\nC\nW0\nW0\nW0", BOTH, 0, 0),
        # empty cells do not count against the centre
        ("C W0 W0 .", BOTH, 0, 10),
        # options off: no bonus even when earned
        ("W0 C W0", PLAIN, 0, 0),
    ],
)
def test_bonuses(grid: str, rules: Rules, harmony: int, middle: int) -> None:
    breakdown = score(k(grid), rules)
    assert (breakdown.harmony, breakdown.middle_kingdom) == (harmony, middle)
    assert breakdown.total == breakdown.property_points + harmony + middle


def test_harmony_needs_every_cell_filled() -> None:
    hole = WORKED_CENTRED.replace((4, 4), Cell(Terrain.EMPTY))
    assert is_complete(WORKED_CENTRED)
    assert not is_complete(hole)
    assert score(hole, HARMONY).harmony == 0


def test_a_five_by_five_kingdom_in_a_mighty_duel_is_not_complete() -> None:
    assert is_complete(WORKED_CENTRED)
    assert not is_complete(WORKED_CENTRED, Rules(side=7))
    assert score(WORKED_CENTRED, Rules(harmony=True, side=7)).harmony == 0


def _duel(castle: tuple[int, int]) -> Kingdom:
    """A full 7×7 kingdom within the tile set: 7 rows of one terrain each, 1 crown per row.

    No two neighbouring rows share a terrain, so each row is one property.
    """
    rows = [[f"{t}1"] + [f"{t}0"] * 6 for t in "WFWLWFL"]
    rows[castle[0]][castle[1]] = "C"
    return k("\n".join(" ".join(row) for row in rows))


@pytest.mark.parametrize(
    ("castle", "total"),
    [
        # centred: 6 rows × 7 squares × 1 crown = 42; the castle splits row 3 into
        # L1 L0 L0 (3) and L0 L0 L0 (0); complete +5, centred +10
        ((3, 3), 42 + 3 + 0 + 5 + 10),
        # castle on row 3's crowned square: that row scores 0; 6 columns away, no Middle Kingdom
        ((3, 0), 42 + 0 + 5),
        # castle in the top-right corner: row 0 keeps its crown on 6 squares
        ((0, 6), 42 + 6 + 5),
    ],
)
def test_mighty_duel(castle: tuple[int, int], total: int) -> None:
    kingdom = _duel(castle)
    assert kingdom.side == 7
    assert is_complete(kingdom)
    assert score(kingdom, BOTH).total == total
    assert tileset_violations(kingdom) == ()


def test_mighty_duel_middle_kingdom_reach_is_three() -> None:
    assert is_centred(k("W0 W0 W0 C W0 W0 W0"))
    assert not is_centred(k("W0 W0 W0 C W0 W0 W0"), Rules(side=5))


# --- ranking ---------------------------------------------------------------------


def P(name: str, *kingdoms: Kingdom) -> Player:  # noqa: N802
    """A player from kingdoms."""
    return Player(name, kingdoms)


def test_tie_decided_by_property_size_and_crowns_never_compared() -> None:
    assert score(ANNA).total == score(BEN).total == 45
    ranking = rank([P("Ben", BEN), P("Anna", ANNA)])
    assert ranking.winners == ("Anna",)
    assert [(s.name, s.place) for s in ranking.standings] == [("Anna", 1), ("Ben", 2)]
    assert ranking.explanations == (
        "Anna and Ben both scored 45. Step 2 (largest property): Anna's largest property"
        " has 8 squares, Ben's 7, so Anna ranks ahead. Crowns were not compared.",
    )


def test_crowns_first_house_rule_reverses_the_steps() -> None:
    ranking = rank([P("Anna", ANNA), P("Ben", BEN)], Rules(tiebreak=TieBreakOrder.CROWNS_FIRST))
    assert ranking.winners == ("Ben",)
    (text,) = ranking.explanations
    assert 'House rule "crowns before largest property"' in text
    assert "Step 2 (crowns, house rule): Ben has 10 crowns, Anna 9, so Ben ranks ahead." in text
    assert text.endswith("Property sizes were not compared.")


def test_tie_decided_by_crowns() -> None:
    ranking = rank([P("Cleo", CLEO), P("Dan", DAN)])
    assert ranking.winners == ("Dan",)
    (text,) = ranking.explanations
    assert text == (
        "Dan and Cleo both scored 4. Step 2 (largest property): Dan's and Cleo's largest"
        " properties both have 3 squares, so this step does not decide. Step 3 (crowns):"
        " Dan has 4 crowns, Cleo 2, so Dan ranks ahead."
    )


def test_full_tie_is_a_shared_victory() -> None:
    ranking = rank([P("Eve", CLEO), P("Finn", CLEO)])
    assert ranking.winners == ("Eve", "Finn")
    assert [s.place for s in ranking.standings] == [1, 1]
    assert ranking.explanations[0].endswith("Eve and Finn share the victory.")


def test_no_tie_needs_no_explanation() -> None:
    ranking = rank([P("Anna", ANNA), P("Cleo", CLEO), P("Sam", WORKED_CENTRED)])
    assert [s.name for s in ranking.standings] == ["Anna", "Sam", "Cleo"]
    assert [s.place for s in ranking.standings] == [1, 2, 3]
    assert ranking.explanations == ()


def test_three_way_tie_split_over_two_steps_with_a_shared_place() -> None:
    ranking = rank([P("Cleo", CLEO), P("Eve", CLEO), P("Dan", DAN), P("Sam", WORKED_CENTRED)])
    assert [(s.name, s.place) for s in ranking.standings] == [
        ("Sam", 1),
        ("Dan", 2),
        ("Cleo", 3),
        ("Eve", 3),
    ]
    (text,) = ranking.explanations
    assert text.startswith("Dan, Cleo and Eve all scored 4.")
    assert "Dan ranks ahead of Cleo and Eve" in text
    assert text.endswith("Cleo and Eve share 3rd place.")


def test_three_way_tie_decided_at_step_two_for_one_then_step_three() -> None:
    # Gus: wheat 4 squares × 1 crown = 4, largest 4, 1 crown; ahead of Cleo and Dan by size
    gus = k("W1 W0 W0 W0 C")
    ranking = rank([P("Cleo", CLEO), P("Dan", DAN), P("Gus", gus)])
    assert [s.name for s in ranking.standings] == ["Gus", "Dan", "Cleo"]
    (text,) = ranking.explanations
    assert "Gus ranks ahead of Dan and Cleo." in text
    assert text.endswith(
        "Dan and Cleo are still tied."
        " Step 3 (crowns): Dan has 4 crowns, Cleo 2, so Dan ranks ahead."
    )


def test_dynasty_sums_three_games_and_breaks_ties_over_all_three() -> None:
    # Both sum to 45 + 4 + 4 = 53; Anna's largest in any kingdom is 8, Ben's 7.
    anna = P("Anna", ANNA, CLEO, DAN)
    ben = P("Ben", BEN, DAN, CLEO)
    ranking = rank([ben, anna])
    assert ranking.dynasty
    assert [(s.name, s.total, s.largest_property, s.crowns) for s in ranking.standings] == [
        ("Anna", 53, 8, 9 + 2 + 4),
        ("Ben", 53, 7, 10 + 4 + 2),
    ]
    (text,) = ranking.explanations
    assert "both scored 53 over 3 games" in text
    assert "House rule for Dynasty" in text
    assert "Anna's largest property in any kingdom has 8 squares" in text


def test_dynasty_winner_by_sum() -> None:
    ranking = rank([P("Anna", CLEO, CLEO, CLEO), P("Ben", DAN, DAN, WORKED_CENTRED)])
    assert ranking.winners == ("Ben",)
    assert [s.total for s in ranking.standings] == [4 + 4 + 29, 12]


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ([P("Anna", ANNA)], "2 to 4 players"),
        ([P(n, CLEO) for n in "ABCDE"], "2 to 4 players"),
        ([P("Anna", ANNA), P("Anna", BEN)], "names must differ"),
        ([P("Anna", ANNA), P("Ben", BEN, BEN, BEN)], "1 kingdom, or 3"),
        ([P("Anna", ANNA, ANNA), P("Ben", BEN, BEN)], "1 kingdom, or 3"),
    ],
)
def test_rank_refuses_bad_player_lists(players: list[Player], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rank(players)


# --- tile set ----------------------------------------------------------------------


def test_too_many_of_a_pair_names_the_pair_and_its_squares() -> None:
    (v,) = tileset_violations(k("M3 C M3\nW1 . M3"))
    assert v.kind is ViolationKind.TOO_MANY_OF_PAIR
    assert "3 squares of mine with 3 crowns (M3)" in v.message
    assert "only 1" in v.message
    assert v.positions == ((0, 0), (0, 2), (1, 2))


def test_every_pair_over_its_limit_is_listed() -> None:
    found = tileset_violations(k("G2 G2 G2 S2 S2 S2 C"))
    assert [(v.kind, len(v.positions)) for v in found] == [
        (ViolationKind.TOO_MANY_OF_PAIR, 3),
        (ViolationKind.TOO_MANY_OF_PAIR, 3),
    ]


def test_too_many_squares_and_outside_the_square() -> None:
    # 6 rows of 5 in a 5×5 game: 29 terrain squares (more than 12 dominoes) over 6 rows
    rows = ["W0 F0 L0 G0 W0"] * 6
    rows[2] = "W0 F0 C G0 W0"
    grid = k("\n".join(rows))
    found = {v.kind: v for v in tileset_violations(grid, Rules(side=5))}
    assert "29 terrain squares" in found[ViolationKind.TOO_MANY_SQUARES].message
    outside = found[ViolationKind.OUTSIDE_SQUARE]
    assert "6 rows" in outside.message
    assert outside.positions == tuple((5, c) for c in range(5))


def test_the_worked_examples_fit_the_tile_set() -> None:
    for kingdom in (WORKED_CENTRED, WORKED_CORNER, ANNA, BEN, CLEO, DAN):
        assert tileset_violations(kingdom) == ()


# --- labelled kingdoms ---------------------------------------------------------------

# Hand-checked properties of three labels copied from aau-boards (tests/fixtures/labels).
# aau-1 (castle centred, complete):
#   grassland 4 sq 0 c = 0; lake 1 sq = 0; forest 7 sq (F1 at row 2) 1 c = 7;
#   grassland G0 G0 G1 G2 G1 5 sq 4 c = 20; swamp S1 S2 2 sq 3 c = 6;
#   lake L0 L0 L1 3 sq 1 c = 3; forest 1 sq = 0; wheat 1 sq = 0.  36; +5 +10 = 51.
# aau-10 (two empty squares top right, castle centred):
#   wheat W1 1 sq = 1; mine M0 M2 M2 3 sq 4 c = 12; lake 7 sq 2 c = 14;
#   forest F1 1 sq = 1; swamp S0 S0 S2 3 sq 2 c = 6; wheat 3 sq 0 c = 0;
#   forest F0 F0 F1 F0 4 sq 1 c = 4.  38; not complete; centred +10 = 48.
# aau-11 (two empty squares bottom left, castle on the right edge):
#   forest 12 sq 3 c = 36; lake L1 L1 L0 3 sq 2 c = 6; wheat W0 W1 W0 W0 4 sq 1 c = 4;
#   grassland G1 G0 G0 3 sq 1 c = 3.  49; not complete; not centred = 49.
FIXTURE_SCORES = [
    ("aau-1.txt", [0, 0, 7, 20, 6, 3, 0, 0], 51),
    ("aau-10.txt", [1, 12, 14, 1, 6, 0, 4], 48),
    ("aau-11.txt", [36, 6, 4, 3], 49),
]


@pytest.mark.parametrize(("name", "points", "total"), FIXTURE_SCORES)
def test_fixture_labels_hand_checked(
    fixtures: Path, name: str, points: list[int], total: int
) -> None:
    kingdom = Kingdom.parse((fixtures / "labels" / name).read_text())
    breakdown = score(kingdom, BOTH)
    assert [p.points for p in breakdown.properties] == points
    assert breakdown.total == total
    assert tileset_violations(kingdom) == ()


@pytest.mark.parametrize(("name", "points", "total"), FIXTURE_SCORES)
def test_fixture_labels_are_copies_of_the_data(
    shared_data: Path, fixtures: Path, name: str, points: list[int], total: int
) -> None:
    source = shared_data / "aau-boards" / "labels" / name.removeprefix("aau-")
    assert Kingdom.parse(source.read_text()) == Kingdom.parse(
        (fixtures / "labels" / name).read_text()
    )


def test_all_labels_score_within_the_rules(shared_data: Path) -> None:
    labels = sorted((shared_data / "aau-boards" / "labels").glob("*.txt"))
    assert len(labels) == 57
    for path in labels:
        kingdom = Kingdom.parse(path.read_text())
        breakdown = score(kingdom, BOTH)
        _check_invariants(kingdom, breakdown.property_points)
        assert (
            breakdown.total
            == breakdown.property_points + breakdown.harmony + breakdown.middle_kingdom
        )
        assert (breakdown.harmony == 5) == (kingdom.counts()[Cell(Terrain.EMPTY)] == 0), path.name
        assert tileset_violations(kingdom) == (), path.name


# --- invariants (hypothesis) ------------------------------------------------------------

LAND_OR_EMPTY = [c for c in ALL_CELLS if c != CASTLE]


@st.composite
def kingdoms(draw: st.DrawFn) -> Kingdom:
    """Valid kingdoms up to 7×7: one castle, real (terrain, crowns) pairs, maybe empty cells."""
    height = draw(st.integers(1, MAX_SIZE))
    width = draw(st.integers(1, MAX_SIZE))
    cells = draw(
        st.lists(st.sampled_from(LAND_OR_EMPTY), min_size=height * width, max_size=height * width)
    )
    rows = [cells[r * width : (r + 1) * width] for r in range(height)]
    castle_r = draw(st.integers(0, height - 1))
    castle_c = draw(st.integers(0, width - 1))
    rows[castle_r][castle_c] = CASTLE
    return Kingdom.from_cells(rows)


TRANSFORMS: list[Callable[[Kingdom], Kingdom]] = [
    Kingdom.rotate,
    Kingdom.mirror,
    lambda x: x.rotate().rotate(),
    lambda x: x.rotate().mirror(),
]


@settings(max_examples=150, deadline=None)
@given(kingdoms(), st.sampled_from(TRANSFORMS), st.booleans(), st.booleans())
def test_rotating_or_mirroring_never_changes_the_score(
    kingdom: Kingdom, transform: Callable[[Kingdom], Kingdom], harmony: bool, middle: bool
) -> None:
    rules = Rules(harmony=harmony, middle_kingdom=middle)
    before, after = score(kingdom, rules), score(transform(kingdom), rules)
    assert (after.total, after.property_points, after.harmony, after.middle_kingdom) == (
        before.total,
        before.property_points,
        before.harmony,
        before.middle_kingdom,
    )
    assert sorted(
        (p.terrain.value, p.squares, p.crowns) for p in properties(transform(kingdom))
    ) == (sorted((p.terrain.value, p.squares, p.crowns) for p in properties(kingdom)))


@settings(max_examples=150, deadline=None)
@given(kingdoms())
def test_property_score_never_exceeds_squares_times_crowns(kingdom: Kingdom) -> None:
    _check_invariants(kingdom, score(kingdom).property_points)


@settings(max_examples=150, deadline=None)
@given(kingdoms())
def test_parse_format_round_trip(kingdom: Kingdom) -> None:
    assert Kingdom.parse(kingdom.format()) == kingdom


@settings(max_examples=100, deadline=None)
@given(kingdoms())
def test_properties_partition_the_land_into_maximal_connected_groups(kingdom: Kingdom) -> None:
    props = properties(kingdom)
    land = {p for p, c in kingdom.cells() if c.terrain.is_land}
    covered = [pos for prop in props for pos in prop.positions]
    assert sorted(covered) == sorted(land)
    for prop in props:
        assert all(kingdom[pos].terrain is prop.terrain for pos in prop.positions)
        assert prop.crowns == sum(kingdom[pos].crowns for pos in prop.positions)
        for pos in prop.positions:
            for n in kingdom.neighbours(pos):
                assert (kingdom[n].terrain is prop.terrain) == (n in prop.positions)
        assert _connected(kingdom, prop.positions)


def _connected(kingdom: Kingdom, positions: frozenset[tuple[int, int]]) -> bool:
    start = next(iter(positions))
    seen = {start}
    todo = [start]
    while todo:
        for n in kingdom.neighbours(todo.pop()):
            if n in positions and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == positions


def _check_invariants(kingdom: Kingdom, points: int) -> None:
    land = [c for _, c in kingdom.cells() if c.terrain.is_land]
    crowns = sum(c.crowns for c in land)
    assert 0 <= points <= len(land) * crowns
