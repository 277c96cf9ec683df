"""The player's language: catalogues against the code, explanations, numbers and lists.

The expected sentences below are written by hand in each language, from the glossary
(``docs/glossary.md``), not produced by the code under test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer import i18n
from scorer.i18n import _, ngettext, using
from scorer.lab import messages
from scorer.results.report import explanations
from scorer.rules.kingdom import Kingdom, Terrain
from scorer.rules.phrase import Phrase, WordedError, phrase, render
from scorer.rules.scoring import (
    TERRAIN_WORDS,
    Player,
    Rules,
    TieBreakOrder,
    rank,
    tileset_violations,
)

ROOT = Path(__file__).resolve().parents[1]
TIES = ROOT / "tests" / "fixtures" / "ties"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


@pytest.fixture(scope="module")
def template() -> messages.Catalog:
    """Every message the code marks now."""
    return messages.extract()


# --- the catalogues against the code ------------------------------------------------


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_every_message_the_code_uses_is_in_the_catalogue(
    code: str, template: messages.Catalog
) -> None:
    gaps = messages.gaps(code, template)
    assert gaps.missing == (), (
        f"{code}: run python -m scorer.lab.messages, then translate: {gaps.missing}"
    )


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_no_catalogue_keeps_a_message_the_code_no_longer_uses(
    code: str, template: messages.Catalog
) -> None:
    gaps = messages.gaps(code, template)
    assert gaps.unused == (), f"{code}: run python -m scorer.lab.messages: {gaps.unused}"


@pytest.mark.parametrize("code", [c for c in i18n.LANGUAGES if c != i18n.DEFAULT])
def test_every_message_is_translated(code: str, template: messages.Catalog) -> None:
    assert messages.gaps(code, template).untranslated == ()


def test_the_check_command_finds_a_missing_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A catalogue without one message the code uses, and with one it does not.
    source = messages.read("de")
    first = next(m for m in source if m.id)
    source.delete(first.id)
    source.add("a message no code uses", "eine Nachricht")
    folder = tmp_path / "de" / "LC_MESSAGES"
    messages.write(source, folder / "messages.po")
    monkeypatch.setattr(messages, "LOCALE_DIR", tmp_path)
    gaps = messages.gaps("de")
    assert gaps.missing == (first.id if isinstance(first.id, str) else first.id[0],)
    assert gaps.unused == ("a message no code uses",)


@pytest.mark.parametrize("code", [c for c in i18n.LANGUAGES if c != i18n.DEFAULT])
def test_translations_keep_the_placeholders(code: str) -> None:
    """A translation may only name values the code gives: a typo would raise KeyError."""
    for m in messages.read(code):
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        allowed = {name for text in ids for name in PLACEHOLDER.findall(text)}
        if not isinstance(m.id, str):
            allowed.add("n")
        if "owners" in allowed:
            allowed.add("names")  # the rules give both: English says "Anna's", others need names
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) <= allowed, (code, m.id, text)


GLOSSARY_TERRAINS = {
    # From docs/glossary.md, the terrain table, typed again here.
    "de": {"wheat": "Weizenfeld", "forest": "Wald", "lake": "See", "grassland": "Wiese",
           "swamp": "Sumpf", "mine": "Mine"},
    "sv": {"wheat": "vetefält", "forest": "skog", "lake": "sjö", "grassland": "äng",
           "swamp": "träsk", "mine": "gruva"},
}  # fmt: skip


@pytest.mark.parametrize("code", ["de", "sv"])
def test_terrains_are_the_glossary_words(code: str) -> None:
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    with using(code):
        for terrain in Terrain:
            if terrain.is_land:
                word = _(TERRAIN_WORDS[terrain])
                assert word == GLOSSARY_TERRAINS[code][terrain.value]
                assert f"| {word} |" in glossary


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("de", ["Königreich", "Gebiet", "Krone", "Burg", "Harmonie", "Reich der Mitte",
                "Dynastie", "das große Duell"]),
        ("sv", ["kungarike", "krona", "slott", "Harmoni", "Mittens rike", "Mighty Duel",
                "Dynasti"]),
    ],
)  # fmt: skip
def test_catalogues_use_the_published_terms(code: str, words: list[str]) -> None:
    text = (messages.po_path(code)).read_text(encoding="utf-8")
    for word in words:
        assert word.lower() in text.lower(), word


# --- explanations, one per tie-break step, in each language ---------------------


def _player(name: str) -> Player:
    return Player(name, (Kingdom.parse((TIES / f"{name}.txt").read_text(encoding="utf-8")),))


CASES = {
    # Anna 4 (largest 4, 1 crown) and Ben 4 (largest 2, 2 crowns): step 2 decides.
    "step-2-largest": (["Anna", "Ben"], Rules()),
    # Cleo 4 and Dan 4, both largest 2; Dan 4 crowns, Cleo 2: step 3 decides.
    "step-3-crowns": (["Cleo", "Dan"], Rules()),
    # Eve and Finn hold the same kingdom: no step decides.
    "shared": (["Eve", "Finn"], Rules()),
    # Anna and Ben under the house rule: crowns first, Ben ahead.
    "crowns-first": (["Anna", "Ben"], Rules(tiebreak=TieBreakOrder.CROWNS_FIRST)),
    # Anna ahead at step 2; Eve and Finn still tied after step 3: they share 2nd place.
    "three-shared-second": (["Anna", "Eve", "Finn"], Rules()),
}

EXPECTED = {
    ("en", "step-2-largest"): "Anna and Ben both scored 4. Step 2 (largest property): Anna's "
    "largest property has 4 squares, Ben's 2, so Anna ranks ahead. Crowns were not compared.",
    ("de", "step-2-largest"): "Anna und Ben haben beide 4 Punkte. Schritt 2 (größtes Gebiet): "
    "Das größte Gebiet von Anna hat 4 Felder, das von Ben 2, also liegt Anna vorn. Die Kronen "
    "wurden nicht verglichen.",
    ("sv", "step-2-largest"): "Anna och Ben fick båda 4 poäng. Steg 2 (största område): största "
    "området för Anna har 4 rutor, för Ben 2, så Anna hamnar före. Kronorna jämfördes inte.",
    ("en", "step-3-crowns"): "Dan and Cleo both scored 4. Step 2 (largest property): Dan's and "
    "Cleo's largest properties both have 2 squares, so this step does not decide. Step 3 "
    "(crowns): Dan has 4 crowns, Cleo 2, so Dan ranks ahead.",
    ("de", "step-3-crowns"): "Dan und Cleo haben beide 4 Punkte. Schritt 2 (größtes Gebiet): Die "
    "größten Gebiete von Dan und Cleo haben beide 2 Felder, daher entscheidet dieser Schritt "
    "nicht. Schritt 3 (Kronen): Dan hat 4 Kronen, Cleo 2, also liegt Dan vorn.",
    ("sv", "step-3-crowns"): "Dan och Cleo fick båda 4 poäng. Steg 2 (största område): de största "
    "områdena för Dan och Cleo har båda 2 rutor, så det här steget avgör inte. Steg 3 (kronor): "
    "Dan har 4 kronor, Cleo 2, så Dan hamnar före.",
    ("en", "shared"): "Eve and Finn both scored 4. Step 2 (largest property): Eve's and Finn's "
    "largest properties both have 2 squares, so this step does not decide. Step 3 (crowns): Eve "
    "and Finn both have 2 crowns, so this step does not decide. Eve and Finn share the victory.",
    ("de", "shared"): "Eve und Finn haben beide 4 Punkte. Schritt 2 (größtes Gebiet): Die größten "
    "Gebiete von Eve und Finn haben beide 2 Felder, daher entscheidet dieser Schritt nicht. "
    "Schritt 3 (Kronen): Eve und Finn haben beide 2 Kronen, daher entscheidet dieser Schritt "
    "nicht. Eve und Finn teilen sich den Sieg.",
    ("sv", "shared"): "Eve och Finn fick båda 4 poäng. Steg 2 (största område): de största "
    "områdena för Eve och Finn har båda 2 rutor, så det här steget avgör inte. Steg 3 (kronor): "
    "Eve och Finn har båda 2 kronor, så det här steget avgör inte. Eve och Finn delar på segern.",
    ("en", "crowns-first"): 'Ben and Anna both scored 4. House rule "crowns before largest '
    'property": crowns are compared first. Step 2 (crowns, house rule): Ben has 2 crowns, Anna 1, '
    "so Ben ranks ahead. Property sizes were not compared.",
    ("de", "crowns-first"): "Ben und Anna haben beide 4 Punkte. Hausregel „Kronen vor größtem "
    "Gebiet“: Zuerst werden die Kronen verglichen. Schritt 2 (Kronen, Hausregel): Ben hat 2 "
    "Kronen, Anna 1, also liegt Ben vorn. Die Größen der Gebiete wurden nicht verglichen.",
    ("sv", "crowns-first"): "Ben och Anna fick båda 4 poäng. Husregel ”kronor före största "
    "område”: kronorna jämförs först. Steg 2 (kronor, husregel): Ben har 2 kronor, Anna 1, så Ben "
    "hamnar före. Områdenas storlek jämfördes inte.",
    ("en", "three-shared-second"): "Anna, Eve, and Finn all scored 4. Step 2 (largest property): "
    "Anna's largest property has 4 squares, Eve's 2, Finn's 2, so Anna ranks ahead of Eve and "
    "Finn. Eve and Finn are still tied. Step 3 (crowns): Eve and Finn both have 2 crowns, so this "
    "step does not decide. Eve and Finn share 2nd place.",
    ("de", "three-shared-second"): "Anna, Eve und Finn haben alle 4 Punkte. Schritt 2 (größtes "
    "Gebiet): Das größte Gebiet von Anna hat 4 Felder, das von Eve 2, das von Finn 2, also liegt "
    "Anna vor Eve und Finn. Eve und Finn sind weiter gleichauf. Schritt 3 (Kronen): Eve und Finn "
    "haben beide 2 Kronen, daher entscheidet dieser Schritt nicht. Eve und Finn teilen sich den "
    "2. Platz.",
    ("sv", "three-shared-second"): "Anna, Eve och Finn fick alla 4 poäng. Steg 2 (största "
    "område): största området för Anna har 4 rutor, för Eve 2, för Finn 2, så Anna hamnar före "
    "Eve och Finn. Eve och Finn står fortfarande lika. Steg 3 (kronor): Eve och Finn har båda 2 "
    "kronor, så det här steget avgör inte. Eve och Finn delar på 2:a plats.",
}


@pytest.mark.parametrize(("code", "case"), sorted(EXPECTED))
def test_explanation_of_each_tie_break_step(code: str, case: str) -> None:
    names, rules = CASES[case]
    ranking = rank([_player(n) for n in names], rules)
    with using(code):
        assert explanations(ranking) == [EXPECTED[code, case]]


def test_the_rules_english_is_the_english_catalogue() -> None:
    """The rules' own wording (tests, ``Ranking.explanations``) and the English catalogue
    differ only in Babel's list form for three names and more."""
    ranking = rank([_player(n) for n in ("Cleo", "Dan")])
    with using("en"):
        assert explanations(ranking) == list(ranking.explanations)


