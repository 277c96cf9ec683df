"""The Dynasty panel: three games by the same players, saved between visits and ranked.

Whatever happens when a game is added (saved, refused, already saved), the message shows
inside the panel, above the saved games, their Delete buttons and the Dynasty ranking. A
refusal says what to do next. Deleting a game asks first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from scorer.page import state
from scorer.page.common import Entry, problem_for, show_problem
from scorer.page.ranking import rules_line
from scorer.rules.errors import ScorerError
from scorer.rules.scoring import DYNASTY_GAMES, MAX_PLAYERS, MIN_PLAYERS, Ranking, Rules
from scorer.store import GameStore, SavedGame


def dynasty_ui(entries: Sequence[Entry], rules: Rules) -> None:
    """Add the game to a running Dynasty; list, rank and delete past games.

    The panel remembers whether it is open (its key), so it stays open while the inputs
    above it change.
    """
    with st.expander(
        "👑 Dynasty: three games in a row", key=state.DYNASTY_PANEL, on_change="rerun"
    ):
        dynasty_body(entries, rules)


def dynasty_body(entries: Sequence[Entry], rules: Rules) -> None:
    """The Dynasty panel: save this game, list and delete saved games, rank a finished Dynasty."""
    try:
        store = GameStore()
        known = store.dynasties()
    except ScorerError as err:
        show_problem(problem_for(err))
        return
    st.caption(
        f"A Dynasty is {DYNASTY_GAMES} games by the same players with the same rules; the "
        "highest sum of totals wins. Ties are broken by the same steps over the three "
        "kingdoms together (a house rule). Saved games survive a reload or a restart."
    )
    if store.read_only_note:
        st.info(store.read_only_note)
    typed = st.text_input(
        "Dynasty name", value=known[0] if known else "Dynasty 1", key=state.DYNASTY_NAME
    )
    name = " ".join((typed or "").split())
    if st.button("➕ Add this game to the dynasty", key=state.SAVE_GAME, disabled=store.read_only):
        _add_game(store, name, entries, rules)
    problem = st.session_state.pop(state.DYNASTY_PROBLEM, None)
    if problem is not None:
        show_problem(problem)
    try:
        games = store.games(name)
        if games:
            _games_ui(store, games)
            if len(games) == DYNASTY_GAMES:
                _dynasty_ranking_ui(store.dynasty_standings(name))
            else:
                st.caption(f"{len(games)} of {DYNASTY_GAMES} games played.")
        else:
            st.caption("No games saved in this Dynasty yet.")
        others = [d for d in known if d != name]
        if others:
            st.markdown("**Other Dynasties**")
            for other in others:
                _games_ui(store, store.games(other), title=other)
    except ScorerError as err:
        show_problem(problem_for(err))


def _add_game(store: GameStore, name: str, entries: Sequence[Entry], rules: Rules) -> None:
    """Save this game to the Dynasty, or say why not and what to do; the message shows here."""
    try:
        games = store.games(name) if name else []
    except ScorerError as err:
        show_problem(problem_for(err))
        return
    refusal = refusal_for(name, games, entries, rules)
    if refusal is not None:
        kind, message = refusal
        (st.info if kind == "saved" else st.error)(message)
        return
    try:
        game_id = store.save_game(
            name,
            [(e.name, e.kingdom) for e in entries],
            rules,
            corrected=[e.corrected for e in entries],
        )
    except ScorerError as err:
        show_problem(problem_for(err))
        return
    st.success(f"Saved as game {game_id} of {name}.")


def refusal_for(
    name: str, games: Sequence[SavedGame], entries: Sequence[Entry], rules: Rules
) -> tuple[str, str] | None:
    """Why this game cannot be added to the Dynasty ``name`` with these saved ``games``, and
    what to do; None when it can. The kind is ``"saved"`` when the very same game is already
    saved (a second press of the button), else ``"refused"``.

    >>> from scorer.page.common import FoundKingdom
    >>> from scorer.rules.kingdom import Kingdom
    >>> from scorer.rules.scoring import score, tileset_violations
    >>> k = Kingdom.parse("F1 F0 C")
    >>> alone = [Entry(FoundKingdom("t", "typed", k), "Anna", k, score(k), ())]
    >>> refusal_for("Dynasty 1", [], alone, Rules())[1][:57]
    'A Dynasty game needs 2 to 4 players, and this game has 1:'
    """
    if not name:
        return "refused", "The Dynasty needs a name: type one above."
    waiting = [e.name for e in entries if not e.settled]
    if waiting:
        who = " and ".join(waiting)
        return "refused", (
            f"{who}'s total is unconfirmed: check the outline, then press “This is right”, "
            "correct a square or mark the corners, and add the game again."
        )
    if not MIN_PLAYERS <= len(entries) <= MAX_PLAYERS:
        what = (
            "add the other players' kingdoms (a photo or a typed grid)"
            if len(entries) < MIN_PLAYERS
            else "remove the kingdoms of players who are not in this game"
        )
        return "refused", (
            f"A Dynasty game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, and this game has "
            f"{len(entries)}: {what}, then add the game."
        )
    names = [" ".join(e.name.split()) for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        return "refused", (
            f"Two players are both named {twice[0]}: give each player a different name, "
            "then add the game."
        )
    this_game = sorted((n, e.kingdom.format()) for n, e in zip(names, entries, strict=True))
    for game in games:
        saved = sorted((p.name, p.kingdom.format()) for p in game.players)
        if saved == this_game and game.rules == rules:
            return "saved", f"This game is already saved, as game {game.id} of {name}."
    if len(games) >= DYNASTY_GAMES:
        return "refused", (
            f"{name} has its {DYNASTY_GAMES} games: type a new Dynasty name above to start "
            "the next Dynasty."
        )
    if games:
        first = games[0]
        players = [p.name for p in first.players]
        if sorted(players) != sorted(names):
            return "refused", (
                f"{name} is played by {', '.join(players)}, and this game has "
                f"{', '.join(names)}: give the players the names they had in the first game, "
                "or type a new Dynasty name above."
            )
        if first.rules != rules:
            return "refused", (
                f"{name} is played with other rules ({rules_line(first.rules)}); this game "
                "has "
                f"{rules_line(rules).removeprefix('Rules: ')}. Set the rules in the sidebar "
                "as in the first game, or type a new Dynasty name above."
            )
    return None


def _games_ui(store: GameStore, games: Sequence[Any], title: str = "") -> None:
    """One line per saved game, with a button that deletes it once the player says yes."""
    pending = st.session_state.get(state.DELETE_PENDING)
    for game in games:
        players = ", ".join(
            f"{p.name} {p.total}" + (" ✏️" if p.corrected else "") for p in game.players
        )
        when = game.created.astimezone().strftime("%Y-%m-%d %H:%M")
        label = f"{title} · " if title else ""
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.markdown(f"{label}Game {game.id} · {when} · {players}")
        right.button(
            "🗑️ Delete",
            key=state.delete_game_key(game.id),
            on_click=_ask_delete,
            args=(game.id,),
            disabled=store.read_only,
        )
        if pending == game.id:
            st.warning(f"Delete game {game.id} for good? It cannot be brought back.")
            yes, no = st.columns(2)
            yes.button(
                "Yes, delete it",
                key=state.confirm_delete_key(game.id),
                type="primary",
                on_click=_delete,
                args=(store, game.id),
            )
            no.button("Keep it", key=state.keep_game_key(game.id), on_click=_ask_delete)


def _ask_delete(game_id: int | None = None) -> None:
    """Callback: ask to confirm deleting this game (None: ask nothing)."""
    st.session_state[state.DELETE_PENDING] = game_id


def _delete(store: GameStore, game_id: int) -> None:
    """Callback: delete the game the player confirmed; a failure is shown in the panel."""
    st.session_state[state.DELETE_PENDING] = None
    try:
        store.delete_game(game_id)
    except ScorerError as err:
        st.session_state[state.DYNASTY_PROBLEM] = problem_for(err)


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
