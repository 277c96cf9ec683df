"""The rules: properties, points, bonuses, ranking and the tile-set check.

Pure functions over :class:`~scorer.rules.kingdom.Kingdom`; nothing here knows of
images. The rules are those of ``docs/rules.md``: a property is a maximal
4-connected group of one terrain and scores squares × crowns; Harmony (+5) and
Middle Kingdom (+10) are options; ties are broken by the largest property,
then by crowns, unless the house rule "crowns before largest property" is
chosen.

>>> k = Kingdom.parse('''
... F1 F0 L0
... F0 C  L1
... W0 W0 W1''')
>>> [(p.terrain.value, p.squares, p.crowns, p.points) for p in properties(k)]
[('forest', 3, 1, 3), ('lake', 2, 1, 2), ('wheat', 3, 1, 3)]
>>> score(k).total
8

The grid side
-------------
Harmony, Middle Kingdom and the tile-set check need the side of the square
the kingdom is played in. By default it is :attr:`Kingdom.side`: 7 when the
grid is wider or taller than 5 (Mighty Duel), else 5. A Mighty Duel kingdom
whose squares happen to fit in 5×5 (an unfinished game, or a photo cropped
to the filled part) cannot be told from a normal one, so :attr:`Rules.side`
forces the side. Forcing 5 on a grid whose filled squares span more than 5
rows or columns scores it as usual; :func:`tileset_violations` then reports
the squares outside the 5×5 square and the surplus of squares.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from scorer.rules.kingdom import (
    DUEL_SIZE,
    STANDARD_SIZE,
    Cell,
    Kingdom,
    Position,
    Terrain,
    tileset_counts,
)

HARMONY_BONUS: Final = 5
"""Points for a complete kingdom when Harmony is in play."""

MIDDLE_KINGDOM_BONUS: Final = 10
"""Points for a centred castle when Middle Kingdom is in play."""

DOMINOES_PER_KINGDOM: Final = {STANDARD_SIZE: 12, DUEL_SIZE: 24}
"""Dominoes a finished kingdom holds, by grid side."""

DYNASTY_GAMES: Final = 3
"""Games in a Dynasty."""

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4

CROWNS_FIRST_NAME: Final = "crowns before largest property"
"""The name the product gives the house-rule tie-break order."""


class TieBreakOrder(enum.Enum):
    """The order of the tie-break steps after the total score."""

    OFFICIAL = "official"
    """Largest property, then total crowns (the published rules)."""

    CROWNS_FIRST = "crowns-first"
    """House rule: total crowns, then largest property."""


@dataclass(frozen=True)
class Rules:
    """The options the players chose before the game.

    ``side`` forces the grid side (5, or 7 for Mighty Duel); ``None`` takes
    it from the kingdom's grid (see the module docstring).
    """

    harmony: bool = False
    middle_kingdom: bool = False
    tiebreak: TieBreakOrder = TieBreakOrder.OFFICIAL
    side: int | None = None

    def __post_init__(self) -> None:
        if self.side is not None and self.side not in DOMINOES_PER_KINGDOM:
            raise ValueError(f"a kingdom's side is {STANDARD_SIZE} or {DUEL_SIZE}, not {self.side}")


@dataclass(frozen=True)
class Property:
    """A maximal group of edge-joined squares of one terrain."""

    terrain: Terrain
    positions: frozenset[Position]
    crowns: int

    @property
    def squares(self) -> int:
        """Number of squares in the property."""
        return len(self.positions)

    @property
    def points(self) -> int:
        """Squares × crowns; a property without crowns scores 0."""
        return self.squares * self.crowns


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every number of one kingdom's score."""

    properties: tuple[Property, ...]
    property_points: int
    harmony: int
    middle_kingdom: int
    total: int
    largest_property: int
    crowns: int


@dataclass(frozen=True)
class Player:
    """A named player with one kingdom, or three for a Dynasty."""

    name: str
    kingdoms: tuple[Kingdom, ...]


