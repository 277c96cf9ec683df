"""Tests for scorer.read.decoding: a probability grid decoded into a buildable kingdom."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scorer.read import decoding
from scorer.read.decoding import UNPAIRED_COST, decode
from scorer.rules.kingdom import ALL_CELLS, CASTLE, EMPTY, Cell, Kingdom, Terrain, tileset_counts

TOKENS = [c.token for c in ALL_CELLS]

# A finished 5×5 kingdom laid from 12 dominoes of the set (numbers in comments).
BUILT = Kingdom.parse(
    """
    W0 W0 F0 F0 L1
    G0 G0 M2 W0 F0
    W1 S0 C  L0 L0
    M0 S0 W0 S0 F1
    G2 W0 G0 M2 W0
    """
)
# W0W0 (1), F0F0 (3), L1F0 (32), G0G0 (10), M2W0 (45), W1M0 (23), S0S0 (12),
# L0L0 (7), F1W0 (24), G2W0 (41), W0G0 (15), S0M2 (46)


def _one_hot(tokens: list[str], sharp: float = 0.9) -> np.ndarray:
    probs = np.full((len(tokens), len(ALL_CELLS)), (1 - sharp) / (len(ALL_CELLS) - 1))
    for i, token in enumerate(tokens):
        probs[i, TOKENS.index(token)] = sharp
    return probs


def _with(probs: np.ndarray, square: int, shares: dict[str, float]) -> np.ndarray:
    """``probs`` with one square's probabilities replaced (the rest spread evenly)."""
    out = probs.copy()
    rest = (1 - sum(shares.values())) / (len(ALL_CELLS) - len(shares))
    out[square] = rest
    for token, p in shares.items():
        out[square, TOKENS.index(token)] = p
    return out


def _tokens(kingdom: Kingdom) -> list[str]:
    return [c.token for _, c in kingdom.cells()]


def test_decode_keeps_a_consistent_argmax() -> None:
    tokens = ["G0", "L0", "F0", "W1", "C", "F0", "M2", "S0", "."]
    kingdom, confidence = decode(_one_hot(tokens), ALL_CELLS, (3, 3))
    assert _tokens(kingdom) == tokens
    assert np.allclose(confidence, 0.9)


def test_built_kingdom_is_kept() -> None:
    kingdom, _ = decode(_one_hot(_tokens(BUILT)), ALL_CELLS, BUILT.shape)
    assert kingdom == BUILT


@pytest.mark.parametrize(
    ("square", "truth", "misread", "expected"),
    [
        # the misreading fits no domino that the neighbours and the set allow: put right
        (0, "W0", "W1", "W0"),
        (11, "S0", "S2", "S0"),
        (15, "M0", "M1", "M0"),
        (23, "M2", "M3", "M2"),
        (24, "W0", "W1", "W0"),
        # the misreading makes a domino too (F0W0, M3W0, M2S0): the likelier one stays
        (19, "F1", "F0", "F0"),
        (7, "M2", "M3", "M3"),
        (15, "M0", "M2", "M2"),
    ],
)
def test_pairing_settles_crown_counts(square: int, truth: str, misread: str, expected: str) -> None:
    assert _tokens(BUILT)[square] == truth
    probs = _with(_one_hot(_tokens(BUILT)), square, {misread: 0.5, truth: 0.4})
    kingdom, _ = decode(probs, ALL_CELLS, BUILT.shape)
    assert _tokens(kingdom)[square] == expected


def test_without_pairing_only_the_counts_hold() -> None:
    probs = _with(_one_hot(_tokens(BUILT)), 0, {"W1": 0.5, "W0": 0.4})
    kingdom, _ = decode(probs, ALL_CELLS, BUILT.shape, unpaired_cost=0.0)
    assert _tokens(kingdom)[0] == "W1"


def test_each_domino_is_used_no_more_often_than_the_set_has_it() -> None:
    # six squares that look like wheat, second choice forest: the set has two W0W0
    # dominoes and one W0F0, so with pairing enforced one square turns forest
    probs = np.vstack(
        [_with(_one_hot(["W0"]), 0, {"W0": 0.6, "F0": 0.3}) for _ in range(6)] + [_one_hot(["C"])]
    )
    kingdom, _ = decode(probs, ALL_CELLS, (1, 7), unpaired_cost=20.0)
    counts = Counter(_tokens(kingdom))
    assert counts == {"W0": 5, "F0": 1, "C": 1}


def test_a_lone_square_may_stay_unpaired() -> None:
    # a sure M0 with no W1 beside it stays M0: misreading it costs more than UNPAIRED_COST
    probs = _one_hot(["W0", "M0", "C"], sharp=0.98)
    kingdom, _ = decode(probs, ALL_CELLS, (1, 3))
    assert _tokens(kingdom) == ["W0", "M0", "C"]
    assert -np.log(0.02 / 17) > UNPAIRED_COST


