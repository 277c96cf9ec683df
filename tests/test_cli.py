"""The command line, run in-process: text, JSON, ranking, failures and golden files.

Set ``KINGDOMINO_UPDATE_GOLDEN=1`` to rewrite the golden files after a deliberate change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.cli import main

GOLDEN = Path(__file__).parent / "golden"
FIXTURE_LABELS = ["labels/aau-1.txt", "labels/aau-10.txt", "labels/aau-11.txt"]

# Anna and Ben of the rules' worked tie: both 45, Anna's largest property 8, Ben's 7.
ANNA = "F0 F0 F0 F0 .\nF0 F0 F0 F0 .\nC G2 G2 G1 G0\nS2 S2 S0 S0 G0\nS0 . . . .\n"
BEN = "W1 W1 W1 W1 W1\nW0 W0 . . .\nC M3 M2 . .\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line; return exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def in_fixtures(fixtures: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from tests/fixtures so inputs print as short relative paths."""
    monkeypatch.chdir(fixtures)
    return fixtures


def test_text_breakdown(capsys: pytest.CaptureFixture[str], in_fixtures: Path) -> None:
    code, out, err = run(capsys, "labels/aau-1.txt", "--harmony", "--middle-kingdom")
    assert code == 0
    assert err == ""
    assert "== labels/aau-1.txt" in out
    assert "G0 L0 F0 F0 F0" in out
    assert out.count("\ngrassland ") == 2
    assert "grassland           5       4      20" in out
    assert "harmony (+5)                        5  (all 5×5 squares filled)" in out
    assert "middle kingdom (+10)               10  (castle in the centre)" in out
    assert "total                              51" in out
    assert "warning" not in out


def test_text_reports_tileset_warnings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, "odd.txt", "M3 C M3\n")
    code, out, _ = run(capsys, path)
    assert code == 0
    assert "tile-set warnings" in out
    assert "2 squares of mine with 3 crowns (M3), but the 48 dominoes hold only 1" in out
    assert "check row 1 column 1, row 1 column 3" in out


def test_json_shape(capsys: pytest.CaptureFixture[str], in_fixtures: Path) -> None:
    code, out, _ = run(capsys, "--json", "labels/aau-1.txt", "--harmony", "--middle-kingdom")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["results"]
    (result,) = data["results"]
    assert list(result) == ["input", "error", "kingdoms"]
    assert result["input"] == "labels/aau-1.txt"
    assert result["error"] is None
    (kingdom,) = result["kingdoms"]
    assert list(kingdom) == ["grid", "score", "properties", "warnings"]
    assert kingdom["grid"][0] == "G0 L0 F0 F0 F0"
    assert kingdom["score"] == {"total": 51, "properties": 36, "harmony": 5, "middle_kingdom": 10}
    assert kingdom["properties"][2] == {"terrain": "forest", "squares": 7, "crowns": 1, "points": 7}
    assert all(list(p) == ["terrain", "squares", "crowns", "points"] for p in kingdom["properties"])
    assert kingdom["warnings"] == []


def test_json_warning_points_at_squares(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, "odd.txt", "M3 C M3\n")
    _, out, _ = run(capsys, "--json", path)
    (warning,) = json.loads(out)["results"][0]["kingdoms"][0]["warnings"]
    assert warning["kind"] == "too-many-of-pair"
    assert warning["positions"] == [[0, 0], [0, 2]]


