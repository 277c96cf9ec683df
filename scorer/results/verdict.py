"""Whether the program stands behind a kingdom's total read from a photo, and why not.

A total is *confirmed* when nothing the pipeline knows casts doubt on it. Each doubt is
one plain-language reason; no reason, a confirmed total. Corners the player marked count
as the player confirming the outline (its edge and its corrections), not the squares.

>>> corners = [[100, 100], [600, 100], [600, 600], [100, 600]]
>>> kingdom_verdict((5, 5), corners, (1000, 1000), 100.0)
()
>>> kingdom_verdict((5, 4), corners, (1000, 1000), 100.0, doubtful=3)
('the grid found is 5×4, not square', '3 squares are doubtful')
>>> kingdom_verdict((5, 5), corners, (1000, 1000), 100.0, marked=True, detected_shape=(4, 5))
()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scorer.i18n import _, names, ngettext, words
from scorer.read.hidden import Cause, Unreadable
from scorer.read.params import DEFAULT, ReadParams
from scorer.rules.kingdom import DUEL_SIZE, KINGDOM_SIDES, STANDARD_SIZE
from scorer.rules.scoring import Violation


def kingdom_verdict(
    shape: tuple[int, int],
    corners: Any,
    image_size: tuple[int, int],
    square_px: float,
    *,
    side: int | None = None,
    detected_shape: tuple[int, int] | None = None,
    doubtful: int = 0,
    decisive: int = 0,
    violations: Sequence[Violation] = (),
    marked: bool = False,
    unreadable: Sequence[Unreadable] = (),
    params: ReadParams = DEFAULT,
) -> tuple[str, ...]:
    """Return the reasons the program does not stand behind a kingdom's total; none confirms it.

    Parameters
    ----------
    shape : tuple of int
        ``(rows, columns)`` of the grid read.
    corners : array-like of shape (4, 2)
        The kingdom's corners in the photo, in pixels, clockwise from the top-left.
    image_size : tuple of int
        ``(height, width)`` of the photo, in pixels.
    square_px : float
        Side of one square in the photo, in pixels
        (:func:`scorer.results.photo.square_side_px`).
    side : int, optional
        The side the variant in play expects (5, or 7 for Mighty Duel); None when the
        variant is measured from each kingdom, which must then be 5×5 or 7×7.
    detected_shape : tuple of int, optional
        The grid detection found, when what was read corrected the outline.
    doubtful : int
        How many squares are doubtful: read with low confidence, or put in doubt by a
        rule (an empty reading walled in by tiles, the places the castle may stand, the two
        lights reading a square differently, decoding changing it).
    decisive : int
        How many of those would change the total if their most probable other reading
        were right: one is enough to withhold confirmation.
    violations : sequence of Violation
        Ways the kingdom read cannot be built from the 48 dominoes.
    marked : bool
        Whether the player marked the corners: the outline is then the player's.
    unreadable : sequence of Unreadable
        The squares that cannot be read (:func:`scorer.read.unreadable.unreadable_squares`):
        each makes the total unconfirmed, whoever found the outline. Squares cut off by the
        photo's edge are named together by the side the kingdom runs off at.
    params : ReadParams
        ``edge_margin``, ``several_doubtful`` and ``decisive_doubtful``.

    Returns
    -------
    tuple of str
        Most important first; empty when the total is confirmed.

    Examples
    --------
    >>> corners = [[0, 40], [500, 40], [500, 540], [0, 540]]
    >>> kingdom_verdict((5, 5), corners, (800, 800), 100.0)
    ("the kingdom reaches the photo's edge, so part of it may be cut off",)
    >>> kingdom_verdict((5, 5), corners, (800, 800), 100.0, side=5)  # it is whole: 5×5 at most
    ()
    >>> kingdom_verdict((5, 5), corners, (800, 800), 100.0, side=7, marked=True)
    ('the grid found is 5×5, not the 7×7 of the variant in play',)
    >>> from scorer.read.hidden import Cause, Unreadable
    >>> kingdom_verdict((5, 5), corners, (800, 800), 100.0, marked=True,
    ...                 unreadable=[Unreadable((2, 1), Cause.GLARE)])
    ('glare hides row 3 column 2',)
    """
    reasons = []
    rows, cols = shape
    if rows != cols:
        reasons.append(_("the grid found is {rows}×{cols}, not square", rows=rows, cols=cols))
    elif side is not None and rows != side:
        reasons.append(
            _(
                "the grid found is {rows}×{cols}, not the {side}×{side} of the variant in play",
                rows=rows,
                cols=cols,
                side=side,
            )
        )
    elif side is None and rows not in KINGDOM_SIDES:
        reasons.append(
            _(
                "the grid found is {rows}×{cols}, not {small}×{small} or {large}×{large}",
                rows=rows,
                cols=cols,
                small=STANDARD_SIZE,
                large=DUEL_SIZE,
            )
        )
    if not marked:
        if detected_shape is not None:
            found = f"{detected_shape[0]}×{detected_shape[1]}"
            reasons.append(
                _("the reading moved the outline detection found ({found})", found=found)
            )
        beyond = edge_sides(corners, image_size, 0.0)
        # A grid of the largest side a kingdom may have (7×7; 5×5 where the variant in play
        # is 5×5) cannot go on beyond the edge it reaches.
        full = rows == cols == (side or DUEL_SIZE)
        edge = at_photo_edge(corners, image_size, params.edge_margin * square_px)
        if not beyond and not full and edge:
            reasons.append(_("the kingdom reaches the photo's edge, so part of it may be cut off"))
    else:
        beyond = ()
    cut = [s for s in unreadable if s.cause is Cause.CUT_OFF]
    if beyond or cut:
        sides = beyond or edge_sides(corners, image_size, 0.0)
        reasons.append(runs_off_reason(sides))
    reasons.extend(s.reason for s in unreadable if s.cause is not Cause.CUT_OFF)
    if doubtful >= params.several_doubtful:
        reasons.append(
            ngettext(
                "{n} square is doubtful",
                "{n} squares are doubtful",
                doubtful,
            )
        )
    elif decisive >= params.decisive_doubtful:
        reasons.append(
            ngettext(
                "{n} doubtful square could change the total",
                "{n} doubtful squares could change the total",
                decisive,
            )
        )
    for violation in violations:
        reasons.append(
            _(
                "the squares read cannot all come from the 48 dominoes: {reason}",
                reason=words(violation.wording or violation.message),
            )
        )
    return tuple(reasons)


def runs_off_reason(sides: Sequence[str]) -> str:
    """The reason for a kingdom that runs off the photo, with what to do about it.

    Parameters
    ----------
    sides : sequence of str
        The photo's sides it runs off at (:data:`SIDES`); none when unknown.

    Returns
    -------
    str

    Examples
    --------
    >>> runs_off_reason(["left"])
    "the kingdom runs off the photo's edge at the left: step back and take it again"
    >>> runs_off_reason(["left", "top"])
    "the kingdom runs off the photo's edge at the left and the top: step back and take it again"
    """
    if not sides:
        return _("the kingdom runs off the photo's edge: step back and take it again")
    place = {"left": _("the left"), "right": _("the right"), "top": _("the top")}
    named = names([place.get(side) or _("the bottom") for side in sides])
    return _(
        "the kingdom runs off the photo's edge at {sides}: step back and take it again",
        sides=named,
    )


SIDES: Final = ("left", "right", "top", "bottom")
"""The photo's sides, in the order a reason names them."""