def test_decode_moves_the_least_sure_square_of_an_over_used_pair() -> None:
    # the set holds one M3; the less sure of two M3 squares takes its second choice, M2
    probs = _with(_one_hot(["M3", "M3", "C", "W0"]), 1, {"M3": 0.6, "M2": 0.4})
    kingdom, _ = decode(probs, ALL_CELLS, (2, 2))
    assert _tokens(kingdom) == ["M3", "M2", "C", "W0"]


def test_decode_makes_exactly_one_castle() -> None:
    probs = _with(_one_hot(["C", "C", "W0", "F0"]), 1, {"C": 0.6, "W0": 0.3})
    kingdom, _ = decode(probs, ALL_CELLS, (2, 2))
    assert kingdom.castle == (0, 0)
    kingdom, _ = decode(_one_hot(["W0", "F0", "L0", "G0"]), ALL_CELLS, (2, 2))
    assert sum(c == CASTLE for _, c in kingdom.cells()) == 1


def test_classes_must_include_castle_and_empty() -> None:
    with pytest.raises(ValueError, match="must include"):
        decode(np.ones((4, 2)) / 2, ALL_CELLS[:2], (2, 2))


@settings(max_examples=40, deadline=None)
@given(side=st.sampled_from([3, 5, 7]), data=st.data())
def test_decode_never_breaks_the_tile_set(side: int, data: st.DataObject) -> None:
    raw = data.draw(
        arrays(
            np.float64,
            (side * side, len(ALL_CELLS)),
            elements=st.floats(0.0, 1.0, allow_nan=False, width=32),
        )
    )
    probs = raw + 1e-6
    probs /= probs.sum(axis=1, keepdims=True)
    kingdom, confidence = decode(probs.reshape(side, side, -1), ALL_CELLS, (side, side))
    counts = Counter(c for _, c in kingdom.cells())
    assert counts[CASTLE] == 1
    caps = tileset_counts()
    for cell, n in counts.items():
        assert cell in ALL_CELLS
        if cell not in (CASTLE, EMPTY):
            assert n <= caps[cell]
    assert confidence.shape == (side, side)
    assert ((confidence >= 0) & (confidence <= 1)).all()


def test_decode_fills_a_duel_board_with_the_whole_set() -> None:
    # 49 squares all most likely W0: only 26 W0 exist, the rest take other labels
    probs = _one_hot(["W0"] * 49, sharp=0.5)
    kingdom, _ = decode(probs, ALL_CELLS, (7, 7))
    counts = Counter(c for _, c in kingdom.cells())
    assert counts[Cell(Terrain.WHEAT, 0)] <= tileset_counts()[Cell(Terrain.WHEAT, 0)]
    assert counts[CASTLE] == 1


def test_decode_falls_back_to_counts_alone_without_a_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(decoding, "_milp", lambda *args, **kwargs: None)
    probs = _with(_one_hot(["M3", "M3", "C", "W0"]), 1, {"M3": 0.6, "M2": 0.4})
    kingdom, _ = decode(probs, ALL_CELLS, (2, 2))
    assert _tokens(kingdom) == ["M3", "M2", "C", "W0"]