@pytest.mark.parametrize(
    ("golden", "flags"),
    [
        ("fixtures.json", ["--json"]),
        ("fixtures-bonuses.json", ["--json", "--harmony", "--middle-kingdom"]),
        ("fixtures-bonuses.txt", ["--harmony", "--middle-kingdom", "--rank"]),
    ],
)
def test_golden_files(
    capsys: pytest.CaptureFixture[str], in_fixtures: Path, golden: str, flags: list[str]
) -> None:
    code, out, _ = run(capsys, *flags, *FIXTURE_LABELS)
    assert code == 0
    path = GOLDEN / golden
    if os.environ.get("KINGDOMINO_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


def test_golden_json_totals_are_the_hand_checked_ones() -> None:
    data = json.loads((GOLDEN / "fixtures-bonuses.json").read_text(encoding="utf-8"))
    totals = [r["kingdoms"][0]["score"]["total"] for r in data["results"]]
    assert totals == [51, 48, 49]  # see the hand computation in test_scoring.py


def test_bad_inputs_fail_alone(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = write(tmp_path, "good.txt", "F1 F0 C\n")
    bad = write(tmp_path, "bad.txt", "W0 C\nF0 W2\n")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    missing = str(tmp_path / "missing.txt")
    code, out, err = run(capsys, "--json", bad, good, missing, str(binary), str(tmp_path))
    assert code == 1
    results = json.loads(out)["results"]
    assert [r["error"] is None for r in results] == [False, True, False, False, False]
    assert results[0]["error"] == "line 2, column 2: 'W2': wheat never has 2 crowns (at most 1)"
    assert results[0]["kingdoms"] == []
    assert results[1]["kingdoms"][0]["score"]["total"] == 2
    assert results[2]["error"] == "no such file"
    assert "not UTF-8" in results[3]["error"]
    assert results[4]["error"]
    lines = err.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith(f"{bad}: line 2")
    assert "Traceback" not in err


def test_grid_saved_with_a_byte_order_mark(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "notepad.txt"
    path.write_bytes(b"\xef\xbb\xbfF1 F0 C\r\n")
    code, out, _ = run(capsys, "--json", str(path))
    assert code == 0
    assert json.loads(out)["results"][0]["kingdoms"][0]["score"]["total"] == 2


def test_text_mode_prints_errors_without_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.txt", "F1 F0 C\n")
    code, out, err = run(capsys, good, str(tmp_path / "nope.txt"))
    assert code == 1
    assert "total                               2" in out
    assert err == f"{tmp_path / 'nope.txt'}: no such file\n"


def test_photo_input_without_a_readable_image_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.txt", "F1 F0 C\n")
    photo = write(tmp_path, "board.jpg", "not a photo")
    code, out, err = run(capsys, "--json", photo, good)
    assert code == 1
    results = json.loads(out)["results"]
    assert results[0]["error"]
    assert results[1]["error"] is None
    assert err.startswith(f"{photo}: ")


def test_rank_explains_the_tie(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ben = write(tmp_path, "Ben.txt", BEN)
    anna = write(tmp_path, "Anna.txt", ANNA)
    code, out, _ = run(capsys, "--rank", ben, anna)
    assert code == 0
    assert " 1. Anna    45 points  (largest property 8, crowns 9)" in out
    assert " 2. Ben     45 points  (largest property 7, crowns 10)" in out
    assert (
        "Anna and Ben both scored 45. Step 2 (largest property): Anna's largest property"
        " has 8 squares, Ben's 7, so Anna ranks ahead. Crowns were not compared."
    ) in out


def test_rank_json_and_crowns_first(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ben = write(tmp_path, "Ben.txt", BEN)
    anna = write(tmp_path, "Anna.txt", ANNA)
    code, out, _ = run(capsys, "--rank", "--json", "--crowns-first", anna, ben)
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["results", "ranking"]
    ranking = data["ranking"]
    assert ranking["tiebreak"] == "crowns-first"
    assert ranking["winners"] == ["Ben"]
    assert [s["name"] for s in ranking["standings"]] == ["Ben", "Anna"]
    assert 'House rule "crowns before largest property"' in ranking["explanations"][0]


def test_rank_skips_failed_inputs_and_says_when_too_few_remain(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    anna = write(tmp_path, "Anna.txt", ANNA)
    code, out, err = run(capsys, "--rank", "--json", anna, str(tmp_path / "Ben.txt"))
    assert code == 1
    assert json.loads(out)["ranking"] == {
        "error": "cannot rank: a ranking needs 2 to 4 players, not 1"
    }
    assert "cannot rank" in err


def test_dynasty_groups_files_by_three(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    files = [write(tmp_path, f"anna-{i}.txt", ANNA) for i in (1, 2, 3)]
    files += [write(tmp_path, f"ben-{i}.txt", BEN) for i in (1, 2, 3)]
    code, out, _ = run(capsys, "--dynasty", "--json", *files)
    assert code == 0
    ranking = json.loads(out)["ranking"]
    assert ranking["dynasty"] is True
    assert [(s["name"], s["total"], s["totals"]) for s in ranking["standings"]] == [
        ("anna", 135, [45, 45, 45]),
        ("ben", 135, [45, 45, 45]),
    ]
    assert "House rule for Dynasty" in ranking["explanations"][0]


def test_dynasty_needs_three_games_a_player(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = [write(tmp_path, f"p{i}.txt", ANNA) for i in range(4)]
    code, _, err = run(capsys, "--dynasty", *files)
    assert code == 1
    assert "a Dynasty needs 3 games per player" in err
    assert "(no player in the name): p0.txt, p1.txt, p2.txt, p3.txt" in err


def test_dynasty_groups_by_player_name_in_any_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = ["anna-1", "ben_1", "anna-2", "ben_2", "anna-3", "ben_3"]
    files = [write(tmp_path, f"{n}.txt", ANNA if n.startswith("anna") else BEN) for n in names]
    code, out, _ = run(capsys, "--dynasty", "--json", *files)
    assert code == 0
    standings = json.loads(out)["ranking"]["standings"]
    assert sorted(s["name"] for s in standings) == ["anna", "ben"]


def test_dynasty_never_mixes_players(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Six files, two players, but ben has four games and anna two: refused, not summed."""
    names = ["anna-1", "ben-1", "anna-2", "ben-3", "ben-2", "ben-4"]
    files = [write(tmp_path, f"{n}.txt", ANNA) for n in names]
    code, out, err = run(capsys, "--dynasty", "--json", *files)
    assert code == 1
    assert "ranking" not in json.loads(out) or "error" in json.loads(out)["ranking"]
    assert (
        "but the files group as anna: anna-1.txt, anna-2.txt; "
        "ben: ben-1.txt, ben-3.txt, ben-2.txt, ben-4.txt; name each file PLAYER-GAME"
    ) in err
    assert len(err.splitlines()) == 1


def test_player_option_names_each_players_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a = [write(tmp_path, f"sunday{i}.txt", ANNA) for i in (1, 2, 3)]
    b = [write(tmp_path, f"photo {i}.txt", BEN) for i in (1, 2, 3)]
    code, out, _ = run(capsys, "--json", "--player", "Anna", *a, "--player", "Ben", *b)
    assert code == 0
    ranking = json.loads(out)["ranking"]
    assert ranking["dynasty"] is True
    assert sorted(s["name"] for s in ranking["standings"]) == ["Anna", "Ben"]
    code, _, err = run(capsys, "--player", "Anna", *a[:2], "--player", "Ben", *b)
    assert code == 1
    assert "group as Anna: sunday1.txt, sunday2.txt; Ben: photo 1.txt" in err


def test_grid_seven_forces_mighty_duel(
    capsys: pytest.CaptureFixture[str], in_fixtures: Path
) -> None:
    _, out, _ = run(capsys, "--json", "--harmony", "--grid", "7", "labels/aau-1.txt")
    score = json.loads(out)["results"][0]["kingdoms"][0]["score"]
    assert (score["harmony"], score["total"]) == (0, 36)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["a.txt", "--grid", "6"],
        ["a.jpg", "--corners", "1,2,3"],
        ["a.jpg", "--corners", "a,b,c,d,e,f,g,h"],
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "usage: kingdomino-score" in capsys.readouterr().err


def test_python_dash_m(fixtures: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scorer", "--json", str(fixtures / "labels" / "aau-11.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["kingdoms"][0]["score"]["total"] == 49


class _StandInModel:
    """A stand-in square classifier for photo input: a fixed, sure reading of a 5×5 kingdom
    laid from 11 dominoes of the set, unsure at two squares."""

    GRID = ("F1 W0 W0 W0 L1", "L0 L0 W1 G0 F0", "G0 G0 C M2 S0", "G1 W0 S0 S0 W1", "G0 F0 .  .  M0")
    # F1W0 (24), W0W0 (1), L1F0 (32), L0L0 (7), W1G0 (21), G0G0 (10), M2S0 (46), W0G1 (36),
    # S0S0 (12), W1M0 (23), F0G0 (18)

    def predict_cell_proba(self, crops: list[object]) -> object:
        import numpy as np

        from scorer.rules.kingdom import ALL_CELLS, Cell

        tokens = " ".join(self.GRID).split()
        proba = np.full((len(crops), len(ALL_CELLS)), 0.001)
        for i, token in enumerate(tokens[: len(crops)]):
            proba[i, ALL_CELLS.index(Cell.parse(token))] = 0.9
        proba[3, ALL_CELLS.index(Cell.parse("W1"))] = 0.7  # W0 or W1?
        proba[23, ALL_CELLS.index(Cell.parse("S0"))] = 0.6  # bare table or swamp?
        return proba / proba.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("golden", "flags"),
    [("photo-corners.json", ["--json"]), ("photo-corners.txt", [])],
)
def test_photo_golden_files(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    golden: str,
    flags: list[str],
) -> None:
    """A photo's kingdom through the whole command line, the classifier stood in: corners,
    confidence, doubtful squares and notes, byte for byte."""
    import numpy as np

    from scorer.photo import imageio

    monkeypatch.setattr("scorer.read.classify.default_model", _StandInModel)
    monkeypatch.setattr(imageio, "load_image", lambda path: np.full((200, 200, 3), 90, np.uint8))
    monkeypatch.setattr(
        imageio,
        "load_image_with_info",
        lambda path: (
            np.full((200, 200, 3), 90, np.uint8),
            imageio.ImageInfo("PNG", (200, 200), "RGB", 1, 0),
        ),
    )
    corners = "10.26,10.04,160.31,10.12,160.2,160.27,10.11,160.33"
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, *flags, "--grid", "5", "--corners", corners, "board.png")
    assert code == 0
    path = GOLDEN / golden
    if os.environ.get("KINGDOMINO_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


def test_a_text_grid_loads_neither_the_page_nor_the_science_libraries(tmp_path: Path) -> None:
    grid = write(tmp_path, "anna.txt", ANNA)
    script = (
        "import json, sys\n"
        "from scorer.cli import main\n"
        f"code = main([{grid!r}])\n"
        "heavy = {'streamlit', 'pandas', 'scipy', 'sklearn', 'skops'}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & heavy)))\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_a_photo_does_not_load_numpys_masked_arrays() -> None:
    """numpy's median and percentile would load them, 6 ms of a cold command's first
    photo: the detection and light fits use :mod:`scorer.quantiles` instead."""
    sample = Path(__file__).resolve().parents[1] / "sample_images" / "sample_board.jpg"
    script = (
        "import json, sys\n"
        "from scorer.cli import main\n"
        f"code = main([{str(sample)!r}])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[:2] == ['numpy', 'ma'])))\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "total" in done.stdout
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_photos_in_a_pool_print_what_one_by_one_prints(tmp_path: Path) -> None:
    """Photos, a text grid and a missing file, scored by two processes and by one: the
    same lines in the same order, and the same exit code."""
    import cv2

    from scorer.lab.synth import demo_board, make_scene

    boards = [demo_board(k) for k in range(3)]
    inputs = []
    for seed in range(3):
        image = make_scene(seed, boards).image
        path = tmp_path / f"photo-{seed}.jpg"
        cv2.imwrite(str(path), cv2.resize(image, None, fx=0.5, fy=0.5))
        inputs.append(str(path))
    inputs[1:1] = [write(tmp_path, "anna.txt", ANNA), str(tmp_path / "missing.jpg")]

    def command(jobs: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "scorer", "--json", "--rank", "--jobs", jobs, *inputs]
        return subprocess.run(argv, capture_output=True, text=True, check=False)

    serial, parallel = command("1"), command("2")
    assert serial.returncode == parallel.returncode == 1  # the missing file
    assert parallel.stdout == serial.stdout
    assert parallel.stderr == serial.stderr
    results = json.loads(serial.stdout)["results"]
    assert [r["input"] for r in results] == inputs
