"""Decode a grid of per-square probabilities into a kingdom the tile set can build.

A kingdom is the castle plus dominoes: every tile square shares a domino
with one neighbour, and each of the 48 dominoes exists once (a few twice).
:func:`decode` chooses the labels of all squares and the way they pair
into dominoes together, as one small integer programme solved exactly by
HiGHS (``highspy``). A square whose best label fits no domino with any
neighbour (a M0 beside no W1, say) then gives way to its next most probable
label when that makes a domino, and a square may stay unpaired at a fixed cost,
so an unusual but real kingdom still decodes.

>>> import numpy as np
>>> from scorer.rules.kingdom import ALL_CELLS, Cell, Terrain
>>> proba = np.full((1, 3, len(ALL_CELLS)), 0.001)
>>> proba[0, 0, ALL_CELLS.index(Cell(Terrain.MINE, 0))] = 0.6  # M0 only pairs with W1 ...
>>> proba[0, 0, ALL_CELLS.index(Cell(Terrain.MINE, 2))] = 0.4
>>> proba[0, 1, ALL_CELLS.index(Cell(Terrain.WHEAT, 0))] = 0.9  # ... and this is W0
>>> proba[0, 2, ALL_CELLS.index(CASTLE)] = 0.9
>>> decode(proba, ALL_CELLS, (1, 3))[0].format()
'M2 W0 C'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final

import numpy as np

from scorer.rules.kingdom import (
    ALL_CELLS,
    CASTLE,
    EMPTY,
    Cell,
    Kingdom,
    Position,
    tileset,
    tileset_counts,
)

UNPAIRED_COST: Final = float(np.log(20.0))
"""Cost, in nats, of a tile square that forms no domino of the set with a neighbour: that of
a label 20 times less probable."""

CANDIDATES: Final = 6
"""Tile labels considered for each square: its most probable ones."""

CANDIDATE_MARGIN: Final = 8.0
"""Cost, in nats, above a square's best label beyond which a candidate tile label is dropped
(a probability ratio of about 3000); the square's best tile label is always kept."""

WHOLE_DOMINOES_COST: Final = 1000.0
"""Cost, in nats, of an unpaired tile square in :func:`whole_domino_changes`: far more than
relabelling a square can cost (21 nats at most, ``-log`` of :data:`_EPS`), so the grid chosen
pairs every tile square wherever relabelling some squares allows it; under :data:`_FORBIDDEN`."""

TIME_LIMIT_S: Final = 5.0
"""Cap on the solver's time; the problem is tiny, so this only guards odd inputs."""

_EPS: Final = 1e-9

_FORBIDDEN: Final = 1e4
"""Cost, in nats, that keeps a label off a square (:func:`castle_places`)."""


def decode(
    probabilities: np.ndarray,
    classes: Sequence[Cell],
    shape: tuple[int, int],
    unpaired_cost: float = UNPAIRED_COST,
) -> tuple[Kingdom, np.ndarray]:
    """Choose the most probable grid that the tile set can build, dominoes and all.

    The cost of a grid is the sum of ``-log p`` of its squares' labels, plus
    ``unpaired_cost`` for each tile square that is not half of a domino laid
    with a neighbour. The labels and the pairing are chosen together, with
    exactly one castle, never more of a (terrain, crowns) pair than the 48
    dominoes hold and each domino used at most as often as the set has it.

    Parameters
    ----------
    probabilities : numpy.ndarray
        ``rows × cols × len(classes)`` (or ``rows*cols × len(classes)``) probabilities.
    classes : sequence of Cell
        The cell value of each entry along the last axis; must include the
        castle and empty.
    shape : tuple of int
        ``(rows, cols)`` of the grid.
    unpaired_cost : float
        Cost (in nats) of a tile square that pairs with no neighbour. ``0``
        ignores the dominoes and only keeps the tile-set counts.

    Returns
    -------
    kingdom : Kingdom
        The decoded grid.
    confidence : numpy.ndarray
        ``rows × cols`` probability of each square's decoded label.

    Examples
    --------
    Two squares that look alike: W1 and M0 form domino 23, so the pair wins
    over the slightly likelier W0 beside a M0 that no domino holds.

    >>> from scorer.rules.kingdom import ALL_CELLS, Cell, Terrain
    >>> p = np.full((1, 3, len(ALL_CELLS)), 0.001)
    >>> p[0, 0, ALL_CELLS.index(Cell(Terrain.WHEAT, 0))] = 0.5
    >>> p[0, 0, ALL_CELLS.index(Cell(Terrain.WHEAT, 1))] = 0.4
    >>> p[0, 1, ALL_CELLS.index(Cell(Terrain.MINE, 0))] = 0.9
    >>> p[0, 2, ALL_CELLS.index(CASTLE)] = 0.9
    >>> decode(p, ALL_CELLS, (1, 3))[0].format()
    'W1 M0 C'
    >>> decode(p, ALL_CELLS, (1, 3), unpaired_cost=0.0)[0].format()
    'W0 M0 C'
    """
    rows, cols = shape
    n = rows * cols
    probs = np.asarray(probabilities, dtype=np.float64).reshape(n, len(classes))
    index = {cell: i for i, cell in enumerate(classes)}
    cost = _costs(probs, classes)
    chosen = _solve(cost, shape, unpaired_cost)
    confidence = np.array(
        [probs[i, index[c]] if c in index else 0.0 for i, c in enumerate(chosen)]
    ).reshape(rows, cols)
    grid = [chosen[r * cols : (r + 1) * cols] for r in range(rows)]
    return Kingdom.from_cells(grid), confidence