def test_a_dynasty_tie_in_german() -> None:
    anna, ben = _player("Anna"), _player("Ben")
    cleo = _player("Cleo")
    ranking = rank(
        [
            Player("Anna", anna.kingdoms * 2 + cleo.kingdoms),
            Player("Ben", ben.kingdoms * 2 + cleo.kingdoms),
        ]
    )
    with using("de"):
        (text,) = explanations(ranking)
    assert text.startswith(
        "Anna und Ben haben beide 12 Punkte aus 3 Partien. Hausregel für die Dynastie: Die "
        "Schritte bei Gleichstand gelten für die 3 Königreiche zusammen. Schritt 2 (größtes "
        "Gebiet): Das größte Gebiet von Anna in allen Königreichen hat 4 Felder, das von Ben 2"
    )


# --- messages, numbers and lists ------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "Anna and Ben share the victory."),
        ("de", "Anna und Ben teilen sich den Sieg."),
        ("sv", "Anna och Ben delar på segern."),
    ],
)
def test_names_are_joined_as_the_language_does(code: str, expected: str) -> None:
    ranking = rank(
        [Player("Anna", _player("Eve").kingdoms), Player("Ben", _player("Finn").kingdoms)]
    )
    with using(code):
        assert explanations(ranking)[0].endswith(expected)


