"""Downloads of a scored game: JSON in the command line's shape, and CSV.

>>> from scorer.rules.kingdom import Kingdom
>>> from scorer.rules.scoring import Rules
>>> players = [PlayerResult("Anna", "typed grid 1", Kingdom.parse("F1 F0 C"))]
>>> print(results_csv(players, Rules()).splitlines()[1])
Anna,typed grid 1,,2,2,0,0,2,1,no,F1 F0 C,yes,
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scorer.results.report import JSONDict, kingdom_result, photo_kingdom_result, ranking_dict
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import Ranking, Rules, score

if TYPE_CHECKING:
    from scorer.results.photo import KingdomReport

CSV_COLUMNS = (
    "player",
    "input",
    "place",
    "total",
    "property_points",
    "harmony",
    "middle_kingdom",
    "largest_property",
    "crowns",
    "corrected_by_hand",
    "grid",
    "confirmed",
    "reasons",
)
"""The header of the CSV download, one row per player."""


@dataclass(frozen=True)
class PlayerResult:
    """One player's kingdom as the page shows it, after any correction by hand.

    ``report`` is the kingdom as read from a photo (None for a typed grid), ``confirmed``
    whether its total is confirmed, by the program or by the player, and ``file_notes``
    what reading the photo's file noticed.
    """

    name: str
    source: str
    kingdom: Kingdom
    corrected: bool = False
    report: KingdomReport | None = None
    confirmed: bool = True
    file_notes: tuple[str, ...] = ()

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the program did not stand behind the total read (none for a typed grid)."""
        return () if self.report is None else self.report.reasons

    def kingdom_json(self, rules: Rules) -> JSONDict:
        """The kingdom as the command line prints it: a photo's
        (:func:`~scorer.results.report.photo_kingdom_result`) or a typed grid's."""
        if self.report is None:
            return kingdom_result(self.kingdom, rules)
        return photo_kingdom_result(
            self.report,
            rules,
            kingdom=self.kingdom,
            confirmed=self.confirmed,
            file_notes=self.file_notes,
        )


def results_json(
    players: Sequence[PlayerResult], rules: Rules, ranking: Ranking | None = None
) -> str:
    """Return the game as the command line's ``--json`` document, one result per player.

    Each result keeps the command line's keys (``input``, ``error``,
    ``kingdoms``) and adds ``player`` and ``corrected_by_hand``; the
    document adds ``ranking`` when there is one.

    >>> from scorer.rules.scoring import Rules
    >>> ben = PlayerResult("Ben", "b.jpg", Kingdom.parse("C M2"))
    >>> doc = json.loads(results_json([ben], Rules()))
    >>> doc["results"][0]["kingdoms"][0]["score"]["total"]
    2
    """
    doc: dict[str, object] = {
        "results": [
            {
                "input": p.source,
                "player": p.name,
                "error": None,
                "corrected_by_hand": p.corrected,
                "kingdoms": [p.kingdom_json(rules)],
            }
            for p in players
        ]
    }
    if ranking is not None:
        doc["ranking"] = ranking_dict(ranking)
    return json.dumps(doc, indent=2, ensure_ascii=False)


def results_csv(
    players: Sequence[PlayerResult], rules: Rules, ranking: Ranking | None = None
) -> str:
    """Return one CSV row per player with the score figures, the place, the grid, and whether
    the total is confirmed (with the program's reasons when it was not, for a photo)."""
    places = {s.name: s.place for s in ranking.standings} if ranking else {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in players:
        b = score(p.kingdom, rules)
        writer.writerow(
            [
                p.name,
                p.source,
                places.get(p.name, ""),
                b.total,
                b.property_points,
                b.harmony,
                b.middle_kingdom,
                b.largest_property,
                b.crowns,
                "yes" if p.corrected else "no",
                " / ".join(p.kingdom.lines()),
                "yes" if p.confirmed else "no",
                "; ".join(p.reasons),
            ]
        )
    return out.getvalue()
