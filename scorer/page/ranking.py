"""The ranking of the game on the page, with the rules in play and every tie-break explained."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd  # type: ignore[import-untyped]
import streamlit as st

from scorer.page.common import Entry
from scorer.rules.kingdom import DUEL_SIZE, STANDARD_SIZE
from scorer.rules.scoring import (
    CROWNS_FIRST_NAME,
    MAX_PLAYERS,
    Player,
    Ranking,
    Rules,
    TieBreakOrder,
    rank,
)


def ranking_ui(entries: Sequence[Entry], rules: Rules) -> Ranking | None:
    """The ranking table with every tie-break explained; None when it cannot be ranked."""
    st.subheader("🏆 Ranking")
    st.caption(rules_line(rules))
    if rules.side == STANDARD_SIZE and any(max(e.kingdom.shape) > STANDARD_SIZE for e in entries):
        st.warning(
            f"A kingdom is larger than {STANDARD_SIZE}×{STANDARD_SIZE}: for Mighty Duel, choose "
            f"the {DUEL_SIZE}×{DUEL_SIZE} variant in the sidebar (☰ on a phone)."
        )
    if len(entries) < 2:
        e = entries[0]
        st.markdown(f"**{e.name}** scores **{e.breakdown.total}**. Add a second kingdom to rank.")
        return None
    if len(entries) > MAX_PLAYERS:
        st.warning(
            f"{len(entries)} kingdoms: a game has at most {MAX_PLAYERS} players. "
            "Remove a photo or a typed grid to rank them."
        )
        return None
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        st.warning("Two players have the same name; give each player a different name to rank.")
        return None
    ranking = rank([Player(e.name, (e.kingdom,)) for e in entries], rules)
    by_name = {e.name: e for e in entries}
    table = pd.DataFrame(
        [
            {
                "Place": s.place,
                "Player": s.name,
                "Total": s.total,
                "Largest property": s.largest_property,
                "Crowns": s.crowns,
                "Note": "✏️ corrected by hand" if by_name[s.name].corrected else "",
            }
            for s in ranking.standings
        ]
    )
    winners = ranking.winners
    if len(winners) == 1:
        st.success(f"🏆 **{winners[0]}** wins with {ranking.standings[0].total} points.")
    else:
        st.success(f"🏆 Shared victory: **{' and '.join(winners)}**.")
    st.dataframe(table, hide_index=True, width="stretch")
    for text in ranking.explanations:
        st.info(f"⚖️ {text}")
    return ranking


def rules_line(rules: Rules) -> str:
    """The rules in play, in one line, so nobody has to open the sidebar to check them.

    >>> for part in rules_line(Rules(harmony=True, side=5)).split(" · "):
    ...     print(part)
    Rules: Standard 5×5
    Harmony on
    Middle Kingdom off
    official tie-break (largest property, then crowns)
    """
    side = rules.side
    if side is None:
        variant = (
            f"grid size from each kingdom ({STANDARD_SIZE}×{STANDARD_SIZE}, "
            f"or {DUEL_SIZE}×{DUEL_SIZE} for Mighty Duel)"
        )
    elif side == STANDARD_SIZE:
        variant = f"Standard {side}×{side}"
    else:
        variant = f"Mighty Duel {side}×{side}"
    parts = [
        variant,
        f"Harmony {'on' if rules.harmony else 'off'}",
        f"Middle Kingdom {'on' if rules.middle_kingdom else 'off'}",
    ]
    if rules.tiebreak is TieBreakOrder.CROWNS_FIRST:
        parts.append(f'house rule "{CROWNS_FIRST_NAME}"')
    else:
        parts.append("official tie-break (largest property, then crowns)")
    return "Rules: " + " · ".join(parts)