@dataclass(frozen=True)
class Standing:
    """One player's place and the numbers the ranking compared."""

    name: str
    place: int
    total: int
    largest_property: int
    crowns: int
    scores: tuple[ScoreBreakdown, ...]


@dataclass(frozen=True)
class Ranking:
    """Players in order of place, with a plain-words explanation of every tie."""

    standings: tuple[Standing, ...]
    explanations: tuple[str, ...]
    dynasty: bool = False
    rules: Rules = field(default_factory=Rules)

    @property
    def winners(self) -> tuple[str, ...]:
        """Names of the players in first place (more than one for a shared victory)."""
        return tuple(s.name for s in self.standings if s.place == 1)


class ViolationKind(enum.Enum):
    """The ways a kingdom can break the limits of the real game."""

    TOO_MANY_OF_PAIR = "too-many-of-pair"
    TOO_MANY_SQUARES = "too-many-squares"
    OUTSIDE_SQUARE = "outside-square"


@dataclass(frozen=True)
class Violation:
    """A limit of the 48 dominoes the kingdom breaks, and the doubtful squares."""

    kind: ViolationKind
    message: str
    positions: tuple[Position, ...]


def properties(kingdom: Kingdom) -> tuple[Property, ...]:
    """Return the kingdom's properties, ordered by their first square row by row.

    >>> k = Kingdom.parse("F1 F0 C F0")
    >>> [(p.squares, p.crowns) for p in properties(k)]
    [(2, 1), (1, 0)]
    """
    seen: set[Position] = set()
    found: list[Property] = []
    for pos, cell in kingdom.cells():
        if pos in seen or not cell.terrain.is_land:
            continue
        group = _flood(kingdom, pos)
        seen |= group
        crowns = sum(kingdom[p].crowns for p in group)
        found.append(Property(cell.terrain, frozenset(group), crowns))
    return tuple(found)


def property_points(kingdom: Kingdom) -> int:
    """Return the sum of squares × crowns over all properties.

    >>> property_points(Kingdom.parse("F1 F0 C F0 F1"))
    4
    """
    return sum(p.points for p in properties(kingdom))


def side(kingdom: Kingdom, rules: Rules | None = None) -> int:
    """Return the side of the square the kingdom is played in.

    >>> side(Kingdom.parse("C W0")), side(Kingdom.parse("C W0"), Rules(side=7))
    (5, 7)
    """
    if rules is not None and rules.side is not None:
        return rules.side
    return kingdom.side


def is_complete(kingdom: Kingdom, rules: Rules | None = None) -> bool:
    """Return True when every cell of the side×side square is filled (Harmony).

    >>> is_complete(Kingdom.parse("C W0"))
    False
    """
    n = side(kingdom, rules)
    filled = _filled(kingdom)
    rows, cols = _extent(filled)
    return len(filled) == n * n and rows == cols == n


def is_centred(kingdom: Kingdom, rules: Rules | None = None) -> bool:
    """Return True when every filled square is within (side-1)//2 rows and columns of the castle.

    >>> is_centred(Kingdom.parse("W0 C W0")), is_centred(Kingdom.parse("C W0 W0 W0"))
    (True, False)
    """
    reach = (side(kingdom, rules) - 1) // 2
    cr, cc = kingdom.castle
    return all(abs(r - cr) <= reach and abs(c - cc) <= reach for r, c in _filled(kingdom))


def score(kingdom: Kingdom, rules: Rules | None = None) -> ScoreBreakdown:
    """Return the kingdom's score with every part of it.

    >>> k = Kingdom.parse("W1 W0\\nC M2")
    >>> b = score(k, Rules(middle_kingdom=True))
    >>> b.property_points, b.middle_kingdom, b.total
    (4, 10, 14)
    """
    rules = rules or Rules()
    props = properties(kingdom)
    points = sum(p.points for p in props)
    harmony = HARMONY_BONUS if rules.harmony and is_complete(kingdom, rules) else 0
    middle = MIDDLE_KINGDOM_BONUS if rules.middle_kingdom and is_centred(kingdom, rules) else 0
    return ScoreBreakdown(
        properties=props,
        property_points=points,
        harmony=harmony,
        middle_kingdom=middle,
        total=points + harmony + middle,
        largest_property=max((p.squares for p in props), default=0),
        crowns=sum(p.crowns for p in props),
    )