def whole_domino_changes(
    probabilities: np.ndarray, classes: Sequence[Cell], kingdom: Kingdom
) -> dict[Position, Cell]:
    """The squares where the most probable grid of whole dominoes differs from ``kingdom``,
    with that grid's reading of each.

    A kingdom is built domino by domino, so every tile square of a real one is half of a
    domino of the set laid with a neighbour. A reading whose tile squares cannot all be
    paired that way (an odd number of them, a M0 beside no W1) is wrong somewhere, however
    surely each square read; :func:`decode` lets it stand at a small cost because the
    classifier's readings outweigh it. The grid :func:`decode` chooses when no square may
    be left unpaired (:data:`WHOLE_DOMINOES_COST`) names where it is likely wrong: the
    squares it reads differently, such as a bare spot of table read as a tile, and what it
    reads there.

    Parameters
    ----------
    probabilities : numpy.ndarray
        ``rows × cols × len(classes)`` probabilities.
    classes : sequence of Cell
        The cell value of each entry along the last axis.
    kingdom : Kingdom
        The grid as read.

    Returns
    -------
    dict of Position to Cell
        In reading order; empty when the kingdom as read tiles into dominoes of the set.

    Examples
    --------
    Three lakes in a row cannot all be paired: one of them is likely bare table.

    >>> from scorer.rules.kingdom import ALL_CELLS, Cell, Terrain
    >>> lake, empty = ALL_CELLS.index(Cell(Terrain.LAKE, 0)), ALL_CELLS.index(EMPTY)
    >>> p = np.full((1, 4, len(ALL_CELLS)), 0.001)
    >>> p[0, :3, lake] = 0.9
    >>> p[0, 0, empty] = 0.05  # the likelier bare spot
    >>> p[0, 3, ALL_CELLS.index(CASTLE)] = 0.9
    >>> read = Kingdom.parse("L0 L0 L0 C")
    >>> {pos: cell.token for pos, cell in whole_domino_changes(p, ALL_CELLS, read).items()}
    {(0, 0): '.'}
    >>> whole_domino_changes(p, ALL_CELLS, Kingdom.parse(". L0 L0 C"))
    {}
    """
    if domino_tiling(kingdom) is not None:
        return {}
    shape = (kingdom.height, kingdom.width)
    whole, _ = decode(probabilities, classes, shape, unpaired_cost=WHOLE_DOMINOES_COST)
    return {pos: whole[pos] for pos, cell in kingdom.cells() if whole[pos] != cell}


