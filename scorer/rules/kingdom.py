"""The domain: terrains, squares, dominoes and kingdoms.

This module knows nothing of images or models. A kingdom is an immutable
rectangular grid of :class:`Cell` values, written and read as the text grid
of the data README (one row a line, tokens ``W0`` … ``M3``, ``C`` and ``.``).

>>> k = Kingdom.parse("G0 L0 F1\\nW1 C F0")
>>> k.shape
(2, 3)
>>> k.castle
(1, 1)
>>> print(k.format())
G0 L0 F1
W1 C F0
"""

from __future__ import annotations

import csv
import enum
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Final

from scorer import DATA_DIR
from scorer.rules.phrase import Phrase, WordedError, phrase, plural_phrase

STANDARD_SIZE: Final = 5
"""Side of a normal kingdom (3–4 players, and 2 players with 24 dominoes)."""

DUEL_SIZE: Final = 7
"""Side of a Mighty Duel kingdom."""

MAX_SIZE: Final = DUEL_SIZE
"""No kingdom is larger than this in either direction."""

KINGDOM_SIDES: Final = (STANDARD_SIZE, DUEL_SIZE)
"""The sides a finished kingdom's square grid has, one per variant."""

Position = tuple[int, int]
"""A square's ``(row, column)``; row 0 is the top, column 0 the left."""


def position_name(pos: Position) -> str:
    """A square's position as a player says it, counting from 1.

    >>> position_name((0, 2))
    'row 1 column 3'
    """
    return f"row {pos[0] + 1} column {pos[1] + 1}"


class Terrain(enum.Enum):
    """What a square shows: one of six terrains, the castle, or nothing."""

    WHEAT = "wheat"
    FOREST = "forest"
    LAKE = "lake"
    GRASSLAND = "grassland"
    SWAMP = "swamp"
    MINE = "mine"
    CASTLE = "castle"
    EMPTY = "empty"

    @property
    def letter(self) -> str:
        """The one-character token of this terrain in a text grid."""
        return _LETTERS[self]

    @property
    def is_land(self) -> bool:
        """True for the six terrains that form properties."""
        return self not in (Terrain.CASTLE, Terrain.EMPTY)

    @property
    def max_crowns(self) -> int:
        """The most crowns one square of this terrain has in the tile set."""
        return MAX_CROWNS[self]

    @classmethod
    def from_letter(cls, letter: str) -> Terrain:
        """Return the terrain written as ``letter`` (``W``, ``F``, ``L``, ``G``, ``S``, ``M``)."""
        try:
            return _FROM_LETTER[letter.upper()]
        except KeyError:
            raise WordedError(
                phrase("unknown terrain letter {letter}", letter=repr(letter))
            ) from None


LAND_TERRAINS: Final = tuple(t for t in Terrain if t.is_land)
"""The six terrains in the order of the rules."""

_LETTERS: Final[Mapping[Terrain, str]] = {
    Terrain.WHEAT: "W",
    Terrain.FOREST: "F",
    Terrain.LAKE: "L",
    Terrain.GRASSLAND: "G",
    Terrain.SWAMP: "S",
    Terrain.MINE: "M",
    Terrain.CASTLE: "C",
    Terrain.EMPTY: ".",
}
_FROM_LETTER: Final[Mapping[str, Terrain]] = {v: k for k, v in _LETTERS.items()}

MAX_CROWNS: Final[Mapping[Terrain, int]] = {
    Terrain.WHEAT: 1,
    Terrain.FOREST: 1,
    Terrain.LAKE: 1,
    Terrain.GRASSLAND: 2,
    Terrain.SWAMP: 2,
    Terrain.MINE: 3,
    Terrain.CASTLE: 0,
    Terrain.EMPTY: 0,
}
"""Crowns a single square can carry, by terrain, as printed in the 48 dominoes."""


@dataclass(frozen=True)
class Cell:
    """One square of a kingdom: its terrain and the crowns printed on it.

    >>> Cell.parse("M2")
    Cell(terrain=<Terrain.MINE: 'mine'>, crowns=2)
    >>> str(Cell(Terrain.LAKE, 1))
    'L1'
    """

    terrain: Terrain
    crowns: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.crowns <= self.terrain.max_crowns:
            raise WordedError(
                plural_phrase(
                    "{terrain} never has {n} crown (at most {most})",
                    "{terrain} never has {n} crowns (at most {most})",
                    self.crowns,
                    terrain=phrase(self.terrain.value),
                    most=self.terrain.max_crowns,
                )
            )

    @classmethod
    def parse(cls, token: str) -> Cell:
        """Read one token of a text grid; raise ``ValueError`` with the reason."""
        token = token.strip().upper()
        if token in ("C", "."):
            return cls(Terrain.from_letter(token))
        if len(token) != 2:
            raise WordedError(
                phrase("a square is a terrain letter and a crown count (W0…M3), C or .")
            )
        if not token[1].isdecimal():  # '²' is a digit to str.isdigit, but no number
            raise WordedError(
                phrase("the crown count is a digit 0–3, not {digit}", digit=repr(token[1]))
            )
        return cls(Terrain.from_letter(token[0]), int(token[1]))

    @property
    def token(self) -> str:
        """The text-grid token of this cell (``W0``, ``C``, ``.``)."""
        if self.terrain.is_land:
            return f"{self.terrain.letter}{self.crowns}"
        return self.terrain.letter

    def __str__(self) -> str:
        return self.token


