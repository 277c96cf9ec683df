"""A square that cannot be read, and why: what :mod:`scorer.read.unreadable` finds.

>>> Unreadable((0, 4), Cause.CUT_OFF).reason
"the photo's edge cuts off row 1 column 5"
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from scorer.i18n import _
from scorer.rules.kingdom import Position


class Cause(enum.Enum):
    """Why a square cannot be read."""

    GLARE = "glare"
    CUT_OFF = "cut off"
    HIDDEN = "hidden"
    COVERED = "covered"
    OVER_EDGE = "over the edge"
    NO_TABLE = "no table in view"


@dataclass(frozen=True)
class Unreadable:
    """One square that cannot be read, and why.

    Attributes
    ----------
    position : Position
        ``(row, column)``, 0-based.
    cause : Cause
    """

    position: Position
    cause: Cause

    @property
    def reason(self) -> str:
        """The cause in plain language, the square named as a player counts (from 1).

        >>> Unreadable((2, 1), Cause.GLARE).reason
        'glare hides row 3 column 2'
        """
        row, column = self.position[0] + 1, self.position[1] + 1
        if self.cause is Cause.GLARE:
            return _("glare hides row {row} column {column}", row=row, column=column)
        if self.cause is Cause.COVERED:
            return _(
                "something covers row {row} column {column}: it reads as empty but does not "
                "look like the table",
                row=row,
                column=column,
            )
        if self.cause is Cause.OVER_EDGE:
            return _(
                "something lies over row {row} column {column} from beyond the kingdom's edge",
                row=row,
                column=column,
            )
        if self.cause is Cause.NO_TABLE:
            return _(
                "row {row} column {column} reads as empty, but no table shows beside the "
                "kingdom to compare it with",
                row=row,
                column=column,
            )
        if self.cause is Cause.CUT_OFF:
            return _("the photo's edge cuts off row {row} column {column}", row=row, column=column)
        return _(
            "row {row} column {column} reads as empty inside the kingdom: something may hide it",
            row=row,
            column=column,
        )
