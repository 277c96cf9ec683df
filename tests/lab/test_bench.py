"""Tests for scorer.lab.bench: the timing of a board stage by stage, of the cold start and
of a pile of photos."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scorer.lab import bench, bench_commands, evaluate_photos
from scorer.lab.fit import fit_cell_classifier
from scorer.read.cells import cells_features


def test_bench_board_times_every_stage(capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    board = rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)
    crops = [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(20)]
    model = fit_cell_classifier(cells_features(crops), ["W0", "C"] * 10, kind="hgb", max_iter=5)
    timings = bench.bench_board(board, (3, 3), model, repeat=3)
    assert set(timings) == {"split", "features", "model", "decode", "total"}
    assert all(len(seconds) == 3 and min(seconds) >= 0 for seconds in timings.values())
    bench.print_medians("test board", timings)
    printed = capsys.readouterr().out
    assert "features" in printed
    assert "median" in printed


def test_bench_refuses_an_unreadable_board(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jpg"
    with pytest.raises(SystemExit, match="cannot read"):
        bench._board_image(str(missing), 5)


@pytest.mark.parametrize(
    ("argv", "rest"),
    [
        (["--photo"], []),
        (["--photo", "game.jpg", "--repeats", "3"], ["game.jpg", "--repeats", "3"]),
        (["--repeats", "3", "--photo"], ["--repeats", "3"]),
    ],
)
def test_photo_hands_the_rest_of_the_line_to_the_photo_bench(
    argv: list[str], rest: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[list[str]] = []
    monkeypatch.setattr(evaluate_photos, "bench_main", lambda a: given.append(list(a)) or 0)
    assert bench.main(argv) == 0
    assert given == [rest]


def test_board_options_are_parsed_and_unknown_ones_refused() -> None:
    args = bench._parser().parse_args(["--grid", "7", "--repeat", "3"])
    assert (args.grid, args.repeat, args.board) == (7, 3, None)
    with pytest.raises(SystemExit):
        bench.main(["--photos"])  # not an abbreviation of anything
    with pytest.raises(SystemExit):
        bench.main(["--sklearn-trees"])  # the saved model holds no scikit-learn trees


@pytest.mark.parametrize(
    ("argv", "mode", "rest"),
    [
        (["--startup"], "startup", []),
        (["--startup", "game.jpg", "--repeat", "2"], "startup", ["game.jpg", "--repeat", "2"]),
        (["--batch", "30", "--jobs", "2"], "batch", [30, "--jobs", "2"]),
        (["--long-side", "800", "--batch", "20"], "batch", [20, "--long-side", "800"]),
    ],
)
def test_startup_and_batch_hand_the_rest_of_the_line_on(
    argv: list[str], mode: str, rest: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[tuple[str, list[object]]] = []
    monkeypatch.setattr(
        bench_commands, "startup_main", lambda a: given.append(("startup", list(a))) or 0
    )
    monkeypatch.setattr(
        bench_commands, "batch_main", lambda n, a: given.append(("batch", [n, *a])) or 0
    )
    assert bench.main(argv) == 0
    assert given == [(mode, rest)]


def test_startup_prints_each_step_and_the_target(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = {"imports": 0.3, "model": 0.03, "first": 0.4, "second": 0.3}
    steps_cpu = {"imports cpu": 0.25, "model cpu": 0.03, "first cpu": 0.5, "second cpu": 0.4}
    seconds = {"pass": 0.02, "import cv2, numpy": 0.2}
    run = bench_commands.Run

    def fake(arguments: list[str], root: Path | None = None) -> bench_commands.Run:
        if arguments[:2] == ["-m", "scorer"]:
            return run(0.8, 0.7, "")
        if arguments[1] in seconds:
            return run(seconds[arguments[1]], seconds[arguments[1]] / 2, "")
        return run(1.0, 1.0, json.dumps(steps | steps_cpu))

    monkeypatch.setattr(bench_commands, "timed", fake)
    figures = bench_commands.startup("photo.jpg", repeat=2)
    assert figures == {
        "interpreter": 0.02,
        "baseline": 0.2,
        "command": 0.8,
        "interpreter cpu": 0.01,
        "baseline cpu": 0.1,
        "command cpu": 0.7,
        **steps,
        **steps_cpu,
    }
    bench_commands.print_startup(figures)
    printed = capsys.readouterr().out
    assert "4.0 × the baseline" in printed
    # by the clock: 0.8 = 0.2 + 2 × 0.3; in CPU: 0.7 = 0.1 + 1.5 × 0.4, just within
    assert "2.00 × a warm photo (misses the target 1.5 ×: 0.65 s)" in printed
    assert "1.50 × a warm photo (meets the target 1.5 ×: 0.70 s)" in printed


def test_a_real_run_is_timed_by_the_clock_and_in_cpu() -> None:
    busy = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass"
    run = bench_commands.timed(["-c", busy + "\nprint('done')"])
    assert run.out == "done\n"
    assert 0.2 <= run.cpu <= run.seconds + 0.05  # one thread: no more CPU than the clock


@pytest.mark.parametrize(
    ("cpu", "serial", "cores", "least"),
    [(140.0, 100.0, 2, 0.7), (100.0, 100.0, 2, 0.5), (100.0, 50.0, 4, 0.5)],
)
def test_least_ratio_spreads_the_pool_cpu_over_every_core(
    cpu: float, serial: float, cores: int, least: float
) -> None:
    assert bench_commands.least_ratio(cpu, serial, cores) == pytest.approx(least)


def test_batch_scores_generated_photos_one_by_one_and_in_a_pool(tmp_path: Path) -> None:
    files = bench_commands.write_scenes(tmp_path, 2, seed=5, long_side=500, data=str(tmp_path))
    assert [Path(f).name for f in files] == ["scene-0000.jpg", "scene-0001.jpg"]
    figures = bench_commands.batch(files, jobs=2)
    assert figures["same"]
    assert figures["workers"] == 2
    assert figures["serial"] > 0 and figures["parallel"] > 0
    assert figures["serial cpu"] > 0 and figures["parallel cpu"] > 0
    assert figures["bound"] == figures["parallel cpu"] / figures["cores"] / figures["serial"]
    assert figures["pixels"] == "long side 500–500 px"