@pytest.mark.parametrize(
    ("code", "n", "expected"),
    [
        ("en", 1, "1 point"),
        ("en", 2, "2 points"),
        ("de", 1, "1 Punkt"),
        ("de", 0, "0 Punkte"),
        ("sv", 1, "1 poäng"),
        ("de", 1234, "1.234 Punkte"),
        ("sv", 1234, "1\xa0234 poäng"),
    ],
)
def test_plurals_and_numbers(code: str, n: int, expected: str) -> None:
    with using(code):
        assert ngettext("{n} point", "{n} points", n) == expected


@pytest.mark.parametrize(("code", "expected"), [("en", "2.5"), ("de", "2,5"), ("sv", "2,5")])
def test_decimal_separator_follows_the_language(code: str, expected: str) -> None:
    with using(code):
        assert i18n.number(2.5, 1) == expected


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "3 squares of mine with 3 crowns (M3), but the 48 dominoes hold only 1"),
        ("de", "3 Felder Mine mit 3 Kronen (M3), aber die 48 Dominos enthalten nur 1"),
        ("sv", "3 rutor gruva med 3 kronor (M3), men de 48 dominobrickorna har bara 1"),
    ],
)
def test_tile_set_warning_in_each_language(code: str, expected: str) -> None:
    (violation,) = tileset_violations(Kingdom.parse("M3 M3 M3 C"))
    with using(code):
        assert i18n.words(violation.wording or violation.message) == expected


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "line 1, column 2: 'X9': unknown terrain letter 'X'"),
        ("de", "Zeile 1, Spalte 2: 'X9': unbekannter Geländebuchstabe 'X'"),
        ("sv", "rad 1, kolumn 2: 'X9': okänd terrängbokstav 'X'"),
    ],
)
def test_grid_error_in_each_language(code: str, expected: str) -> None:
    with pytest.raises(ValueError) as caught:
        Kingdom.parse("M2 X9 C")
    with using(code):
        assert i18n.message(caught.value) == expected


