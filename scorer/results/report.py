"""Render scores as plain data (for ``--json`` and the app) and as readable text.

The dictionaries here are the JSON the command line prints, which other tools
read; photo results add keys (``corners``, ``confidence``, ``doubtful``, ``notes``)
and keep these::

    {"grid": ["G0 L0 F0 F0 F0", ...],
     "score": {"total": 51, "properties": 36, "harmony": 5, "middle_kingdom": 10},
     "properties": [{"terrain": "forest", "squares": 6, "crowns": 1, "points": 6}],
     "warnings": [{"kind": "too-many-of-pair", "message": "...", "positions": [[0, 1]]}]}

Positions in the data are 0-based ``[row, column]``; the text names them
1-based, like the line and column numbers of a grid parse error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorer.rules.kingdom import Kingdom, Position, position_name
from scorer.rules.scoring import (
    CROWNS_FIRST_NAME,
    HARMONY_BONUS,
    MIDDLE_KINGDOM_BONUS,
    Ranking,
    Rules,
    ScoreBreakdown,
    TieBreakOrder,
    Violation,
    is_centred,
    is_complete,
    score,
    side,
    tileset_violations,
)

JSONDict = dict[str, Any]


def kingdom_result(kingdom: Kingdom, rules: Rules) -> JSONDict:
    """Return the score of one kingdom as the JSON-ready dictionary of the module docstring.

    >>> d = kingdom_result(Kingdom.parse("F1 F0 C"), Rules())
    >>> d["score"]
    {'total': 2, 'properties': 2, 'harmony': 0, 'middle_kingdom': 0}
    >>> d["properties"]
    [{'terrain': 'forest', 'squares': 2, 'crowns': 1, 'points': 2}]
    """
    breakdown = score(kingdom, rules)
    return {
        "grid": kingdom.lines(),
        "score": score_dict(breakdown),
        "properties": [
            {
                "terrain": p.terrain.value,
                "squares": p.squares,
                "crowns": p.crowns,
                "points": p.points,
            }
            for p in breakdown.properties
        ],
        "warnings": [violation_dict(v) for v in tileset_violations(kingdom, rules)],
    }


def score_dict(breakdown: ScoreBreakdown) -> JSONDict:
    """Return the four score figures: total, property points and each bonus."""
    return {
        "total": breakdown.total,
        "properties": breakdown.property_points,
        "harmony": breakdown.harmony,
        "middle_kingdom": breakdown.middle_kingdom,
    }


def violation_dict(violation: Violation) -> JSONDict:
    """Return a tile-set warning with its kind, message and 0-based ``[row, column]`` squares."""
    return {
        "kind": violation.kind.value,
        "message": violation.message,
        "positions": [list(p) for p in violation.positions],
    }


def ranking_dict(ranking: Ranking) -> JSONDict:
    """Return a ranking as JSON-ready data: standings in order, winners and explanations."""
    return {
        "tiebreak": ranking.rules.tiebreak.value,
        "dynasty": ranking.dynasty,
        "standings": [
            {
                "name": s.name,
                "place": s.place,
                "total": s.total,
                "largest_property": s.largest_property,
                "crowns": s.crowns,
                "totals": [b.total for b in s.scores],
            }
            for s in ranking.standings
        ],
        "winners": list(ranking.winners),
        "explanations": list(ranking.explanations),
    }


def format_breakdown(kingdom: Kingdom, rules: Rules) -> str:
    """Return a readable breakdown: the grid, each property, the bonuses, the total and warnings.

    >>> print(format_breakdown(Kingdom.parse("F1 F0 C"), Rules()))
    F1 F0 C
    <BLANKLINE>
    property      squares  crowns  points
    forest              2       1       2
    <BLANKLINE>
    properties                          2
    total                               2
    """
    breakdown = score(kingdom, rules)
    lines = [*kingdom.lines(), ""]
    lines.append(f"{'property':<12}{'squares':>9}{'crowns':>8}{'points':>8}")
    if not breakdown.properties:
        lines.append("(no properties)")
    for p in breakdown.properties:
        lines.append(f"{p.terrain.value:<12}{p.squares:>9}{p.crowns:>8}{p.points:>8}")
    lines.append("")
    lines.append(_figure_line("properties", breakdown.property_points))
    lines.extend(_bonus_lines(kingdom, rules, breakdown))
    lines.append(_figure_line("total", breakdown.total))
    warnings = tileset_violations(kingdom, rules)
    if warnings:
        lines.append("")
        lines.append("tile-set warnings (a square may be misread):")
        lines.extend(f"- {format_violation(v)}" for v in warnings)
    return "\n".join(lines)


def format_violation(violation: Violation) -> str:
    """Return a warning as one line naming its doubtful squares, 1-based.

    >>> from scorer.rules.scoring import ViolationKind
    >>> format_violation(Violation(ViolationKind.TOO_MANY_OF_PAIR, "too many", ((0, 1),)))
    'too many; check row 1 column 2'
    """
    if not violation.positions:
        return violation.message
    return f"{violation.message}; check {format_positions(violation.positions)}"


def format_positions(positions: Sequence[Position]) -> str:
    """Return squares as readable 1-based ``row R column C`` words."""
    return ", ".join(position_name(pos) for pos in positions)


def format_ranking(ranking: Ranking) -> str:
    """Return the ranking as a numbered table followed by its tie-break explanations."""
    title = "Dynasty ranking (sum of 3 games)" if ranking.dynasty else "Ranking"
    if ranking.rules.tiebreak is TieBreakOrder.CROWNS_FIRST:
        title += f' — house rule "{CROWNS_FIRST_NAME}"'
    width = max(len(s.name) for s in ranking.standings)
    lines = [title]
    for s in ranking.standings:
        lines.append(
            f"{s.place:>2}. {s.name:<{width}}  {s.total:>4} points"
            f"  (largest property {s.largest_property}, crowns {s.crowns})"
        )
    if len(ranking.winners) > 1:
        lines.append(f"Shared victory: {', '.join(ranking.winners)}.")
    for text in ranking.explanations:
        lines.append("")
        lines.append(text)
    return "\n".join(lines)


def _figure_line(label: str, value: int, note: str = "") -> str:
    line = f"{label:<28}{value:>9}"
    return f"{line}  ({note})" if note else line


def _bonus_lines(kingdom: Kingdom, rules: Rules, breakdown: ScoreBreakdown) -> list[str]:
    n = side(kingdom, rules)
    lines = []
    if rules.harmony:
        note = (
            f"all {n}×{n} squares filled"
            if is_complete(kingdom, rules)
            else f"not all {n}×{n} squares filled"
        )
        lines.append(_figure_line(f"harmony (+{HARMONY_BONUS})", breakdown.harmony, note))
    if rules.middle_kingdom:
        reach = (n - 1) // 2
        note = (
            "castle in the centre"
            if is_centred(kingdom, rules)
            else f"a square lies more than {reach} rows or columns from the castle"
        )
        lines.append(
            _figure_line(
                f"middle kingdom (+{MIDDLE_KINGDOM_BONUS})", breakdown.middle_kingdom, note
            )
        )
    return lines
