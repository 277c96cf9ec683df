"""The ranking of the game on the page: a compact summary at the top, and the details (rules in
play, the table and every tie-break explained) above the kingdoms.

Only totals that count are ranked (:attr:`scorer.page.common.Entry.settled`): an unconfirmed
total waits until the player confirms it, corrects a square or marks the corners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd  # type: ignore[import-untyped]
import streamlit as st

from scorer.i18n import _, names, ngettext, words
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


@dataclass(frozen=True)
class Standing:
    """The game as the page ranks it: the ranking of the totals that count, if any, and why
    there is none or some players are left out."""

    ranking: Ranking | None
    waiting: tuple[Entry, ...] = ()
    """Players whose total is unconfirmed, left out of the ranking until it is confirmed."""
    problem: str = ""
    """Why the players cannot be ranked (too many, the same name twice); empty otherwise."""


def standing(entries: Sequence[Entry], rules: Rules) -> Standing:
    """Rank the players whose totals count; say why the others wait and why none can be ranked.

    >>> from scorer.page.common import FoundKingdom
    >>> from scorer.rules.kingdom import Kingdom
    >>> from scorer.rules.scoring import score, tileset_violations
    >>> def entry(name, grid, reasons=()):
    ...     k = Kingdom.parse(grid)
    ...     found = FoundKingdom(name, "typed", k, reasons=reasons)
    ...     return Entry(found, name, k, score(k), tileset_violations(k))
    >>> game = standing([entry("A", "F1 F0 C"), entry("B", "C M2", ("edge",))], Rules())
    >>> game.ranking is None, [e.name for e in game.waiting]
    (True, ['B'])
    """
    counted = [e for e in entries if e.settled]
    waiting = tuple(e for e in entries if not e.settled)
    if len(entries) > MAX_PLAYERS:
        return Standing(
            None,
            waiting,
            _(
                "{count} kingdoms: a game has at most {most} players. "
                "Remove a photo or a typed grid to rank them.",
                count=len(entries),
                most=MAX_PLAYERS,
            ),
        )
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        return Standing(
            None,
            waiting,
            _("Two players have the same name; give each player a different name to rank."),
        )
    if len(counted) < 2:
        return Standing(None, waiting)
    return Standing(rank([Player(e.name, (e.kingdom,)) for e in counted], rules), waiting)


def mixed_sizes(entries: Sequence[Entry]) -> str:
    """The warning for a 5×5 kingdom ranked with a 7×7 one; empty when the sizes agree.

    >>> from types import SimpleNamespace as K
    >>> mixed_sizes([K(kingdom=K(shape=(5, 5))), K(kingdom=K(shape=(7, 7)))])[:30]
    '⚠️ A 5×5 kingdom and a 7×7 kin'
    """
    small = any(max(e.kingdom.shape) <= STANDARD_SIZE for e in entries)
    large = any(max(e.kingdom.shape) > STANDARD_SIZE for e in entries)
    if not (small and large):
        return ""
    return "⚠️ " + _(
        "A {small}×{small} kingdom and a {large}×{large} kingdom are ranked together, but the "
        "players of one game all play the same variant: Standard ({small}×{small}) or Mighty "
        "Duel ({large}×{large}). Check that each photo shows the whole kingdom, or choose the "
        "variant in the sidebar (☰ on a phone).",
        small=STANDARD_SIZE,
        large=DUEL_SIZE,
    )


def summary_ui(entries: Sequence[Entry], game: Standing) -> None:
    """The compact results at the top of the page: each player's place and total."""
    with st.container(border=True):
        lines = []
        if game.ranking is not None:
            winners = set(game.ranking.winners)
            for s in game.ranking.standings:
                crown = " 🏆" if s.name in winners else ""
                points = ngettext("**{n}** point", "**{n}** points", s.total)
                lines.append(f"**{s.place}.** {s.name} — {points}{crown}")
        elif len(entries) == 1 and not game.waiting:
            e = entries[0]
            lines.append(_("**{name}** scores **{total}**.", name=e.name, total=e.breakdown.total))
        else:
            for e in entries:
                if e.settled:
                    points = ngettext("**{n}** point", "**{n}** points", e.breakdown.total)
                    lines.append(f"{e.name} — {points}")
        for e in game.waiting:
            points = ngettext("{n} point", "{n} points", e.breakdown.total)
            lines.append(
                f"⚠️ {e.name} — {points}, "
                + _("**unconfirmed — check the outline** (not ranked yet)")
            )
        st.markdown("  \n".join(lines))
        if game.problem:
            st.caption(game.problem)
        warning = mixed_sizes(entries)
        if warning:
            st.caption(warning)


