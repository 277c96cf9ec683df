"""The page's language: the browser's at first, then the one the player picks in the sidebar.

The choice is kept in the session (:data:`scorer.page.state.LANGUAGE`), so it holds over
every rerun; each run makes it the active language of :mod:`scorer.i18n` before anything
is drawn.
"""

from __future__ import annotations

import streamlit as st

from scorer.i18n import DEFAULT, LANGUAGES, _, from_accept_language, match, set_language
from scorer.page import state


def browser_language() -> str | None:
    """The supported language the browser asks for, if any: ``st.context.locale`` where the
    installed Streamlit has it, else the ``Accept-Language`` header."""
    locale = getattr(st.context, "locale", None)
    if isinstance(locale, str) and locale:
        found = match([locale])
        if found:
            return found
    header = st.context.headers.get("Accept-Language") if st.context.headers else None
    return from_accept_language(header) if header else None


def language_ui() -> str:
    """The language selector at the top of the sidebar; make its choice the active language."""
    if st.session_state.get(state.LANGUAGE) not in LANGUAGES:
        st.session_state[state.LANGUAGE] = browser_language() or DEFAULT
    set_language(st.session_state[state.LANGUAGE])
    with st.sidebar:
        code = st.selectbox(
            "🌐 " + _("Language"),
            list(LANGUAGES),
            format_func=LANGUAGES.__getitem__,
            key=state.LANGUAGE,
        )
    set_language(code)
    return str(code)
