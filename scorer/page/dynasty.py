"""The Dynasty panel: three games by the same players, saved between visits and ranked.

Whatever happens when a game is added (saved, refused, already saved), the message shows
inside the panel, above the saved games, their Delete buttons and the Dynasty ranking. A
refusal says what to do next. Deleting a game asks first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from scorer import i18n
from scorer.i18n import _, names, ngettext, words
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
        "👑 " + _("Dynasty: three games in a row"), key=state.DYNASTY_PANEL, on_change="rerun"
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
        _(
            "A Dynasty is {games} games by the same players with the same rules; the "
            "highest sum of totals wins. Ties are broken by the same steps over the three "
            "kingdoms together (a house rule). Saved games survive a reload or a restart.",
            games=DYNASTY_GAMES,
        )
    )
    if store.read_only_note:
        st.info(_(store.read_only_note))
    typed = st.text_input(
        _("Dynasty name"),
        value=known[0] if known else _("Dynasty {n}", n=1),
        key=state.DYNASTY_NAME,
    )
    name = " ".join((typed or "").split())
    if st.button(
        "➕ " + _("Add this game to the dynasty"), key=state.SAVE_GAME, disabled=store.read_only
    ):
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
                st.caption(
                    ngettext(
                        "{n} of {games} games played.",
                        "{n} of {games} games played.",
                        len(games),
                        games=DYNASTY_GAMES,
                    )
                )
        else:
            st.caption(_("No games saved in this Dynasty yet."))
        others = [d for d in known if d != name]
        if others:
            st.markdown("**" + _("Other Dynasties") + "**")
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
    st.success(_("Saved as game {id} of {dynasty}.", id=game_id, dynasty=name))


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
        return "refused", _("The Dynasty needs a name: type one above.")
    waiting = [e.name for e in entries if not e.settled]
    if waiting:
        return "refused", ngettext(
            "The total of {names} is unconfirmed: check the outline, then press “This is "
            "right”, correct a square or mark the corners, and add the game again.",
            "The totals of {names} are unconfirmed: check the outlines, then press “This is "
            "right”, correct a square or mark the corners, and add the game again.",
            len(waiting),
            names=i18n.names(waiting),
        )
    if not MIN_PLAYERS <= len(entries) <= MAX_PLAYERS:
        if len(entries) < MIN_PLAYERS:
            return "refused", _(
                "A Dynasty game needs {least} to {most} players, and this game has {count}: "
                "add the other players' kingdoms (a photo or a typed grid), then add the game.",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                count=len(entries),
            )
        return "refused", _(
            "A Dynasty game needs {least} to {most} players, and this game has {count}: "
            "remove the kingdoms of players who are not in this game, then add the game.",
            least=MIN_PLAYERS,
            most=MAX_PLAYERS,
            count=len(entries),
        )
    names = [" ".join(e.name.split()) for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        return "refused", _(
            "Two players are both named {name}: give each player a different name, "
            "then add the game.",
            name=twice[0],
        )
    this_game = sorted((n, e.kingdom.format()) for n, e in zip(names, entries, strict=True))
    for game in games:
        saved = sorted((p.name, p.kingdom.format()) for p in game.players)
        if saved == this_game and game.rules == rules:
            return "saved", _(
                "This game is already saved, as game {id} of {dynasty}.", id=game.id, dynasty=name
            )
    if len(games) >= DYNASTY_GAMES:
        return "refused", _(
            "{dynasty} has its {games} games: type a new Dynasty name above to start "
            "the next Dynasty.",
            dynasty=name,
            games=DYNASTY_GAMES,
        )
    if games:
        first = games[0]
        players = [p.name for p in first.players]
        if sorted(players) != sorted(names):
            return "refused", _(
                "{dynasty} is played by {players}, and this game has {names}: give the players "
                "the names they had in the first game, or type a new Dynasty name above.",
                dynasty=name,
                players=", ".join(players),
                names=", ".join(names),
            )
        if first.rules != rules:
            return "refused", _(
                "{dynasty} is played with other rules ({first}); this game has {these}. Set "
                "the rules in the sidebar as in the first game, or type a new Dynasty name above.",
                dynasty=name,
                first=rules_line(first.rules),
                these=rules_line(rules).split(": ", 1)[-1],  # the rules, less "Rules: "
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
        left.markdown(
            label + _("Game {id} · {when} · {players}", id=game.id, when=when, players=players)
        )
        right.button(
            "🗑️ " + _("Delete"),
            key=state.delete_game_key(game.id),
            on_click=_ask_delete,
            args=(game.id,),
            disabled=store.read_only,
        )
        if pending == game.id:
            st.warning(_("Delete game {id} for good? It cannot be brought back.", id=game.id))
            yes, no = st.columns(2)
            yes.button(
                _("Yes, delete it"),
                key=state.confirm_delete_key(game.id),
                type="primary",
                on_click=_delete,
                args=(store, game.id),
            )
            no.button(_("Keep it"), key=state.keep_game_key(game.id), on_click=_ask_delete)


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
    st.markdown(_("**Dynasty ranking** (sum of {games} games)", games=DYNASTY_GAMES))
    winners = ranking.winners
    if len(winners) == 1:
        st.success(
            "🏆 "
            + _(
                "**{name}** wins the Dynasty with {total}.",
                name=winners[0],
                total=ranking.standings[0].total,
            )
        )
    else:
        st.success("🏆 " + _("Shared Dynasty victory: **{names}**.", names=names(winners)))
    st.dataframe(
        [
            {
                _("Place"): s.place,
                _("Player"): s.name,
                _("Total"): s.total,
                _("Games"): " + ".join(str(b.total) for b in s.scores),
                _("Largest property"): s.largest_property,
                _("Crowns"): s.crowns,
            }
            for s in ranking.standings
        ],
        hide_index=True,
    )
    for tie in ranking.reasons:
        st.info("⚖️ " + " ".join(words(sentence) for sentence in tie))