CASTLE: Final = Cell(Terrain.CASTLE)
EMPTY: Final = Cell(Terrain.EMPTY)

ALL_CELLS: Final = tuple(
    [Cell(t, n) for t in LAND_TERRAINS for n in range(t.max_crowns + 1)] + [CASTLE, EMPTY]
)
"""Every cell value that exists: the 16 (terrain, crowns) pairs, the castle and empty."""


QUOTED_CHARS: Final = 10
"""The most characters of a bad token quoted in a message."""


def quoted(token: str) -> str:
    """``token`` as a message quotes it: at most :data:`QUOTED_CHARS` characters.

    >>> quoted("W0"), quoted("X" * 5000)
    ('W0', 'XXXXXXXXXX…')
    """
    return token if len(token) <= QUOTED_CHARS else token[:QUOTED_CHARS] + "…"


class GridParseError(ValueError):
    """A text grid that is not a valid kingdom; says where and why.

    Attributes
    ----------
    line, column : int or None
        1-based line of the text and 1-based square in that line.
    token : str or None
        The offending token, when there is one; a long one is cut to its first
        :data:`QUOTED_CHARS` characters and ``…``, so the message stays one short line.
    reason : str
        Why the grid was refused, in English.
    wording : Phrase
        The reason as data, for the player's language.
    """

    def __init__(
        self,
        reason: str | Phrase,
        line: int | None = None,
        column: int | None = None,
        token: str | None = None,
    ) -> None:
        self.wording = reason if isinstance(reason, Phrase) else phrase(reason)
        self.reason = self.wording.english
        self.line = line
        self.column = column
        self.token = token if token is None else quoted(token)
        where = []
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        prefix = ", ".join(where)
        if self.token is not None:
            prefix = f"{prefix}: {self.token!r}" if prefix else repr(self.token)
        super().__init__(f"{prefix}: {self.reason}" if prefix else self.reason)