def ranking_ui(entries: Sequence[Entry], rules: Rules, game: Standing) -> None:
    """The ranking in detail: the rules in play, warnings, the table and every tie-break."""
    st.subheader("🏆 " + _("Ranking"))
    st.caption(rules_line(rules))
    if rules.side == STANDARD_SIZE and any(max(e.kingdom.shape) > STANDARD_SIZE for e in entries):
        st.warning(
            _(
                "A kingdom is larger than {small}×{small}: for Mighty Duel, choose the "
                "{large}×{large} variant in the sidebar (☰ on a phone).",
                small=STANDARD_SIZE,
                large=DUEL_SIZE,
            )
        )
    warning = mixed_sizes(entries)
    if warning:
        st.warning(warning)
    for e in game.waiting:
        st.info(
            _(
                "{name} is not ranked yet: the total is unconfirmed. Check the outline on "
                "the photo, then press “This is right”, correct a square or mark the corners.",
                name=e.name,
            )
        )
    if game.problem:
        st.warning(game.problem)
        return
    ranking = game.ranking
    if ranking is None:
        counted = [e for e in entries if e.settled]
        if len(entries) == 1 and counted:
            e = counted[0]
            st.markdown(
                _(
                    "**{name}** scores **{total}**. Add a second kingdom to rank.",
                    name=e.name,
                    total=e.breakdown.total,
                )
            )
        return
    by_name = {e.name: e for e in entries}
    table = pd.DataFrame(
        [
            {
                _("Place"): s.place,
                _("Player"): s.name,
                _("Total"): s.total,
                _("Largest property"): s.largest_property,
                _("Crowns"): s.crowns,
                _("Note"): "✏️ " + _("corrected by hand") if by_name[s.name].corrected else "",
            }
            for s in ranking.standings
        ]
    )
    winners = ranking.winners
    if len(winners) == 1:
        st.success(
            "🏆 "
            + ngettext(
                "**{name}** wins with {n} point.",
                "**{name}** wins with {n} points.",
                ranking.standings[0].total,
                name=winners[0],
            )
        )
    else:
        st.success("🏆 " + _("Shared victory: **{names}**.", names=names(winners)))
    st.dataframe(table, hide_index=True, width="stretch")
    for tie in ranking.reasons:
        st.info("⚖️ " + " ".join(words(sentence) for sentence in tie))


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
        variant = _(
            "grid size from each kingdom ({small}×{small}, or {large}×{large} for Mighty Duel)",
            small=STANDARD_SIZE,
            large=DUEL_SIZE,
        )
    elif side == STANDARD_SIZE:
        variant = _("Standard {side}×{side}", side=side)
    else:
        variant = _("Mighty Duel {side}×{side}", side=side)
    parts = [
        variant,
        _("Harmony on") if rules.harmony else _("Harmony off"),
        _("Middle Kingdom on") if rules.middle_kingdom else _("Middle Kingdom off"),
    ]
    if rules.tiebreak is TieBreakOrder.CROWNS_FIRST:
        parts.append(_('house rule "{rule}"', rule=_(CROWNS_FIRST_NAME)))
    else:
        parts.append(_("official tie-break (largest property, then crowns)"))
    return _("Rules: {parts}", parts=" · ".join(parts))