def _scipy_milp(
    costs: np.ndarray,
    rows: np.ndarray,
    columns: np.ndarray,
    n_rows: int,
    lower: np.ndarray,
    upper: np.ndarray,
) -> np.ndarray | None:
    """The same programme solved by SciPy's :func:`scipy.optimize.milp` (HiGHS as SciPy
    bundles and calls it), summing repeated entries as a sparse matrix does."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_matrix

    matrix = csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(n_rows, len(costs)))
    result = milp(
        costs,
        constraints=LinearConstraint(matrix, lower, upper),
        integrality=np.ones(len(costs)),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    return None if result.x is None else np.asarray(result.x)


@pytest.mark.parametrize("seed", range(12))
def test_the_programme_decodes_as_scipy_milp_does(
    seed: int, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Noisy grids that no square-by-square reading builds, so the programme runs.
    rng = np.random.default_rng(seed)
    shape = (7, 7) if seed % 3 == 0 else (5, 5)
    n = shape[0] * shape[1]
    logits = rng.normal(0.0, 1.0, (n, len(ALL_CELLS)))
    logits[np.arange(n), rng.integers(0, len(ALL_CELLS), n)] += rng.uniform(0.0, 6.0, n)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    ours = decode(probs, ALL_CELLS, shape)[0]
    assert capfd.readouterr().out == ""  # the solver prints nothing (a JSON output stays JSON)
    monkeypatch.setattr(decoding, "_milp", _scipy_milp)
    assert ours == decode(probs, ALL_CELLS, shape)[0]


@pytest.mark.parametrize(
    ("row", "places"),
    [
        # The castle seen: only its square.
        ("C W0 W0", {(0, 0)}),
        # None seen: at either end it leaves a domino of the set (W0 W0, or W0 M2: 45);
        # in the middle, two squares unpaired.
        ("W0 W0 M2", {(0, 0), (0, 2)}),
        # Only at the right end does it leave a domino (W1 M0: 23); M0 L1 and W1 L1 are none.
        ("W1 M0 L1", {(0, 2)}),
    ],
)
def test_castle_places_are_the_squares_a_nearly_as_probable_grid_puts_it(
    row: str, places: set[tuple[int, int]]
) -> None:
    probs = np.full((3, len(ALL_CELLS)), 0.001)
    for i, token in enumerate(row.split()):
        probs[i, TOKENS.index(token)] = 0.9
    assert decoding.castle_places(probs, ALL_CELLS, (1, 3), within=UNPAIRED_COST) == places


def test_candidate_pruning_keeps_every_label_pairing_could_choose() -> None:
    # relabelling a square can save at most two unpaired costs (it and one neighbour)
    assert decoding.CANDIDATE_MARGIN > 2 * UNPAIRED_COST


def test_a_buildable_best_reading_skips_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decoding, "_milp", lambda *args, **kwargs: pytest.fail("solver called"))
    kingdom, _ = decode(_one_hot(_tokens(BUILT)), ALL_CELLS, (5, 5))
    assert kingdom == BUILT


@pytest.mark.parametrize(
    "tokens",
    [
        ["C", "W0", "C", "W0"],  # two castles
        ["M3", "M3", "C", "."],  # more M3 than the set holds
        ["M0", "W0", "C", "."],  # no domino holds M0 with W0
        ["W0", "W0", "W0", "C"],  # three W0: one is left without a partner
    ],
)
def test_a_best_reading_the_set_cannot_build_goes_to_the_solver(tokens: list[str]) -> None:
    cost = -np.log(_one_hot(tokens))
    assert decoding._best_if_buildable(cost, (2, 2), UNPAIRED_COST) is None


def test_the_shortcut_gives_the_solvers_answer() -> None:
    rng = np.random.default_rng(7)
    taken = 0
    for trial in range(60):
        noise = rng.uniform(0.0, 0.4 + trial / 60, (25, len(ALL_CELLS)))
        probs = _one_hot(_tokens(BUILT), sharp=0.5) + noise
        cost = -np.log(probs / probs.sum(axis=1, keepdims=True))
        for unpaired in (UNPAIRED_COST, 0.0):
            quick = decoding._best_if_buildable(cost, (5, 5), unpaired)
            if quick is not None:
                taken += 1
                assert quick == decoding._solve_programme(cost, (5, 5), unpaired)
    assert 10 < taken < 110  # both ways were tried


def test_a_kingdom_of_whole_dominoes_is_left_as_read() -> None:
    assert decoding.whole_domino_changes(_one_hot(_tokens(BUILT)), ALL_CELLS, BUILT) == {}


def _read(tokens: list[str]) -> Kingdom:
    return Kingdom.parse("\n".join(" ".join(tokens[r * 5 : r * 5 + 5]) for r in range(5)))


@pytest.mark.parametrize(
    ("changed", "second", "named"),
    [
        # The first domino (W0 W0) taken away, its right half's bare table read as a crowned
        # grassland: 23 tile squares, one too many for whole dominoes. Making that square
        # bare again costs log(0.9 / 0.08) = 2.4 nats; any other change log(0.9 / 0.006) = 5.
        ({0: ".", 1: "G2"}, {1: (".", 0.08)}, {(0, 1): "."}),
        # The W1 beside the M0 read as W0: 24 tile squares, but M0 pairs with W1 alone.
        ({10: "W0"}, {10: ("W1", 0.08)}, {(2, 0): "W1"}),
    ],
)
def test_the_squares_a_grid_of_whole_dominoes_reads_differently_are_named(
    changed: dict[int, str], second: dict[int, tuple[str, float]], named: dict[tuple[int, int], str]
) -> None:
    tokens = _tokens(BUILT)
    for i, token in changed.items():
        tokens[i] = token
    probs = _one_hot(tokens)
    for i, (token, p) in second.items():
        probs = _with(probs, i, {tokens[i]: 0.9, token: p})
    found = decoding.whole_domino_changes(probs, ALL_CELLS, _read(tokens))
    assert {pos: cell.token for pos, cell in found.items()} == named