def castle_places(
    probabilities: np.ndarray,
    classes: Sequence[Cell],
    shape: tuple[int, int],
    within: float,
    unpaired_cost: float = UNPAIRED_COST,
) -> frozenset[tuple[int, int]]:
    """Squares where the castle may stand: the best grid with the castle there costs at
    most ``within`` nats more than the best grid of all (:func:`decode`'s cost).

    Where one square looks like the castle, that square alone is near; where none does,
    the castle placed by :func:`decode` is a guess and this names its rivals. One integer
    programme is solved for each square not ruled out by a bound: a grid with the castle at
    a square costs at least every square's cheapest label plus that square's castle cost
    over its cheapest.

    Parameters
    ----------
    probabilities : numpy.ndarray
        ``rows × cols × len(classes)`` probabilities.
    classes : sequence of Cell
        The cell value of each entry along the last axis.
    shape : tuple of int
        ``(rows, cols)`` of the grid.
    within : float
        Largest extra cost, in nats, of a grid with the castle at a square.
    unpaired_cost : float
        As for :func:`decode`.

    Returns
    -------
    frozenset of tuple of int

    Examples
    --------
    No square of the row W0 W0 M2 looks like the castle. At either end it leaves a domino
    of the set (W0 W0, or W0 M2); in the middle it would leave both others unpaired.

    >>> from scorer.rules.kingdom import ALL_CELLS, Cell, Terrain
    >>> p = np.full((1, 3, len(ALL_CELLS)), 0.001)
    >>> p[0, :2, ALL_CELLS.index(Cell(Terrain.WHEAT, 0))] = 0.9
    >>> p[0, 2, ALL_CELLS.index(Cell(Terrain.MINE, 2))] = 0.9
    >>> sorted(castle_places(p, ALL_CELLS, (1, 3), within=1.0))
    [(0, 0), (0, 2)]
    """
    rows, cols = shape
    n = rows * cols
    cost = _costs(np.asarray(probabilities, dtype=np.float64).reshape(n, len(classes)), classes)
    castle = ALL_CELLS.index(CASTLE)
    best = _programme(cost, shape, unpaired_cost)[1]
    cheapest = cost.min(axis=1)
    bound = cheapest.sum() + cost[:, castle] - cheapest  # no grid with the castle at i is cheaper
    places = []
    for i in np.flatnonzero(bound - best <= within):
        forced = cost.copy()
        forced[:, castle] = _FORBIDDEN
        forced[i, castle] = cost[i, castle]
        if _programme(forced, shape, unpaired_cost)[1] - best <= within:
            places.append(divmod(int(i), cols))
    return frozenset(places)


def _costs(probs: np.ndarray, classes: Sequence[Cell]) -> np.ndarray:
    """``-log p`` of every square (rows) and cell value (:data:`ALL_CELLS`, columns)."""
    index = {cell: i for i, cell in enumerate(classes)}
    missing = {CASTLE, EMPTY} - set(index)
    if missing:
        raise ValueError(f"the classes must include {sorted(c.token for c in missing)}")
    cost = np.full((len(probs), len(ALL_CELLS)), -np.log(_EPS))
    for cell, i in index.items():
        cost[:, ALL_CELLS.index(cell)] = -np.log(np.clip(probs[:, i], _EPS, 1.0))
    return cost


@dataclass
class _Programme:
    """The integer programme, built one variable (a column) at a time."""

    n_squares: int
    costs: list[float] = field(default_factory=list)
    entries: list[tuple[int, int]] = field(default_factory=list)  # (constraint row, column)
    meaning: list[tuple[tuple[int, Cell], ...]] = field(default_factory=list)

    def add(self, cost: float, rows: Sequence[int], meaning: tuple[tuple[int, Cell], ...]) -> None:
        column = len(self.costs)
        self.costs.append(cost)
        self.entries.extend((r, column) for r in rows)
        self.meaning.append(meaning)


def _solve(cost: np.ndarray, shape: tuple[int, int], unpaired_cost: float) -> list[Cell]:
    """Labels of every square (row-major) minimising the cost; see :func:`decode`."""
    best = _best_if_buildable(cost, shape, unpaired_cost)
    return best if best is not None else _solve_programme(cost, shape, unpaired_cost)


def _best_if_buildable(
    cost: np.ndarray, shape: tuple[int, int], unpaired_cost: float
) -> list[Cell] | None:
    """Every square's own cheapest label, when the tile set can build that grid as it is.

    No grid costs less than the sum of each square's cheapest label, so when
    those labels hold one castle, no more of a pair than the set and (if
    pairing counts) tile into dominoes of the set, they are the answer and the
    integer programme is not needed. Most well-read boards are such a grid.
    ``None`` otherwise.
    """
    chosen = [ALL_CELLS[k] for k in np.argmin(cost, axis=1)]
    if chosen.count(CASTLE) != 1:
        return None
    counts = tileset_counts()
    tally = Counter(c for c in chosen if c not in (CASTLE, EMPTY))
    if any(number > counts.get(cell, 0) for cell, number in tally.items()):
        return None
    if unpaired_cost <= 0:
        return chosen
    return chosen if _tiling(chosen, shape) is not None else None


def domino_tiling(kingdom: Kingdom) -> tuple[tuple[Position, Position], ...] | None:
    """A way to lay ``kingdom``'s tile squares as dominoes of the set, or None if none.

    Each pair is two side-by-side squares that form a domino of the 48, each domino used
    no more often than the set holds it; every tile square is in one pair. A search of
    at most 10,000 steps: a grid too hard for it counts as not tiled.

    Examples
    --------
    >>> domino_tiling(Kingdom.parse("W1 M0 C"))
    (((0, 0), (0, 1)),)
    >>> domino_tiling(Kingdom.parse("W0 M0 C")) is None  # M0 pairs with W1 alone
    True
    """
    cols = kingdom.width
    pairs = _tiling([cell for _, cell in kingdom.cells()], (kingdom.height, cols))
    if pairs is None:
        return None
    return tuple((divmod(i, cols), divmod(j, cols)) for i, j in pairs)