def test_a_worded_error_is_english_as_text() -> None:
    err = WordedError(phrase("a kingdom is at most {side}×{side}", side=7))
    assert str(err) == "a kingdom is at most 7×7"
    with using("sv"):
        assert i18n.message(err) == "ett kungarike är högst 7×7"


def test_phrase_renders_nested_values_with_a_wording() -> None:
    p = phrase("{earlier}, then {later}", earlier=phrase("{n}", n=1), later="x")
    assert isinstance(p, Phrase) and render(p) == "1, then x"


def test_using_restores_the_language_before() -> None:
    before = i18n.language()
    with using("de"):
        with using("sv"):
            assert i18n.language() == "sv"
        assert i18n.language() == "de"
    assert i18n.language() == before


# --- choosing the language --------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "sv_SE.UTF-8"}, "sv"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_ALL": "sv_FI.UTF-8", "LANG": "de_DE.UTF-8"}, "sv"),
        ({"LC_MESSAGES": "de_AT", "LANG": "sv_SE"}, "de"),
        ({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, "en"),
        ({"LC_ALL": "", "LANG": "de_DE.UTF-8"}, "de"),
    ],
)
def test_language_from_the_environment(env: dict[str, str], expected: str) -> None:
    assert i18n.from_environment(env) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("sv", "sv"),
        ("fr-FR, en;q=0.3, sv;q=0.5", "sv"),
        ("en-GB;q=0.2, de;q=0.1", "en"),
        ("fr, it", None),
        ("de;q=0, sv;q=0.1", "sv"),
        ("", None),
    ],
)
def test_language_from_the_browser(header: str, expected: str | None) -> None:
    assert i18n.from_accept_language(header) == expected


def test_an_unknown_language_is_english() -> None:
    with using("fr"):
        assert i18n.language() == "en"
        assert _("Ranking") == "Ranking"


def test_babel_loads_only_when_a_number_or_list_is_worded(
    fresh_python: Callable[[str], list[str]],
) -> None:
    """A photo's command whose messages hold no number never waits for Babel's import."""
    script = (
        "import sys\n"
        "from scorer import i18n\n"
        "print('babel' in sys.modules, i18n._('Place'))\n"
        "print(i18n.number(1234), 'babel' in sys.modules)\n"
    )
    assert fresh_python(script) == ["False Place", "1,234 True"]
