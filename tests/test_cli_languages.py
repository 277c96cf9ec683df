"""The command line in English, German and Swedish: golden files of a tie decided by each
tie-break step, the language chosen by ``--lang`` or the environment, and ``--json``.

Set ``KINGDOMINO_UPDATE_GOLDEN=1`` to rewrite the golden files after a deliberate change;
read the new ones before committing them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scorer import i18n
from scorer.cli import main

GOLDEN = Path(__file__).parent / "golden"
TIES = Path(__file__).parent / "fixtures" / "ties"

# The grids are in tests/fixtures/ties, each with its figures worked out by hand.
CASES = {
    "step-2-largest": ["Anna.txt", "Ben.txt"],  # 4 = 4; largest 4 > 2
    "step-3-crowns": ["Cleo.txt", "Dan.txt"],  # 4 = 4; largest 2 = 2; crowns 2 < 4
    "shared": ["Eve.txt", "Finn.txt"],  # the same kingdom: a shared victory
    "crowns-first": ["Anna.txt", "Ben.txt", "--crowns-first"],  # crowns 1 < 2: Ben first
    "three-shared-second": ["Anna.txt", "Eve.txt", "Finn.txt"],  # Eve and Finn share 2nd
}


@pytest.fixture
def in_ties(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the tie fixtures, in an environment that asks for no language."""
    monkeypatch.chdir(TIES)
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    return TIES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
@pytest.mark.parametrize("case", list(CASES))
def test_golden_tie_in_each_language(
    capsys: pytest.CaptureFixture[str], in_ties: Path, case: str, lang: str
) -> None:
    code, out, err = run(capsys, *CASES[case], "--rank", "--lang", lang)
    assert (code, err) == (0, "")
    path = GOLDEN / f"ties-{case}.{lang}.txt"
    if os.environ.get("KINGDOMINO_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("env", "argv", "expected"),
    [
        ({"LANG": "de_DE.UTF-8"}, [], "Rangliste"),
        ({"LANG": "sv_SE.UTF-8"}, [], "Placering"),
        ({"LANG": "de_DE.UTF-8"}, ["--lang", "sv"], "Placering"),
        ({"LC_ALL": "sv_SE.UTF-8", "LANG": "de_DE.UTF-8"}, [], "Placering"),
        ({"LANG": "fr_FR.UTF-8"}, [], "Ranking"),
        ({"LANG": "de_DE.UTF-8"}, ["--lang=en"], "Ranking"),
    ],
)
def test_language_from_lang_or_the_environment(
    capsys: pytest.CaptureFixture[str],
    in_ties: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    argv: list[str],
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, _err = run(capsys, "Anna.txt", "Ben.txt", "--rank", *argv)
    assert code == 0
    assert f"\n{expected}\n" in out
    assert i18n.language() == "en", "the command line must give the language back"


def test_json_keys_and_codes_stay_english_its_messages_follow_the_language(
    capsys: pytest.CaptureFixture[str], in_ties: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.txt"
    broken.write_text("M2 X9 C\n", encoding="utf-8")
    too_many = tmp_path / "too-many.txt"
    too_many.write_text("M3 M3 M3 C\n", encoding="utf-8")
    code, out, _err = run(
        capsys, "Anna.txt", "Ben.txt", str(too_many), str(broken), "--rank", "--json",
        "--lang", "de",
    )  # fmt: skip
    assert code == 1
    data = json.loads(out)
    assert set(data) == {"results", "ranking"}
    assert set(data["ranking"]) == {
        "tiebreak", "dynasty", "standings", "winners", "explanations"
    }  # fmt: skip
    assert data["ranking"]["tiebreak"] == "official"
    assert data["ranking"]["explanations"][0].startswith("Anna und Ben haben beide 4 Punkte.")
    warning = data["results"][2]["kingdoms"][0]["warnings"][0]
    assert warning["kind"] == "too-many-of-pair"
    assert warning["message"] == (
        "3 Felder Mine mit 3 Kronen (M3), aber die 48 Dominos enthalten nur 1"
    )
    assert data["results"][2]["kingdoms"][0]["properties"][0]["terrain"] == "mine"
    assert data["results"][3]["error"] == (
        "Zeile 1, Spalte 2: 'X9': unbekannter Geländebuchstabe 'X'"
    )


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "no such file"),
        ("de", "Datei nicht gefunden"),
        ("sv", "filen finns inte"),
    ],
)
def test_errors_on_stderr_in_each_language(
    capsys: pytest.CaptureFixture[str], in_ties: Path, lang: str, expected: str
) -> None:
    code, _out, err = run(capsys, "missing.txt", "--lang", lang)
    assert code == 1
    assert err == f"missing.txt: {expected}\n"


def test_help_in_german(capsys: pytest.CaptureFixture[str], in_ties: Path) -> None:
    with pytest.raises(SystemExit):
        main(["--help", "--lang", "de"])
    out = capsys.readouterr().out
    assert "Hausregel „Kronen vor größtem Gebiet“ bei Gleichstand" in out
    assert "Sprache der Ausgabe: en, de, sv" in out
