"""The page in German and Swedish, driven headless with Streamlit's AppTest: the sample
photo, a tie with its explanation, an error with its next step, and no English left.

The expected texts are written by hand from the glossary (``docs/glossary.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from scorer.page import state

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
SAMPLE = ROOT / "sample_images" / "sample_board.jpg"

ANNA = "F1 F0 F0\nF0 C W0"  # forest 4 × 1 = 4, wheat 1 × 0: total 4, largest 4, 1 crown
BEN = "M2 M0 C\nS0 S0 ."  # mine 2 × 2 = 4, swamp 2 × 0: total 4, largest 2, 2 crowns
BROKEN = "M2 X9 C"  # line 7 of the typed text: X is no terrain letter

ENGLISH_ONLY = re.compile(
    r"\b(the|and|with|of|is|points?|[Pp]layers?|Ranking|[Kk]ingdoms?|[Ss]quares?|Step|"
    r"[Cc]rowns?|Upload|Photos?|[Ss]core|Total|both|wins|Next step|unconfirmed|[Rr]ead)\b"
)
"""English words that no German or Swedish sentence of the page contains."""

TEXT_FIELDS = frozenset({"body", "label", "help", "caption", "placeholder", "options", "value"})
"""The fields of the page's elements that hold words a player reads."""


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets its own games and recognition folders and no sample unless it asks."""
    monkeypatch.setenv("KINGDOMINO_DB", str(tmp_path / "games.sqlite3"))
    monkeypatch.setenv("KINGDOMINO_SAMPLE", "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    st.cache_data.clear()
    yield
    st.cache_data.clear()


def _run(lang: str, typed: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state[state.LANGUAGE] = lang
    if typed is not None:
        at.session_state[state.TYPED_GRIDS] = typed
    return at.run()


def _strings(message: Any) -> Iterator[str]:
    """The words a player reads in one element's protobuf message, fields nested included."""
    for field, value in message.ListFields():
        listed = hasattr(value, "__iter__") and not isinstance(value, str | bytes)
        items = [value] if not listed or hasattr(value, "ListFields") else list(value)
        if field.message_type is not None:
            for item in items:
                yield from _strings(item)
        elif field.name in TEXT_FIELDS:
            yield from (v for v in items if isinstance(v, str))


def page_texts(at: AppTest) -> list[str]:
    """Every text the page shows, less its style sheet and the language selector (which
    names each language in itself), with the column names of its tables."""
    texts: list[str] = []

    def visit(node: Any) -> None:
        kind = type(node).__name__
        if kind == "Html" or getattr(node, "key", None) == state.LANGUAGE:
            return
        proto = getattr(node, "proto", None)
        if proto is not None and kind not in ("Dataframe", "Image", "UnknownElement"):
            texts.extend(_strings(proto))
        if kind == "Dataframe":
            frame = node.value
            if isinstance(frame, pd.DataFrame):
                texts.extend(str(c) for c in frame.columns)
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                visit(child)

    visit(at._tree)
    return [t for t in texts if t.strip()]


def english_left(at: AppTest) -> list[str]:
    """The page's texts that still hold an English-only word (names of files and folders
    aside)."""
    found = []
    for text in page_texts(at):
        words = re.sub(r"/\S+", "", text.replace(SAMPLE.name, ""))  # names of files, folders
        if ENGLISH_ONLY.search(words):
            found.append(text)
    return found


def test_the_scan_finds_english() -> None:
    at = _run("en", f"{ANNA}\n\n{BEN}")
    left = english_left(at)
    assert any("both scored 4" in t for t in left)
    assert any(t == "Player" for t in left)


@pytest.mark.parametrize(
    ("lang", "total", "hint"),
    [
        # The sample reads surely: its total stands, in every language.
        ("de", "Summe", "Dies ist ein Beispielfoto, schon ausgewertet."),
        ("sv", "Summa", "Det här är ett exempelfoto, redan räknat."),
    ],
)
def test_the_sample_in_the_players_language(
    monkeypatch: pytest.MonkeyPatch, lang: str, total: str, hint: str
) -> None:
    monkeypatch.setenv("KINGDOMINO_SAMPLE", str(SAMPLE))
    at = _run(lang)
    assert not at.exception
    assert any(i.value.startswith(hint) for i in at.info)
    assert [m.label for m in at.metric] == [total]
    assert english_left(at) == []


EXPECTED = {
    "de": {
        "columns": ["Platz", "Spieler", "Summe", "Größtes Gebiet", "Kronen", "Hinweis"],
        "players": ["Spieler 1", "Spieler 2"],
        "tie": "Spieler 1 und Spieler 2 haben beide 4 Punkte. Schritt 2 (größtes Gebiet): "
        "Das größte Gebiet von Spieler 1 hat 4 Felder, das von Spieler 2 2, also liegt "
        "Spieler 1 vorn. Die Kronen wurden nicht verglichen.",
        "winner": "**Spieler 1** gewinnt mit 4 Punkten.",
        "error": "Getipptes Raster 3 (Zeile 7, Feld 2, 'X9'): unbekannter Geländebuchstabe 'X'.",
        "next": "Nächster Schritt: Korrigiere dieses Feld; die anderen Königreiche werden "
        "inzwischen gewertet.",
    },
    "sv": {
        "columns": ["Plats", "Spelare", "Summa", "Största område", "Kronor", "Anmärkning"],
        "players": ["Spelare 1", "Spelare 2"],
        "tie": "Spelare 1 och Spelare 2 fick båda 4 poäng. Steg 2 (största område): "
        "största området för Spelare 1 har 4 rutor, för Spelare 2 2, så Spelare 1 hamnar "
        "före. Kronorna jämfördes inte.",
        "winner": "**Spelare 1** vinner med 4 poäng.",
        "error": "Inskrivet rutnät 3 (rad 7, ruta 2, 'X9'): okänd terrängbokstav 'X'.",
        "next": "Nästa steg: Rätta den rutan; de andra kungarikena räknas under tiden.",
    },
}


@pytest.mark.parametrize("lang", list(EXPECTED))
def test_ranking_tie_and_error_in_the_players_language(lang: str) -> None:
    expected = EXPECTED[lang]
    at = _run(lang, f"{ANNA}\n\n{BEN}\n\n{BROKEN}")
    assert not at.exception
    tables = [d.value for d in at.dataframe if expected["columns"][0] in d.value.columns]
    assert len(tables) == 1
    ranking = tables[0]
    assert list(ranking.columns) == expected["columns"]
    assert list(ranking[expected["columns"][1]]) == expected["players"]
    assert list(ranking[expected["columns"][0]]) == [1, 2]
    assert expected["tie"] in [i.value for i in at.info]
    assert expected["winner"] in [s.value for s in at.success]
    assert [e.value for e in at.error] == [expected["error"]]
    assert expected["next"] in [i.value for i in at.info]
    assert english_left(at) == []


def test_the_language_selector_switches_and_is_remembered() -> None:
    at = _run("de", f"{ANNA}\n\n{BEN}")
    assert at.subheader[0].value.endswith("Fotos")
    at.selectbox(key=state.LANGUAGE).set_value("sv").run()
    assert at.subheader[0].value.endswith("Foton")
    at.run()
    assert at.selectbox(key=state.LANGUAGE).value == "sv"
    assert at.subheader[0].value.endswith("Foton")