def _tiling(cells: Sequence[Cell], shape: tuple[int, int]) -> list[tuple[int, int]] | None:
    """The pairs of squares (row-major indices) that tile ``cells``' tile squares into
    dominoes of the set, by a depth-first search of at most 10,000 steps; None if none."""
    rows, cols = shape
    place = _label_place()
    label_of = [place.get(c, -1) for c in cells]  # -1: the castle or an empty square
    domino_of = _domino_index()
    left = list(_domino_kinds().values())
    open_ = [label >= 0 for label in label_of]
    budget = [10_000]  # search steps; a grid this hard counts as not tiled
    laid: list[tuple[int, int]] = []

    def tile_from(i: int) -> bool:
        while i < rows * cols and not open_[i]:
            i += 1
        if i == rows * cols:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        r, c = divmod(i, cols)  # squares before i are all laid: its partner is right or below
        for j in (i + 1 if c + 1 < cols else -1, i + cols if r + 1 < rows else -1):
            if j < 0 or not open_[j]:
                continue
            k = domino_of.get((label_of[i], label_of[j]))
            if k is None or left[k] == 0:
                continue
            open_[i] = open_[j] = False
            left[k] -= 1
            laid.append((i, j))
            if tile_from(i + 1):
                return True
            laid.pop()
            open_[i] = open_[j] = True
            left[k] += 1
        return False

    return laid if tile_from(0) else None


def _solve_programme(cost: np.ndarray, shape: tuple[int, int], unpaired_cost: float) -> list[Cell]:
    """:func:`_solve` by the integer programme."""
    return _programme(cost, shape, unpaired_cost)[0]


def _programme(
    cost: np.ndarray, shape: tuple[int, int], unpaired_cost: float
) -> tuple[list[Cell], float]:
    """The labels :func:`_solve_programme` chooses, and their cost: the programme's value."""
    n = shape[0] * shape[1]
    counts = tileset_counts()
    labels = _tile_labels()
    kinds = _domino_kinds()
    dominoes = tuple(kinds)
    # Constraint rows: cover each square once | one castle | each domino kind | each label.
    castle_row, domino_row = n, n + 1
    label_row = domino_row + len(dominoes)
    n_rows = label_row + len(labels)
    tile_cols = np.array([ALL_CELLS.index(label) for label in labels])
    tile_cost = cost[:, tile_cols]
    order = np.argsort(tile_cost, axis=1, kind="stable")[:, :CANDIDATES]
    near = tile_cost <= np.min(cost, axis=1, keepdims=True) + CANDIDATE_MARGIN
    candidates = [
        sorted(int(k) for k in row if near[i, k] or k == row[0]) for i, row in enumerate(order)
    ]  # label indices
    castle_col, empty_col = ALL_CELLS.index(CASTLE), ALL_CELLS.index(EMPTY)
    prog = _Programme(n)
    if unpaired_cost > 0:
        domino_of = _domino_index()
        for i, j in _neighbours(shape):
            for p in candidates[i]:
                for q in candidates[j]:
                    k = domino_of.get((p, q))
                    if k is not None:
                        prog.add(
                            tile_cost[i, p] + tile_cost[j, q],
                            (i, j, domino_row + k, label_row + p, label_row + q),
                            ((i, labels[p]), (j, labels[q])),
                        )
    for i in range(n):
        for p in candidates[i]:
            prog.add(tile_cost[i, p] + unpaired_cost, (i, label_row + p), ((i, labels[p]),))
        prog.add(cost[i, castle_col], (i, castle_row), ((i, CASTLE),))
        prog.add(cost[i, empty_col], (i,), ((i, EMPTY),))
    upper = np.concatenate(
        [
            np.ones(n + 1),
            [kinds[d] for d in dominoes],
            [counts[label] for label in labels],
        ]
    )
    lower = np.concatenate([np.ones(n + 1), np.zeros(len(dominoes) + len(labels))])
    r, c = zip(*prog.entries, strict=True)
    x = _milp(np.asarray(prog.costs), np.asarray(r), np.asarray(c), n_rows, lower, upper)
    if x is None:  # the programme always has a solution; this guards the solver
        chosen = _assign(cost)
        return chosen, float(sum(cost[i, ALL_CELLS.index(cell)] for i, cell in enumerate(chosen)))
    chosen = [EMPTY] * n
    for column in np.flatnonzero(x > 0.5):
        for i, cell in prog.meaning[column]:
            chosen[i] = cell
    return chosen, float(np.dot(prog.costs, np.round(x)))