def rank(players: Sequence[Player], rules: Rules | None = None) -> Ranking:
    """Rank 2–4 players by total, then by the tie-break steps, explaining every tie.

    >>> a = Player("Anna", (Kingdom.parse("F1 F0 C"),))
    >>> b = Player("Ben", (Kingdom.parse("M2 M0 C"),))
    >>> r = rank([a, b])
    >>> r.winners
    ('Ben',)
    >>> r.explanations
    ()
    """
    rules = rules or Rules()
    dynasty = _check_players(players)
    entries = [_entry(p, rules) for p in players]
    steps = _steps(rules.tiebreak)
    explanations: list[str] = []
    ordered: list[tuple[_Entry, int]] = []
    for group in _groups(entries, lambda e: e.total):
        place = len(ordered) + 1
        if len(group) == 1:
            ordered.append((group[0], place))
            continue
        group.sort(key=lambda e: tuple(s.value(e) for s in steps), reverse=True)
        lines, placed = _break_tie(group, steps, place, dynasty)
        explanations.append(_tie_intro(group, dynasty, rules.tiebreak) + " " + " ".join(lines))
        ordered.extend(placed)
    standings = tuple(
        Standing(e.name, place, e.total, e.largest, e.crowns, e.scores) for e, place in ordered
    )
    return Ranking(standings, tuple(explanations), dynasty, rules)


def tileset_violations(kingdom: Kingdom, rules: Rules | None = None) -> tuple[Violation, ...]:
    """Return every way the kingdom breaks the limits of the 48 dominoes.

    >>> [v.kind.value for v in tileset_violations(Kingdom.parse("M3 M3 C"))]
    ['too-many-of-pair']
    >>> tileset_violations(Kingdom.parse("M3 M2 C"))
    ()
    """
    n = side(kingdom, rules)
    return (
        *_pair_violations(kingdom),
        *_count_violations(kingdom, n),
        *_extent_violations(kingdom, n),
    )


# --- properties and geometry -------------------------------------------------


def _flood(kingdom: Kingdom, start: Position) -> set[Position]:
    terrain = kingdom[start].terrain
    group = {start}
    todo = [start]
    while todo:
        for n in kingdom.neighbours(todo.pop()):
            if n not in group and kingdom[n].terrain is terrain:
                group.add(n)
                todo.append(n)
    return group


def _filled(kingdom: Kingdom) -> list[Position]:
    return [p for p, c in kingdom.cells() if c.terrain is not Terrain.EMPTY]


def _extent(positions: Iterable[Position]) -> tuple[int, int]:
    ps = list(positions)
    if not ps:
        return (0, 0)
    rows = [r for r, _ in ps]
    cols = [c for _, c in ps]
    return (max(rows) - min(rows) + 1, max(cols) - min(cols) + 1)


# --- ranking -------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    name: str
    total: int
    largest: int
    crowns: int
    scores: tuple[ScoreBreakdown, ...]


@dataclass(frozen=True)
class _Step:
    number: int
    label: str
    attr: str
    house_rule: bool
    unused: str

    def value(self, entry: _Entry) -> int:
        value = getattr(entry, self.attr)
        assert isinstance(value, int)
        return value


def _steps(order: TieBreakOrder) -> tuple[_Step, _Step]:
    largest = "largest property", "largest", "Property sizes were not compared."
    crowns = "crowns", "crowns", "Crowns were not compared."
    if order is TieBreakOrder.CROWNS_FIRST:
        return (_Step(2, *crowns[:2], True, crowns[2]), _Step(3, *largest[:2], True, largest[2]))
    return (_Step(2, *largest[:2], False, largest[2]), _Step(3, *crowns[:2], False, crowns[2]))