def edge_sides(corners: Any, image_size: tuple[int, int], margin_px: float) -> tuple[str, ...]:
    """The photo's sides that a corner lies within ``margin_px`` pixels of, or beyond.

    >>> edge_sides([[-5, 10], [110, 10], [110, 210], [10, 210]], (200, 200), 0.0)
    ('left', 'bottom')
    >>> edge_sides([[5, 5], [50, 5], [50, 50], [5, 50]], (100, 100), 0.0)
    ()
    """
    quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    height, width = image_size
    room = {
        "left": quad[:, 0].min(),
        "right": width - 1 - quad[:, 0].max(),
        "top": quad[:, 1].min(),
        "bottom": height - 1 - quad[:, 1].max(),
    }
    return tuple(side for side in SIDES if room[side] < margin_px or room[side] < 0)


def at_photo_edge(corners: Any, image_size: tuple[int, int], margin_px: float) -> bool:
    """Whether a corner lies within ``margin_px`` pixels of the photo's border, or beyond it.

    >>> square = [[10, 10], [110, 10], [110, 110], [10, 110]]
    >>> at_photo_edge(square, (200, 200), 5.0), at_photo_edge(square, (200, 200), 20.0)
    (False, True)
    >>> at_photo_edge([[-5, 10], [110, 10], [110, 110], [10, 110]], (200, 200), 0.0)
    True
    """
    quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    height, width = image_size
    room = np.concatenate([quad[:, 0], quad[:, 1], width - 1 - quad[:, 0], height - 1 - quad[:, 1]])
    return bool(room.min() <= margin_px)