@dataclass(frozen=True)
class Kingdom:
    """An immutable grid of squares with exactly one castle, at most 7×7.

    Build one with :meth:`parse` or from rows of :class:`Cell`.
    """

    rows: tuple[tuple[Cell, ...], ...]

    def __post_init__(self) -> None:
        if not self.rows or not self.rows[0]:
            raise WordedError(phrase("a kingdom has at least one square"))
        width = len(self.rows[0])
        if any(len(r) != width for r in self.rows):
            raise WordedError(phrase("all rows of a kingdom have the same length"))
        if len(self.rows) > MAX_SIZE or width > MAX_SIZE:
            raise WordedError(phrase("a kingdom is at most {side}×{side}", side=MAX_SIZE))
        castles = sum(c == CASTLE for r in self.rows for c in r)
        if castles != 1:
            raise WordedError(
                phrase("a kingdom has exactly one castle, not {castles}", castles=castles)
            )

    @classmethod
    def from_cells(cls, rows: Iterable[Iterable[Cell]]) -> Kingdom:
        """Build a kingdom from nested rows of cells."""
        return cls(tuple(tuple(r) for r in rows))

    @classmethod
    def parse(cls, text: str) -> Kingdom:
        """Read a text grid; raise :class:`GridParseError` naming line, column and token."""
        return _parse(text)

    def format(self) -> str:
        """Write the kingdom as a text grid, one row a line."""
        return "\n".join(" ".join(c.token for c in row) for row in self.rows)

    def lines(self) -> list[str]:
        """The text grid as a list of row strings."""
        return [" ".join(c.token for c in row) for row in self.rows]

    @property
    def height(self) -> int:
        """Number of rows."""
        return len(self.rows)

    @property
    def width(self) -> int:
        """Number of columns."""
        return len(self.rows[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, columns)`` of the grid."""
        return (self.height, self.width)

    @property
    def side(self) -> int:
        """The side of the square the kingdom is played in: 5, or 7 for Mighty Duel."""
        return DUEL_SIZE if max(self.shape) > STANDARD_SIZE else STANDARD_SIZE

    @property
    def castle(self) -> Position:
        """Position of the start square."""
        return next(p for p, c in self.cells() if c == CASTLE)

    def __getitem__(self, pos: Position) -> Cell:
        r, c = pos
        return self.rows[r][c]

    def cells(self) -> Iterator[tuple[Position, Cell]]:
        """Yield every ``((row, col), cell)``, row by row."""
        for r, row in enumerate(self.rows):
            for c, cell in enumerate(row):
                yield (r, c), cell

    def neighbours(self, pos: Position) -> Iterator[Position]:
        """Yield the up-to-four positions that share an edge with ``pos``."""
        r, c = pos
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < self.height and 0 <= cc < self.width:
                yield rr, cc

    def counts(self) -> Counter[Cell]:
        """How many squares of each cell value the kingdom holds."""
        return Counter(c for _, c in self.cells())

    def land(self) -> tuple[Position, ...]:
        r"""The squares of the six terrains, row by row: the castle and empty squares left
        out. Dominoes are placed whole, so a real kingdom has an even number of them.

        >>> len(Kingdom.parse("W0 F1 C\nL0 . M2").land())
        4
        """
        return tuple(p for p, c in self.cells() if c.terrain.is_land)

    def replace(self, pos: Position, cell: Cell) -> Kingdom:
        """Return a copy with the square at ``pos`` set to ``cell``."""
        r, c = pos
        rows = [list(row) for row in self.rows]
        rows[r][c] = cell
        return Kingdom.from_cells(rows)

    def rotate(self) -> Kingdom:
        """Return the kingdom turned 90° clockwise."""
        return Kingdom(tuple(zip(*self.rows[::-1], strict=True)))

    def mirror(self) -> Kingdom:
        """Return the kingdom flipped left to right."""
        return Kingdom(tuple(row[::-1] for row in self.rows))

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class Domino:
    """One of the 48 numbered dominoes: two squares."""

    number: int
    first: Cell
    second: Cell


@cache
def tileset() -> tuple[Domino, ...]:
    """The 48 dominoes of the game, read from the tile set shipped in the package."""
    text = (DATA_DIR / "tileset.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines())
    return tuple(
        Domino(
            int(r["number"]),
            Cell(Terrain(r["terrain_1"]), int(r["crowns_1"])),
            Cell(Terrain(r["terrain_2"]), int(r["crowns_2"])),
        )
        for r in rows
    )


@cache
def tileset_counts() -> Mapping[Cell, int]:
    """How many squares of each (terrain, crowns) pair the 48 dominoes hold."""
    counts: Counter[Cell] = Counter()
    for d in tileset():
        counts[d.first] += 1
        counts[d.second] += 1
    return dict(counts)


def _parse(text: str) -> Kingdom:
    grid: list[list[Cell]] = []
    line_numbers: list[int] = []
    castle_at: tuple[int, int] | None = None
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tokens = line.split()
        if len(grid) == MAX_SIZE:
            raise GridParseError(
                phrase("more than {side} rows; a kingdom is at most {side}×{side}", side=MAX_SIZE),
                line_no,
            )
        if len(tokens) > MAX_SIZE:
            raise GridParseError(
                phrase(
                    "{count} squares in a row; a kingdom is at most {side}×{side}",
                    count=len(tokens),
                    side=MAX_SIZE,
                ),
                line_no,
                MAX_SIZE + 1,
                tokens[MAX_SIZE],
            )
        if grid and len(tokens) != len(grid[0]):
            raise GridParseError(
                phrase(
                    "ragged row: {count} squares, but line {line} has {first}",
                    count=len(tokens),
                    line=line_numbers[0],
                    first=len(grid[0]),
                ),
                line_no,
            )
        row: list[Cell] = []
        for col, token in enumerate(tokens, start=1):
            try:
                cell = Cell.parse(token)
            except WordedError as err:
                raise GridParseError(err.wording, line_no, col, token) from None
            if cell == CASTLE:
                if castle_at is not None:
                    raise GridParseError(
                        phrase(
                            "a second castle; the first is at line {line}, column {column}",
                            line=castle_at[0],
                            column=castle_at[1],
                        ),
                        line_no,
                        col,
                        token,
                    )
                castle_at = (line_no, col)
            row.append(cell)
        grid.append(row)
        line_numbers.append(line_no)
    if not grid:
        raise GridParseError(phrase("the grid is empty: no rows of squares"))
    if castle_at is None:
        raise GridParseError(phrase("no castle: one square must be C, the start square"))
    return Kingdom.from_cells(grid)