def _check_players(players: Sequence[Player]) -> bool:
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise ValueError(
            f"a ranking needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}"
        )
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"player names must differ: {', '.join(names)}")
    games = {len(p.kingdoms) for p in players}
    if len(games) != 1 or games.pop() not in (1, DYNASTY_GAMES):
        raise ValueError(
            f"every player needs 1 kingdom, or {DYNASTY_GAMES} for a Dynasty; got "
            + ", ".join(f"{p.name}: {len(p.kingdoms)}" for p in players)
        )
    return len(players[0].kingdoms) == DYNASTY_GAMES


def _entry(player: Player, rules: Rules) -> _Entry:
    scores = tuple(score(k, rules) for k in player.kingdoms)
    return _Entry(
        name=player.name,
        total=sum(s.total for s in scores),
        largest=max(s.largest_property for s in scores),
        crowns=sum(s.crowns for s in scores),
        scores=scores,
    )


def _groups(entries: Iterable[_Entry], key: Callable[[_Entry], int]) -> list[list[_Entry]]:
    """Group entries by ``key``, highest first, keeping input order inside a group."""
    ordered = sorted(entries, key=key, reverse=True)
    groups: list[list[_Entry]] = []
    for e in ordered:
        if groups and key(groups[-1][0]) == key(e):
            groups[-1].append(e)
        else:
            groups.append([e])
    return groups


def _break_tie(
    group: list[_Entry], steps: Sequence[_Step], place: int, dynasty: bool
) -> tuple[list[str], list[tuple[_Entry, int]]]:
    """Apply the steps in turn to a tied group; return sentences and placed entries."""
    step, rest = steps[0], steps[1:]
    sentences = [_step_sentence(group, step, dynasty)]
    split = _groups(group, step.value)
    placed: list[tuple[_Entry, int]] = []
    for sub in split:
        sub_place = place + len(placed)
        if len(sub) == 1:
            placed.append((sub[0], sub_place))
        elif rest:
            if len(split) > 1:
                sentences.append(f"{_names(sub)} are still tied.")
            more, sub_placed = _break_tie(sub, rest, sub_place, dynasty)
            sentences.extend(more)
            placed.extend(sub_placed)
        else:
            sentences.append(_shared_sentence(sub, sub_place))
            placed.extend((e, sub_place) for e in sub)
    if rest and all(len(s) == 1 for s in split):
        sentences.append(rest[0].unused)
    return sentences, placed


def _tie_intro(group: list[_Entry], dynasty: bool, order: TieBreakOrder) -> str:
    both = "both" if len(group) == 2 else "all"
    over = f" over {DYNASTY_GAMES} games" if dynasty else ""
    text = f"{_names(group)} {both} scored {group[0].total}{over}."
    if dynasty:
        text += (
            " House rule for Dynasty: the tie-break steps are applied to the"
            f" {DYNASTY_GAMES} kingdoms together."
        )
    if order is TieBreakOrder.CROWNS_FIRST:
        text += f' House rule "{CROWNS_FIRST_NAME}": crowns are compared first.'
    return text


def _step_sentence(group: list[_Entry], step: _Step, dynasty: bool) -> str:
    """Say what one step compared and what it decided."""
    head = f"Step {step.number} ({step.label}"
    head += ", house rule)" if step.house_rule else ")"
    split = _groups(group, step.value)
    if len(split) == 1:
        return f"{head}: {_same_figures(group, step, dynasty)}, so this step does not decide."
    return f"{head}: {_figures(group, step, dynasty)}, so {_order_words(split)}."