def _milp(
    costs: np.ndarray,
    rows: np.ndarray,
    columns: np.ndarray,
    n_rows: int,
    lower: np.ndarray,
    upper: np.ndarray,
) -> np.ndarray | None:
    """The 0/1 vector ``x`` minimising ``costs · x`` with ``lower <= A x <= upper``, where
    ``A`` adds one at each ``(rows[k], columns[k])`` (a domino of two like squares counts
    its label twice), by HiGHS; None if it finds none.

    The solver is HiGHS through its own bindings (``highspy``), which load in milliseconds
    where SciPy's copy of it loads with all of :mod:`scipy.optimize` (0.3 s, longer than
    reading a photo).
    """
    import highspy
    from highspy._core import _Highs

    n_cols = len(costs)
    entries, times = np.unique(np.asarray(columns) * n_rows + rows, return_counts=True)
    at_column, at_row = np.divmod(entries, n_rows)  # column-major, as HiGHS takes them
    start = np.searchsorted(at_column, np.arange(n_cols + 1)).astype(np.int32)
    # highspy.Highs prints a banner on stdout when made (a JSON output would break); the
    # solver class it extends, which highspy exports as _Highs, does not.
    solver = _Highs()
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("time_limit", TIME_LIMIT_S)
    solver.setOptionValue("mip_rel_gap", 0.0)  # the best grid, not one within 0.01% of it
    solver.passModel(
        n_cols,
        n_rows,
        len(entries),
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        np.asarray(costs, dtype=np.float64),
        np.zeros(n_cols),
        np.ones(n_cols),
        np.asarray(lower, dtype=np.float64),
        np.asarray(upper, dtype=np.float64),
        start,
        at_row.astype(np.int32),
        times.astype(np.float64),
        np.full(n_cols, int(highspy.HighsVarType.kInteger), dtype=np.int32),
    )
    solver.run()
    solution = solver.getSolution()
    if not solution.value_valid:
        return None
    return np.asarray(solution.col_value)


def _assign(cost: np.ndarray) -> list[Cell]:
    """Labels without pairing (tile-set counts and one castle), by linear assignment."""
    from scipy.optimize import linear_sum_assignment

    n = len(cost)
    counts = tileset_counts()
    slots = [c for c in ALL_CELLS if c in counts for _ in range(counts[c])]
    slots += [CASTLE] + [EMPTY] * n
    matrix = cost[:, [ALL_CELLS.index(c) for c in slots]].copy()
    matrix[:, slots.index(CASTLE)] -= 1e6
    row, col = linear_sum_assignment(matrix)
    chosen = [EMPTY] * n
    for r, j in zip(row, col, strict=True):
        chosen[r] = slots[j]
    return chosen


def _neighbours(shape: tuple[int, int]) -> list[tuple[int, int]]:
    """Pairs of side-by-side squares (row-major indices)."""
    rows, cols = shape
    pairs = []
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if c + 1 < cols:
                pairs.append((i, i + 1))
            if r + 1 < rows:
                pairs.append((i, i + cols))
    return pairs


def _domino_key(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    return (a, b) if a.token <= b.token else (b, a)


@cache
def _domino_kinds() -> dict[tuple[Cell, Cell], int]:
    """The distinct dominoes of the set, each as an unordered pair of cells, with how
    many of it the set holds."""
    counts = Counter(_domino_key(d.first, d.second) for d in tileset())
    return {kind: counts[kind] for kind in sorted(counts, key=str)}


@cache
def _domino_index() -> dict[tuple[int, int], int]:
    """Which distinct domino (its place in :func:`_domino_kinds`) two tile labels form,
    keyed by their places in :func:`_tile_labels`, in both orders."""
    place = _label_place()
    index: dict[tuple[int, int], int] = {}
    for k, (a, b) in enumerate(_domino_kinds()):
        index[place[a], place[b]] = k
        index[place[b], place[a]] = k
    return index


@cache
def _label_place() -> dict[Cell, int]:
    """Each tile label's place in :func:`_tile_labels`."""
    return {label: k for k, label in enumerate(_tile_labels())}


@cache
def _tile_labels() -> tuple[Cell, ...]:
    """The (terrain, crowns) pairs that the dominoes hold, in :data:`ALL_CELLS` order."""
    counts = tileset_counts()
    return tuple(c for c in ALL_CELLS if c in counts)
