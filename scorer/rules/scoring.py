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
from scorer.rules.phrase import (
    N_,
    Names,
    Ordinal,
    Phrase,
    Value,
    WordedError,
    phrase,
    plural_phrase,
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

CROWNS_FIRST_NAME: Final = N_("crowns before largest property")
"""The name the product gives the house-rule tie-break order (a message id)."""

TERRAIN_WORDS: Final = {
    Terrain.WHEAT: N_("wheat"),
    Terrain.FOREST: N_("forest"),
    Terrain.LAKE: N_("lake"),
    Terrain.GRASSLAND: N_("grassland"),
    Terrain.SWAMP: N_("swamp"),
    Terrain.MINE: N_("mine"),
}
"""The name of each land terrain as players say it (message ids: English, translated where
shown); ``docs/glossary.md`` lists them in every language."""


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
    """Players in order of place, with a plain-words explanation of every tie.

    Each tie is explained by a few sentences, kept as :class:`~scorer.rules.phrase.Phrase`
    data so that the page and the command line word them in the player's language.
    """

    standings: tuple[Standing, ...]
    reasons: tuple[tuple[Phrase, ...], ...]
    dynasty: bool = False
    rules: Rules = field(default_factory=Rules)

    @property
    def explanations(self) -> tuple[str, ...]:
        """Every tie's explanation in English, one text per tie."""
        return tuple(" ".join(p.english for p in tie) for tie in self.reasons)

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
    wording: Phrase | None = None
    """The message as data, for the player's language; ``message`` is its English."""


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
    explanations: list[tuple[Phrase, ...]] = []
    ordered: list[tuple[_Entry, int]] = []
    for group in _groups(entries, lambda e: e.total):
        place = len(ordered) + 1
        if len(group) == 1:
            ordered.append((group[0], place))
            continue
        group.sort(key=lambda e: tuple(s.value(e) for s in steps), reverse=True)
        lines, placed = _break_tie(group, steps, place, dynasty)
        explanations.append((*_tie_intro(group, dynasty, rules.tiebreak), *lines))
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
    unused: Phrase

    def value(self, entry: _Entry) -> int:
        value = getattr(entry, self.attr)
        assert isinstance(value, int)
        return value


def _steps(order: TieBreakOrder) -> tuple[_Step, _Step]:
    largest_unused = phrase("Property sizes were not compared.")
    crowns_unused = phrase("Crowns were not compared.")
    if order is TieBreakOrder.CROWNS_FIRST:
        return (
            _Step(2, N_("crowns, house rule"), "crowns", True, crowns_unused),
            _Step(3, N_("largest property, house rule"), "largest", True, largest_unused),
        )
    return (
        _Step(2, N_("largest property"), "largest", False, largest_unused),
        _Step(3, N_("crowns"), "crowns", False, crowns_unused),
    )


def _check_players(players: Sequence[Player]) -> bool:
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise WordedError(
            phrase(
                "a ranking needs {least} to {most} players, not {count}",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                count=len(players),
            )
        )
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise WordedError(phrase("player names must differ: {names}", names=", ".join(names)))
    games = {len(p.kingdoms) for p in players}
    if len(games) != 1 or games.pop() not in (1, DYNASTY_GAMES):
        raise WordedError(
            phrase(
                "every player needs 1 kingdom, or {games} for a Dynasty; got {counts}",
                games=DYNASTY_GAMES,
                counts=", ".join(f"{p.name}: {len(p.kingdoms)}" for p in players),
            )
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
) -> tuple[list[Phrase], list[tuple[_Entry, int]]]:
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
                sentences.append(phrase("{names} are still tied.", names=_names(sub)))
            more, sub_placed = _break_tie(sub, rest, sub_place, dynasty)
            sentences.extend(more)
            placed.extend(sub_placed)
        else:
            sentences.append(_shared_sentence(sub, sub_place))
            placed.extend((e, sub_place) for e in sub)
    if rest and all(len(s) == 1 for s in split):
        sentences.append(rest[0].unused)
    return sentences, placed


def _tie_intro(group: list[_Entry], dynasty: bool, order: TieBreakOrder) -> list[Phrase]:
    values: dict[str, Value] = {"names": _names(group), "total": group[0].total}
    if dynasty:
        values["games"] = DYNASTY_GAMES
        if len(group) == 2:
            text = phrase("{names} both scored {total} over {games} games.", **values)
        else:
            text = phrase("{names} all scored {total} over {games} games.", **values)
    elif len(group) == 2:
        text = phrase("{names} both scored {total}.", **values)
    else:
        text = phrase("{names} all scored {total}.", **values)
    sentences = [text]
    if dynasty:
        sentences.append(
            phrase(
                "House rule for Dynasty: the tie-break steps are applied to the {games}"
                " kingdoms together.",
                games=DYNASTY_GAMES,
            )
        )
    if order is TieBreakOrder.CROWNS_FIRST:
        sentences.append(
            phrase(
                'House rule "{rule}": crowns are compared first.', rule=phrase(CROWNS_FIRST_NAME)
            )
        )
    return sentences


def _step_sentence(group: list[_Entry], step: _Step, dynasty: bool) -> Phrase:
    """Say what one step compared and what it decided."""
    split = _groups(group, step.value)
    head: dict[str, Value] = {"number": step.number, "step": phrase(step.label)}
    if len(split) == 1:
        return _same_figures(group, step, dynasty, head)
    figures = _figures(group, step, dynasty)
    if all(len(s) == 1 for s in split) and len(split) == 2:
        return phrase(
            "Step {number} ({step}): {figures}, so {name} ranks ahead.",
            figures=figures,
            name=split[0][0].name,
            **head,
        )
    later: Value = _names(split[1])
    for sub in split[2:]:
        later = phrase("{earlier}, then {later}", earlier=later, later=_names(sub))
    return plural_phrase(
        "Step {number} ({step}): {figures}, so {first} ranks ahead of {later}.",
        "Step {number} ({step}): {figures}, so {first} rank ahead of {later}.",
        len(split[0]),
        figures=figures,
        first=_names(split[0]),
        later=later,
        **head,
    )


def _same_figures(
    group: list[_Entry], step: _Step, dynasty: bool, head: dict[str, Value]
) -> Phrase:
    value = step.value(group[0])
    names = _names(group)
    two = len(group) == 2
    if step.attr == "crowns":
        if two:
            return plural_phrase(
                "Step {number} ({step}): {names} both have {n} crown, so this step does not"
                " decide.",
                "Step {number} ({step}): {names} both have {n} crowns, so this step does not"
                " decide.",
                value,
                names=names,
                **head,
            )
        return plural_phrase(
            "Step {number} ({step}): {names} all have {n} crown, so this step does not decide.",
            "Step {number} ({step}): {names} all have {n} crowns, so this step does not decide.",
            value,
            names=names,
            **head,
        )
    values: dict[str, Value] = {
        "names": names,
        "owners": Names(tuple(f"{e.name}'s" for e in group)),
        **head,
    }
    if dynasty and two:
        return plural_phrase(
            "Step {number} ({step}): {owners} largest properties in any kingdom both have"
            " {n} square, so this step does not decide.",
            "Step {number} ({step}): {owners} largest properties in any kingdom both have"
            " {n} squares, so this step does not decide.",
            value,
            **values,
        )
    if dynasty:
        return plural_phrase(
            "Step {number} ({step}): {owners} largest properties in any kingdom all have"
            " {n} square, so this step does not decide.",
            "Step {number} ({step}): {owners} largest properties in any kingdom all have"
            " {n} squares, so this step does not decide.",
            value,
            **values,
        )
    if two:
        return plural_phrase(
            "Step {number} ({step}): {owners} largest properties both have {n} square,"
            " so this step does not decide.",
            "Step {number} ({step}): {owners} largest properties both have {n} squares,"
            " so this step does not decide.",
            value,
            **values,
        )
    return plural_phrase(
        "Step {number} ({step}): {owners} largest properties all have {n} square,"
        " so this step does not decide.",
        "Step {number} ({step}): {owners} largest properties all have {n} squares,"
        " so this step does not decide.",
        value,
        **values,
    )


def _figures(group: list[_Entry], step: _Step, dynasty: bool) -> tuple[Phrase, ...]:
    first, *rest = group
    value = step.value(first)
    if step.attr == "crowns":
        head = plural_phrase(
            "{name} has {n} crown", "{name} has {n} crowns", value, name=first.name
        )
        others = [phrase("{name} {n}", name=e.name, n=step.value(e)) for e in rest]
        return (head, *others)
    if dynasty:
        head = plural_phrase(
            "{name}'s largest property in any kingdom has {n} square",
            "{name}'s largest property in any kingdom has {n} squares",
            value,
            name=first.name,
        )
    else:
        head = plural_phrase(
            "{name}'s largest property has {n} square",
            "{name}'s largest property has {n} squares",
            value,
            name=first.name,
        )
    others = [phrase("{name}'s {n}", name=e.name, n=step.value(e)) for e in rest]
    return (head, *others)


def _shared_sentence(group: list[_Entry], place: int) -> Phrase:
    if place == 1:
        return phrase("{names} share the victory.", names=_names(group))
    return phrase("{names} share {place} place.", names=_names(group), place=Ordinal(place))


def _names(group: Sequence[_Entry]) -> Names:
    return Names(tuple(e.name for e in group))


def _crowns(n: int) -> Phrase:
    return plural_phrase("{n} crown", "{n} crowns", n)


# --- tile set --------------------------------------------------------------------


def _pair_violations(kingdom: Kingdom) -> list[Violation]:
    allowed = tileset_counts()
    seen: Counter[Cell] = Counter(c for _, c in kingdom.cells() if c.terrain.is_land)
    found = []
    for cell, n in sorted(seen.items(), key=lambda item: item[0].token):
        limit = allowed.get(cell, 0)
        if n > limit:
            where = tuple(p for p, c in kingdom.cells() if c == cell)
            words = phrase(
                "{count} squares of {terrain} with {crowns} ({token}), but the 48 dominoes"
                " hold only {limit}",
                count=n,
                terrain=phrase(TERRAIN_WORDS[cell.terrain]),
                crowns=_crowns(cell.crowns),
                token=cell.token,
                limit=limit,
            )
            found.append(Violation(ViolationKind.TOO_MANY_OF_PAIR, words.english, where, words))
    return found


def _count_violations(kingdom: Kingdom, n: int) -> list[Violation]:
    land = kingdom.land()
    dominoes = DOMINOES_PER_KINGDOM[n]
    if len(land) <= 2 * dominoes:
        return []
    words = phrase(
        "{count} terrain squares, but a {side}×{side} kingdom holds at most {dominoes} dominoes"
        " ({squares} squares)",
        count=len(land),
        side=n,
        dominoes=dominoes,
        squares=2 * dominoes,
    )
    return [Violation(ViolationKind.TOO_MANY_SQUARES, words.english, land, words)]


def _extent_violations(kingdom: Kingdom, n: int) -> list[Violation]:
    filled = _filled(kingdom)
    rows, cols = _extent(filled)
    if rows <= n and cols <= n:
        return []
    inside = _best_window(kingdom, n)
    outside = tuple(p for p in filled if p not in inside)
    words = phrase(
        "the squares span {rows} rows and {cols} columns, but a kingdom fits in {side}×{side}",
        rows=rows,
        cols=cols,
        side=n,
    )
    return [Violation(ViolationKind.OUTSIDE_SQUARE, words.english, outside, words)]


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