def _same_figures(group: list[_Entry], step: _Step, dynasty: bool) -> str:
    both = "both" if len(group) == 2 else "all"
    value = step.value(group[0])
    if step.attr == "largest":
        where = " in any kingdom" if dynasty else ""
        owners = _join([f"{e.name}'s" for e in group])
        return f"{owners} largest properties{where} {both} have {_squares(value)}"
    return f"{_names(group)} {both} have {_count(value, 'crown')}"


def _figures(group: list[_Entry], step: _Step, dynasty: bool) -> str:
    values = [step.value(e) for e in group]
    if step.attr == "largest":
        where = " in any kingdom" if dynasty else ""
        first = f"{group[0].name}'s largest property{where} has {_squares(values[0])}"
    else:
        first = f"{group[0].name} has {_count(values[0], 'crown')}"
    pattern = "{}'s {}" if step.attr == "largest" else "{} {}"
    rest = [pattern.format(e.name, v) for e, v in zip(group[1:], values[1:], strict=True)]
    return ", ".join([first, *rest])


def _order_words(split: list[list[_Entry]]) -> str:
    if all(len(s) == 1 for s in split) and len(split) == 2:
        return f"{split[0][0].name} ranks ahead"
    parts = [_names(s) for s in split]
    verb = "rank" if len(split[0]) > 1 else "ranks"
    return f"{parts[0]} {verb} ahead of " + ", then ".join(parts[1:])


def _shared_sentence(group: list[_Entry], place: int) -> str:
    if place == 1:
        return f"{_names(group)} share the victory."
    return f"{_names(group)} share {_ordinal(place)} place."


def _names(group: Sequence[_Entry]) -> str:
    return _join([e.name for e in group])


def _join(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _squares(n: int) -> str:
    return _count(n, "square")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# --- tile set --------------------------------------------------------------------


def _pair_violations(kingdom: Kingdom) -> list[Violation]:
    allowed = tileset_counts()
    seen: Counter[Cell] = Counter(c for _, c in kingdom.cells() if c.terrain.is_land)
    found = []
    for cell, n in sorted(seen.items(), key=lambda item: item[0].token):
        limit = allowed.get(cell, 0)
        if n > limit:
            where = tuple(p for p, c in kingdom.cells() if c == cell)
            found.append(
                Violation(
                    ViolationKind.TOO_MANY_OF_PAIR,
                    f"{n} squares of {cell.terrain.value} with {_count(cell.crowns, 'crown')}"
                    f" ({cell.token}), but the 48 dominoes hold only {limit}",
                    where,
                )
            )
    return found


def _count_violations(kingdom: Kingdom, n: int) -> list[Violation]:
    land = tuple(p for p, c in kingdom.cells() if c.terrain.is_land)
    dominoes = DOMINOES_PER_KINGDOM[n]
    if len(land) <= 2 * dominoes:
        return []
    return [
        Violation(
            ViolationKind.TOO_MANY_SQUARES,
            f"{len(land)} terrain squares, but a {n}×{n} kingdom holds at most"
            f" {dominoes} dominoes ({2 * dominoes} squares)",
            land,
        )
    ]


def _extent_violations(kingdom: Kingdom, n: int) -> list[Violation]:
    filled = _filled(kingdom)
    rows, cols = _extent(filled)
    if rows <= n and cols <= n:
        return []
    inside = _best_window(kingdom, n)
    outside = tuple(p for p in filled if p not in inside)
    return [
        Violation(
            ViolationKind.OUTSIDE_SQUARE,
            f"the squares span {rows} rows and {cols} columns, but a kingdom fits in {n}×{n}",
            outside,
        )
    ]


def _best_window(kingdom: Kingdom, n: int) -> set[Position]:
    """The filled squares of the n×n window with the castle that holds the most of them."""
    filled = _filled(kingdom)
    cr, cc = kingdom.castle
    best: set[Position] = set()
    for top in range(cr - n + 1, cr + 1):
        for left in range(cc - n + 1, cc + 1):
            inside = {(r, c) for r, c in filled if top <= r < top + n and left <= c < left + n}
            if len(inside) > len(best):
                best = inside
    return best
