"""The Dynasty panel: three games by the same players, saved between visits and ranked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from scorer.page import state
from scorer.page.common import Entry, problem_for, show_problem
from scorer.rules.errors import ScorerError
from scorer.rules.scoring import DYNASTY_GAMES, Ranking, Rules
from scorer.store import GameStore


def dynasty_ui(entries: Sequence[Entry], rules: Rules) -> None:
    """Add the game to a running Dynasty; list, rank and delete past games."""
    with st.expander("👑 Dynasty: three games in a row"):
        dynasty_body(entries, rules)


def dynasty_body(entries: Sequence[Entry], rules: Rules) -> None:
    """The Dynasty panel: save this game, list and delete saved games, rank a finished Dynasty."""
    try:
        store = GameStore()
        known = store.dynasties()
        st.caption(
            f"A Dynasty is {DYNASTY_GAMES} games by the same players with the same rules; the "
            "highest sum of totals wins. Ties are broken by the same steps over the three "
            "kingdoms together (a house rule). Saved games survive a reload or a restart."
        )
        name = st.text_input(
            "Dynasty name", value=known[0] if known else "Dynasty 1", key=state.DYNASTY_NAME
        )
        if st.button("➕ Add this game to the dynasty", key=state.SAVE_GAME):
            game_id = store.save_game(
                name or "",
                [(e.name, e.kingdom) for e in entries],
                rules,
                corrected=[e.corrected for e in entries],
            )
            st.success(f"Saved as game {game_id} of {name}.")
        games = store.games(name or "")
        if games:
            _games_ui(store, games)
            if len(games) == DYNASTY_GAMES:
                _dynasty_ranking_ui(store.dynasty_standings(name or ""))
            else:
                st.caption(f"{len(games)} of {DYNASTY_GAMES} games played.")
        else:
            st.caption("No games saved in this Dynasty yet.")
        others = [d for d in known if d != " ".join((name or "").split())]
        if others:
            st.markdown("**Other Dynasties**")
            for other in others:
                _games_ui(store, store.games(other), title=other)
    except ScorerError as err:
        show_problem(problem_for(err))


def _games_ui(store: GameStore, games: Sequence[Any], title: str = "") -> None:
    """One line per saved game, with a button that deletes it."""
    for game in games:
        players = ", ".join(
            f"{p.name} {p.total}" + (" ✏️" if p.corrected else "") for p in game.players
        )
        when = game.created.astimezone().strftime("%Y-%m-%d %H:%M")
        label = f"{title} · " if title else ""
        left, right = st.columns([5, 1])
        left.markdown(f"{label}Game {game.id} · {when} · {players}")
        if right.button("🗑️ Delete", key=state.delete_game_key(game.id)):
            store.delete_game(game.id)
            st.rerun()


def _dynasty_ranking_ui(ranking: Ranking) -> None:
    """The ranking of a finished Dynasty, by the sum of its games."""
    st.markdown(f"**Dynasty ranking** (sum of {DYNASTY_GAMES} games)")
    winners = ranking.winners
    if len(winners) == 1:
        st.success(f"🏆 **{winners[0]}** wins the Dynasty with {ranking.standings[0].total}.")
    else:
        st.success(f"🏆 Shared Dynasty victory: **{' and '.join(winners)}**.")
    st.dataframe(
        [
            {
                "Place": s.place,
                "Player": s.name,
                "Total": s.total,
                "Games": " + ".join(str(b.total) for b in s.scores),
                "Largest property": s.largest_property,
                "Crowns": s.crowns,
            }
            for s in ranking.standings
        ],
        hide_index=True,
    )
    for text in ranking.explanations:
        st.info(f"⚖️ {text}")
