"""Fuzzing the text-grid parser: whatever the text, a kingdom or a GridParseError.

Inputs are random text, grids built from real tokens with typos mixed in, and
real grids with their lines and separators disturbed. A kingdom that parses
must keep its promises: one castle, at most 7×7, equal rows, and it reads back
from its own text unchanged.

``make test`` runs a few hundred inputs; the long run::

    KINGDOMINO_FUZZ_EXAMPLES=100000 .venv/bin/pytest tests/fuzz -s -q
"""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.rules.kingdom import ALL_CELLS, CASTLE, MAX_SIZE, GridParseError, Kingdom

LONG_RUN = "KINGDOMINO_FUZZ_EXAMPLES" in os.environ
"""The long run draws new inputs each time; ``make test`` draws the same ones every run."""

EXAMPLES = int(os.environ.get("KINGDOMINO_FUZZ_EXAMPLES", "150"))
"""Inputs per harness: small by default, raised by the environment for the long run."""

TOKENS = [c.token for c in ALL_CELLS]
TYPOS = ["X9", "W", "M4", "G3", "CC", "c", "w1", "0", "..", "W-1", "F٣", "Ｗ0", "L1L1", "\u00a0"]
SEPARATORS = [" ", "  ", "\t", " \t", ",", ";", "|", "\u3000"]
LINE_ENDS = ["\n", "\r\n", "\r", "\n\n", "\n# comment\n", "\v", "\x1c", "\u2028"]


@st.composite
def grid_texts(draw: st.DrawFn) -> str:
    """A grid made of tokens (mostly real), separators and line ends (mostly usual)."""
    rows = draw(st.integers(0, MAX_SIZE + 2))
    cols = draw(st.integers(1, MAX_SIZE + 2))
    token = st.one_of(st.sampled_from(TOKENS), st.sampled_from(TYPOS), st.text(max_size=3))
    lines = []
    for _ in range(rows):
        width = cols if draw(st.integers(0, 9)) else draw(st.integers(0, MAX_SIZE + 2))
        separator = draw(st.sampled_from(SEPARATORS)) if draw(st.integers(0, 4)) == 0 else " "
        lines.append(separator.join(draw(token) for _ in range(width)))
    ending = draw(st.sampled_from(LINE_ENDS)) if draw(st.integers(0, 3)) == 0 else "\n"
    return ending.join(lines)


@st.composite
def valid_grids(draw: st.DrawFn) -> str:
    """A valid kingdom's text: a castle somewhere among land and empty squares."""
    rows, cols = draw(st.integers(1, MAX_SIZE)), draw(st.integers(1, MAX_SIZE))
    cells = [[draw(st.sampled_from([*TOKENS[:-2], "."])) for _ in range(cols)] for _ in range(rows)]
    cells[draw(st.integers(0, rows - 1))][draw(st.integers(0, cols - 1))] = CASTLE.token
    return "\n".join(" ".join(row) for row in cells)


ANY_TEXT = st.one_of(st.text(max_size=300), grid_texts(), valid_grids())


def test_the_parser_only_raises_grid_parse_errors() -> None:
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
        derandomize=not LONG_RUN,
    )
    @given(ANY_TEXT)
    def check(text: str) -> None:
        try:
            kingdom = Kingdom.parse(text)
        except GridParseError as err:
            assert err.reason and str(err)
            outcomes["GridParseError"] += 1
            return
        assert sum(cell == CASTLE for _, cell in kingdom.cells()) == 1
        assert 1 <= kingdom.height <= MAX_SIZE and 1 <= kingdom.width <= MAX_SIZE
        assert len({len(row) for row in kingdom.rows}) == 1
        assert Kingdom.parse(kingdom.format()) == kingdom
        outcomes["parsed"] += 1

    check()
    print(f"\ngrid fuzz: {sum(outcomes.values())} inputs tried, {dict(outcomes)}")
    assert outcomes["parsed"] > 0 and outcomes["GridParseError"] > 0


@given(valid_grids())
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG_RUN)
def test_every_valid_grid_parses_and_reads_back(text: str) -> None:
    kingdom = Kingdom.parse(text)
    assert kingdom.format() == text
