"""Render scores as plain data (for ``--json`` and the app) and as readable text.

The dictionaries here are the JSON the command line prints, which other tools
read; :func:`photo_kingdom_result` adds the keys of a kingdom read from a photo
(``corners``, ``confidence``, ``doubtful``, ``notes``, ``confirmed``, ``reasons``) to those
of :func:`kingdom_result`, for the command line and the page's download alike::

    {"grid": ["G0 L0 F0 F0 F0", ...],
     "score": {"total": 51, "properties": 36, "harmony": 5, "middle_kingdom": 10},
     "properties": [{"terrain": "forest", "squares": 6, "crowns": 1, "points": 6}],
     "warnings": [{"kind": "too-many-of-pair", "message": "...", "positions": [[0, 1]]}]}

The notes for the player on a kingdom read from a photo are written here too.
Positions in the data are 0-based ``[row, column]``; the text names them
1-based, like the line and column numbers of a grid parse error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scorer.i18n import _, names, ngettext, number, words
from scorer.read.params import DEFAULT
from scorer.rules.kingdom import Cell, Kingdom, Position
from scorer.rules.scoring import (
    CROWNS_FIRST_NAME,
    HARMONY_BONUS,
    MIDDLE_KINGDOM_BONUS,
    TERRAIN_WORDS,
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

if TYPE_CHECKING:
    from scorer.results.photo import KingdomReport

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


def photo_kingdom_result(
    found: KingdomReport,
    rules: Rules,
    *,
    kingdom: Kingdom | None = None,
    confirmed: bool | None = None,
    file_notes: Sequence[str] = (),
) -> JSONDict:
    """Return a kingdom read from a photo as JSON-ready data: :func:`kingdom_result` and its
    ``corners``, ``confidence``, ``doubtful`` squares (with the likeliest other reading),
    ``notes``, and the verdict: ``confirmed`` and the ``reasons`` it is not.

    The command line prints the kingdom as read; the page passes the kingdom after the
    player's corrections, and whether the player confirmed it.

    Parameters
    ----------
    found : KingdomReport
        The kingdom as read, with its corners, confidence, doubtful squares and notes.
    rules : Rules
    kingdom : Kingdom, optional
        The kingdom as the player corrected it (its squares score); the one read when omitted.
        A doubtful square the player changed is no longer listed as doubtful.
    confirmed : bool, optional
        Whether the total is confirmed, when the player confirmed it; the program's own
        verdict (:attr:`KingdomReport.confirmed`) when omitted. The ``reasons`` stay those
        of the program, so they tell what the player checked.
    file_notes : sequence of str
        What reading the file noticed (damaged EXIF…), put first among the ``notes``.

    Returns
    -------
    dict
    """
    final = found.kingdom if kingdom is None else kingdom
    same_shape = final.shape == found.kingdom.shape
    return {
        **kingdom_result(final, rules),
        "corners": [[float(v) for v in point] for point in found.corners],
        "confidence": found.confidence,
        "doubtful": [
            {"square": [r, c], "read": found.kingdom[(r, c)].token, "perhaps": other.token}
            for (r, c), other in sorted(found.second_choices.items())
            if same_shape and final[(r, c)] == found.kingdom[(r, c)]
        ],
        "notes": [*file_notes, *found.warnings],
        "confirmed": found.confirmed if confirmed is None else confirmed,
        "reasons": list(found.reasons),
    }


def corner_points(corners: Iterable[Iterable[float]]) -> list[list[float]]:
    """Return corners as ``[x, y]`` lists of pixels, rounded to a tenth.

    >>> corner_points([(10.26, 10.04), (160.31, 10.0)])
    [[10.3, 10.0], [160.3, 10.0]]
    """
    return [[round(float(v), 1) for v in point] for point in corners]


def confidence_grid(confidence: Iterable[Iterable[float]]) -> list[list[float]]:
    """Return each square's probability, row by row, rounded to three decimals.

    >>> confidence_grid([[0.98123, 0.5]])
    [[0.981, 0.5]]
    """
    return [[round(float(v), 3) for v in row] for row in confidence]


def photo_notes(
    shape: tuple[int, int],
    square_px: float,
    kingdom: Kingdom,
    second_choices: Mapping[Position, Cell],
    outline: str | None = None,
    min_square_px: float = DEFAULT.min_square_px,
) -> tuple[str, ...]:
    """Return the notes for the player on a kingdom read from a photo, most important first.

    Parameters
    ----------
    shape : tuple of int
        ``(rows, columns)`` of the grid found.
    square_px : float
        Side of a square in the photo, in pixels (0 when unknown).
    kingdom : Kingdom
        The kingdom as read.
    second_choices : mapping of Position to Cell
        Each doubtful square with its most probable other reading.
    outline : str, optional
        The note that what was read corrected the outline (:func:`outline_note`).
    min_square_px : float
        Side of a square, in pixels, below which the player is asked to check crowns.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> photo_notes((5, 4), 100.0, Kingdom.parse("C F0"), {})
    ('the grid found is 5×4, not square: check the corners',)
    """
    notes = [] if outline is None else [outline]
    rows, cols = shape
    if rows != cols:
        notes.append(
            _(
                "the grid found is {rows}×{cols}, not square: check the corners",
                rows=rows,
                cols=cols,
            )
        )
    small = small_squares_note(square_px, min_square_px)
    if small:
        notes.append(small)
    if second_choices:
        n = len(second_choices)
        notes.append(
            ngettext(
                "{n} doubtful square, please check: {squares}",
                "{n} doubtful squares, please check: {squares}",
                n,
                squares=doubtful_hint(kingdom, second_choices),
            )
        )
    return tuple(notes)


def small_squares_note(side: float, limit: float = DEFAULT.min_square_px) -> str | None:
    """Return the note for a kingdom whose squares are ``side`` pixels across, if under ``limit``.

    >>> small_squares_note(100.0) is None
    True
    >>> small_squares_note(25.0)[:36]
    'the squares are only 25 pixels acros'
    """
    if not 0 < side < limit:
        return None
    return _(
        "the squares are only {pixels} pixels across in the photo, so crowns may be "
        "misread: check them, or take the photo closer or at a higher resolution",
        pixels=number(side),
    )


def outline_note(found: tuple[int, int], read: tuple[int, int]) -> str:
    """Return the note for a kingdom whose outline the squares' reading corrected.

    >>> outline_note((4, 5), (5, 5))
    'the grid found, 4×5, grew to 5×5 to take in squares read beyond it: check the outline'
    >>> outline_note((5, 5), (5, 4))
    'the grid found, 5×5, shrank to 5×4, dropping bare table: check the outline'
    >>> outline_note((5, 4), (5, 4))
    'the grid found, 5×4, moved by a row to take in squares read beyond it: check the outline'
    """
    rows, cols = found
    sizes = {"rows": rows, "cols": cols, "read_rows": read[0], "read_cols": read[1]}
    if read[0] * read[1] > rows * cols:
        return _(
            "the grid found, {rows}×{cols}, grew to {read_rows}×{read_cols} to take in squares "
            "read beyond it: check the outline",
            **sizes,
        )
    if read[0] * read[1] < rows * cols:
        return _(
            "the grid found, {rows}×{cols}, shrank to {read_rows}×{read_cols}, dropping bare "
            "table: check the outline",
            **sizes,
        )
    return _(
        "the grid found, {rows}×{cols}, moved by a row to take in squares read beyond it: "
        "check the outline",
        **sizes,
    )


def other_outline_note(found: tuple[int, int], read: tuple[int, int]) -> str:
    """Return the note for a kingdom read through another of the outlines detection kept.

    >>> other_outline_note((4, 5), (5, 5))
    'the seams were faint: 5×5 squares read more clearly than the 4×5 found: check the outline'
    >>> other_outline_note((5, 5), (5, 5))
    'the seams were faint: the 5×5 grid, moved, reads more clearly: check the outline'
    """
    if found == read:
        return _(
            "the seams were faint: the {rows}×{cols} grid, moved, reads more clearly: "
            "check the outline",
            rows=read[0],
            cols=read[1],
        )
    return _(
        "the seams were faint: {rows}×{cols} squares read more clearly than the "
        "{found_rows}×{found_cols} found: check the outline",
        rows=read[0],
        cols=read[1],
        found_rows=found[0],
        found_cols=found[1],
    )


def doubtful_hint(kingdom: Kingdom, second_choices: Mapping[Position, Cell]) -> str:
    """Return the doubtful squares in words, each with its reading and the likeliest other one.

    Parameters
    ----------
    kingdom : Kingdom
        The kingdom as read.
    second_choices : mapping of Position to Cell
        For each doubtful square, the most probable other reading.

    Returns
    -------
    str

    Examples
    --------
    >>> k = Kingdom.parse("M2 W0 C")
    >>> doubtful_hint(k, {(0, 0): Cell.parse("M1")})
    'row 1 column 1 (read M2, perhaps M1)'
    """
    return ", ".join(
        _(
            "{square} (read {read}, perhaps {other})",
            square=position_words(pos),
            read=kingdom[pos].token,
            other=other.token,
        )
        for pos, other in sorted(second_choices.items())
    )


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
        "message": words(violation.wording or violation.message),
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
        "explanations": explanations(ranking),
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
    head = (_("property"), _("squares"), _("crowns"), _("points"))
    lines.append(f"{head[0]:<12}{head[1]:>9}{head[2]:>8}{head[3]:>8}")
    if not breakdown.properties:
        lines.append(_("(no properties)"))
    for p in breakdown.properties:
        terrain = _(TERRAIN_WORDS[p.terrain])
        lines.append(f"{terrain:<12}{p.squares:>9}{p.crowns:>8}{p.points:>8}")
    lines.append("")
    lines.append(_figure_line(_("properties"), breakdown.property_points))
    lines.extend(_bonus_lines(kingdom, rules, breakdown))
    lines.append(_figure_line(_("total"), breakdown.total))
    warnings = tileset_violations(kingdom, rules)
    if warnings:
        lines.append("")
        lines.append(_("tile-set warnings (a square may be misread):"))
        lines.extend(f"- {format_violation(v)}" for v in warnings)
    return "\n".join(lines)


def format_violation(violation: Violation) -> str:
    """Return a warning as one line naming its doubtful squares, 1-based.

    >>> from scorer.rules.scoring import ViolationKind
    >>> format_violation(Violation(ViolationKind.TOO_MANY_OF_PAIR, "too many", ((0, 1),)))
    'too many; check row 1 column 2'
    """
    message = words(violation.wording or violation.message)
    if not violation.positions:
        return message
    return _(
        "{message}; check {squares}", message=message, squares=format_positions(violation.positions)
    )


def format_positions(positions: Sequence[Position]) -> str:
    """Return squares as readable 1-based ``row R column C`` words."""
    return ", ".join(position_words(pos) for pos in positions)


def position_words(pos: Position) -> str:
    """Return one square as 1-based words in the player's language: "row 1 column 2".

    >>> position_words((0, 1))
    'row 1 column 2'
    """
    return _("row {row} column {column}", row=pos[0] + 1, column=pos[1] + 1)


def explanations(ranking: Ranking) -> list[str]:
    """Return every tie's explanation in the player's language, one text per tie."""
    return [" ".join(words(sentence) for sentence in tie) for tie in ranking.reasons]


def format_ranking(ranking: Ranking) -> str:
    """Return the ranking as a numbered table followed by its tie-break explanations."""
    title = _("Dynasty ranking (sum of 3 games)") if ranking.dynasty else _("Ranking")
    if ranking.rules.tiebreak is TieBreakOrder.CROWNS_FIRST:
        title += " — " + _('house rule "{rule}"', rule=_(CROWNS_FIRST_NAME))
    width = max(len(s.name) for s in ranking.standings)
    lines = [title]
    for s in ranking.standings:
        points = ngettext("{n} point", "{n} points", s.total)
        lines.append(
            f"{s.place:>2}. {s.name:<{width}}  {points:>{len(points) + 4 - len(str(s.total))}}  "
            + _(
                "(largest property {largest}, crowns {crowns})",
                largest=s.largest_property,
                crowns=s.crowns,
            )
        )
    if len(ranking.winners) > 1:
        lines.append(_("Shared victory: {names}.", names=names(ranking.winners)))
    for text in explanations(ranking):
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
            _("all {side}×{side} squares filled", side=n)
            if is_complete(kingdom, rules)
            else _("not all {side}×{side} squares filled", side=n)
        )
        label = _("harmony (+{bonus})", bonus=HARMONY_BONUS)
        lines.append(_figure_line(label, breakdown.harmony, note))
    if rules.middle_kingdom:
        reach = (n - 1) // 2
        note = (
            _("castle in the centre")
            if is_centred(kingdom, rules)
            else _("a square lies more than {reach} rows or columns from the castle", reach=reach)
        )
        label = _("middle kingdom (+{bonus})", bonus=MIDDLE_KINGDOM_BONUS)
        lines.append(_figure_line(label, breakdown.middle_kingdom, note))
    return lines
