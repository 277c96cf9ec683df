"""Measure kingdom detection and the whole pipeline on photos.

Two sets are measured:

* seeded synthetic scenes (:mod:`scorer.lab.synth`): share of kingdoms found,
  corner error as a share of the kingdom's side, grid shape, and end-to-end
  square accuracy against the accuracy on the original rectified boards;
* the real Mighty Duel photos: every kingdom found with a 7×7 grid, and
  ``game1`` read end to end against its label (over the four rotations).

Run ``python -m scorer.evaluate_photos`` (or ``python -m scorer.evaluate
--photos``); the figures are printed and written to
``models/photo_evaluation.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from scorer.detect import BoardLocation, find_kingdoms
from scorer.detect.params import DEFAULT as DETECT_DEFAULT
from scorer.detect.params import DetectParams
from scorer.lab.datasets import Board, data_dir, load_aau_boards
from scorer.lab.matching import (
    best_rotation_matches,
    match_kingdoms,
    placed_matches,
    rotation_matches,
)
from scorer.lab.synth import Scene, add_removal_option, make_scene
from scorer.pipeline import (
    KingdomReport,
    read_board,
    read_kingdom,
    report_kingdom,
    score_photo,
    square_side_px,
)
from scorer.read.classify import BoardPrediction
from scorer.read.params import DEFAULT as READ_DEFAULT
from scorer.read.params import ReadParams
from scorer.rules.errors import BoardNotFoundError, ModelFileError
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import score

FOUND_ERROR = 0.05
"""A kingdom counts as found when its mean corner error is under this share of its side."""

SIZE_BANDS: Final = (("under 40 px", 0, 40), ("40–80 px", 40, 80), ("80 px and over", 80, np.inf))
"""Bands of square size in the photo (pixels across) that the figures are split by."""

_REPO = Path(__file__).resolve().parents[2]


@dataclass
class SceneResult:
    """Detection (and, when a model is loaded, reading) of one kingdom in a scene."""

    seed: int
    background: str
    board: str
    found: bool
    corner_error: float
    shape_ok: bool
    cells: int = 0
    cells_correct: int = 0
    cells_correct_true_corners: int = 0
    cells_placed_correct: int = 0
    square_px: float = 0.0
    cells_flagged: int = 0
    wrong_flagged: int = 0
    total_wrong: bool = False
    silent_wrong: bool = False
    confirmed_wrong: bool = False
    right_unconfirmed: bool = False


@dataclass(frozen=True)
class Reader:
    """Reads kingdoms with one square classifier, as the pipeline does."""

    model: Any
    params: ReadParams = READ_DEFAULT

    def photo(
        self, image: np.ndarray, location: BoardLocation, refine: bool = True
    ) -> tuple[BoardLocation, BoardPrediction]:
        """Read a kingdom found in a photo (:func:`scorer.pipeline.read_kingdom`)."""
        location, _, prediction = read_kingdom(
            image, location, self.model, refine=refine, read_params=self.params
        )
        return location, prediction

    def report(self, image: np.ndarray, location: BoardLocation) -> KingdomReport:
        """Read, score and judge a kingdom found in a photo, as the pipeline does
        (:func:`scorer.pipeline.report_kingdom`): its verdict says whether the total
        would be shown as confirmed."""
        return report_kingdom(image, location, model=self.model, read_params=self.params)

    def board(self, board: np.ndarray, shape: tuple[int, int]) -> BoardPrediction:
        """Read an already rectified board."""
        return read_board(board, BoardLocation(np.zeros((4, 2)), shape), self.model)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the evaluation and write the report (``--matrix``: the condition matrix)."""
    given = sys.argv[1:] if argv is None else list(argv)
    if "--matrix" in given:
        from scorer.lab.matrix import matrix_main

        return matrix_main(given)
    parser = _parser()
    args = parser.parse_args(argv)
    from scorer.lab.matrix import split_overrides

    try:
        detect_params, read_params = split_overrides(args.set)
    except ValueError as err:
        parser.error(f"--set: {err}")
    root = data_dir(args.data)
    boards = load_aau_boards(root)
    classify = _classifier(args.no_model, args.model)
    if classify is not None:
        classify = replace(classify, params=read_params)
    started = time.perf_counter()
    seeds = range(args.seed, args.seed + args.n)
    folds: list[tuple[list[Board], Reader | None]] = [(list(boards), classify)]
    if args.held_out and classify is not None:
        from scorer.lab.matrix import fold_classifiers  # the same folds, cached on disk

        folds = [(b, Reader(m, read_params)) for b, m in fold_classifiers(root, boards, args.jobs)]
    results = []
    reader_of: dict[str, Reader] = {}
    for seed in seeds:
        fold_boards, fold_classify = folds[seed % len(folds)]
        if fold_classify is not None:
            reader_of.update({b.name: fold_classify for b in fold_boards})
        scene = make_scene(seed, fold_boards, whole_dominoes=not args.single_squares)
        results.extend(evaluate_scene(scene, fold_classify, params=detect_params))
    synthetic = summarise(results)
    if args.set:
        synthetic["overrides"] = list(args.set)
    if args.single_squares:
        synthetic["removal"] = "single squares"
    synthetic["seconds"] = round(time.perf_counter() - started, 1)
    synthetic["classifier"] = (
        "none"
        if classify is None
        else "held out: trained without the kingdoms in the scene (2 folds by kingdom)"
        if len(folds) > 1
        else "the committed model (trained with every aau board)"
    )
    if classify is not None:
        synthetic["original_board_accuracy"] = _original_accuracy(boards, results, reader_of)
    photos = evaluate_real_photos(root, classify, Path(args.overlays))
    report = {
        "synthetic": synthetic,
        "real_photos": photos,
        "notes": _notes(classify, held_out=len(folds) > 1),
    }
    text = format_report(report)
    print(text)
    if not args.no_write:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text(text + "\n", encoding="utf-8")
        out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def bench_photo(image: np.ndarray, repeats: int = 7, model: Any = None) -> dict[str, float]:
    """Median seconds of :func:`scorer.pipeline.score_photo` on one photo, total and per stage.

    Parameters
    ----------
    image : ndarray
        The BGR photo, e.g. 12 megapixels.
    repeats : int
        Timed runs after one warm-up run.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    """
    score_photo(image, model=model)  # warm-up: model load, first-call costs
    runs = [score_photo(image, model=model).timings for _ in range(repeats)]
    return {k: round(float(np.median([r[k] for r in runs])), 4) for k in runs[0]}


def bench_main(argv: Sequence[str] | None = None) -> int:
    """``--photo`` mode of the bench: a 12-megapixel photo end to end."""
    p = argparse.ArgumentParser(prog="python -m scorer.bench --photo")
    p.add_argument("photo", nargs="?", default=None, help="photo (default: game1 at 12 MP)")
    p.add_argument("--data", default=None)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--model", default=None, help="model folder (default: the committed model)")
    args = p.parse_args(argv)
    if args.photo is None:
        image = _read_photo(data_dir(args.data) / "mighty-duel" / "photos" / "game1.jpg")
        image = cv2.resize(image, (3000, 4000), interpolation=cv2.INTER_CUBIC)
    else:
        image = _read_photo(Path(args.photo))
    from scorer.read.classify import load_model

    model = load_model(args.model)
    mp = image.shape[0] * image.shape[1] / 1e6
    times = bench_photo(image, args.repeats, model)
    print(f"photo {image.shape[1]}×{image.shape[0]} ({mp:.1f} MP), median of {args.repeats}:")
    for stage, seconds in times.items():
        print(f"  {stage:<9} {seconds * 1000:7.0f} ms")
    return 0


def evaluate_scenes(
    boards: Sequence[Board],
    seeds: Sequence[int] | range,
    classify: Reader | None = None,
    *,
    params: DetectParams = DETECT_DEFAULT,
) -> list[SceneResult]:
    """Detect (and read) the kingdoms of one synthetic scene per seed, detecting with
    ``params``."""
    results = []
    for seed in seeds:
        scene = make_scene(seed, boards, whole_dominoes=True)
        results.extend(evaluate_scene(scene, classify, params=params))
    return results


def evaluate_scene(
    scene: Scene, classify: Reader | None = None, *, params: DetectParams = DETECT_DEFAULT
) -> list[SceneResult]:
    """Match detected kingdoms to the true ones and measure each, detecting with ``params``.

    With a reader, each kingdom found is read as the pipeline reads it
    (:func:`scorer.pipeline.read_kingdom`), which may correct its outline (drop
    rows read as bare table, grow it to its castle); the kingdoms are matched
    as read.
    """
    try:
        found = find_kingdoms(scene.image, params=params)
    except BoardNotFoundError:
        found = []
    reports: list[KingdomReport] = []
    readings: list[tuple[BoardLocation, BoardPrediction | None]] = [(loc, None) for loc in found]
    if classify is not None:
        reports = [classify.report(scene.image, loc) for loc in found]
        readings = [(r.location, r.prediction) for r in reports]
    results = []
    match = match_kingdoms([loc for loc, _ in readings], scene.kingdoms)
    for truth, (index, best_err) in zip(scene.kingdoms, match, strict=True):
        best = None if index is None else readings[index]
        ok = best is not None and best_err < FOUND_ERROR
        result = SceneResult(
            seed=scene.seed,
            background=scene.background,
            board=truth.board,
            found=ok,
            corner_error=float(best_err),
            shape_ok=ok and best is not None and _same_shape(best[0].shape, truth.shape),
            square_px=square_side_px(BoardLocation(truth.corners, truth.shape)),
        )
        if classify is not None:
            result.cells = truth.kingdom.height * truth.kingdom.width
            if ok and best is not None and best[1] is not None and result.shape_ok:
                prediction = best[1]
                right, wrong_flagged = rotation_matches(
                    prediction.kingdom, truth.kingdom, prediction.doubtful
                )
                result.cells_correct, result.wrong_flagged = right, wrong_flagged
                result.cells_flagged = len(prediction.doubtful)
            if ok and best is not None and best[1] is not None:
                confirmed = index is not None and not reports[index].reasons
                result.total_wrong, result.silent_wrong = wrong_total(
                    best[1],
                    truth.kingdom,
                    result.cells - result.cells_correct,
                    result,
                    confirmed=confirmed,
                )
                result.confirmed_wrong = result.total_wrong and confirmed
                result.right_unconfirmed = not result.total_wrong and not confirmed
            read = [(loc, p.kingdom) for loc, p in readings if p is not None]
            result.cells_placed_correct = placed_matches(read, truth.corners, truth.kingdom)
            # The same scene read through the true corners: what the photo's light,
            # blur and noise cost the classifier, apart from detection.
            exact = BoardLocation(truth.corners, truth.shape)
            kingdom = classify.photo(scene.image, exact, refine=False)[1].kingdom
            result.cells_correct_true_corners = best_rotation_matches(kingdom, truth.kingdom)
        results.append(result)
    return results


def wrong_total(
    prediction: BoardPrediction,
    truth: Kingdom,
    wrong_squares: int,
    result: SceneResult,
    *,
    confirmed: bool = False,
) -> tuple[bool, bool]:
    """Whether a kingdom's read total is wrong, and whether it is wrong silently.

    A wrong total is silent unless the player was pointed at what is wrong: the total is
    not ``confirmed`` (the verdict withholds it), and with the right grid every wrong
    square is among the flagged ones, with a wrong grid at least one square is flagged.

    Examples
    --------
    >>> import numpy as np
    >>> from scorer.read.classify import predict_from_probabilities
    >>> from scorer.rules.kingdom import ALL_CELLS, Kingdom
    >>> truth = Kingdom.parse("F1 F0 C")
    >>> probs = np.zeros((1, 3, len(ALL_CELLS)))
    >>> for col, token in enumerate(["F0", "F0", "C"]):
    ...     probs[0, col, [c.token for c in ALL_CELLS].index(token)] = 1.0
    >>> read = predict_from_probabilities(probs)
    >>> r = SceneResult(0, "wood", "b", True, 0.0, True, cells=3, cells_correct=2)
    >>> wrong_total(read, truth, 1, r)
    (True, True)
    """
    total_wrong = score(prediction.kingdom).total != score(truth).total
    if not total_wrong:
        return False, False
    if confirmed:
        return True, True
    if result.shape_ok:
        return True, result.wrong_flagged < wrong_squares
    return True, not prediction.doubtful


def summarise(results: Sequence[SceneResult]) -> dict[str, Any]:
    """The headline figures of a list of scene results."""
    n = len(results)
    found = [r for r in results if r.found]
    summary: dict[str, Any] = {
        "scenes": len({r.seed for r in results}),
        "kingdoms": n,
        "found_pct": round(100 * len(found) / max(n, 1), 2),
        "mean_corner_error_pct": round(100 * float(np.mean([r.corner_error for r in found])), 3)
        if found
        else None,
        "grid_shape_ok_pct": round(100 * sum(r.shape_ok for r in results) / max(n, 1), 2),
        "by_background": {},
    }
    for bg in sorted({r.background for r in results}):
        subset = [r for r in results if r.background == bg]
        summary["by_background"][bg] = {
            "kingdoms": len(subset),
            "found_pct": round(100 * sum(r.found for r in subset) / len(subset), 2),
        }
    cells = sum(r.cells for r in results)
    if cells:
        summary["end_to_end_cell_accuracy_pct"] = round(
            100 * sum(r.cells_correct for r in results) / cells, 2
        )
        summary["end_to_end_placed_cell_accuracy_pct"] = round(
            100 * sum(r.cells_placed_correct for r in results) / cells, 2
        )
        summary["true_corners_cell_accuracy_pct"] = round(
            100 * sum(r.cells_correct_true_corners for r in results) / cells, 2
        )
        read = [r for r in results if r.shape_ok]
        read_cells = max(sum(r.cells for r in read), 1)
        summary["found_kingdoms_cell_accuracy_pct"] = round(
            100 * sum(r.cells_correct for r in read) / read_cells, 2
        )
        summary["found_kingdoms_flagged_pct"] = round(
            100 * sum(r.cells_flagged for r in read) / read_cells, 2
        )
        wrong = sum(r.cells - r.cells_correct for r in read)
        summary["found_kingdoms_wrong_flagged_pct"] = (
            round(100 * sum(r.wrong_flagged for r in read) / wrong, 2) if wrong else None
        )
        found_read = [r for r in results if r.found]
        summary["found_kingdoms_total_wrong"] = sum(r.total_wrong for r in found_read)
        summary["found_kingdoms_silent_wrong"] = sum(r.silent_wrong for r in found_read)
        summary["found_kingdoms_confirmed_wrong"] = sum(r.confirmed_wrong for r in found_read)
        summary["found_kingdoms_right_unconfirmed"] = sum(r.right_unconfirmed for r in found_read)
        summary["found_kingdoms_silent_wrong_pct"] = round(
            100 * summary["found_kingdoms_silent_wrong"] / max(len(found_read), 1), 2
        )
    summary["by_square_size"] = _by_square_size(results)
    summary["missed"] = [
        {"seed": r.seed, "board": r.board, "corner_error": round(r.corner_error, 3)}
        for r in results
        if not r.found
    ][:30]
    summary["silent_wrong"] = [
        {"seed": r.seed, "board": r.board, "confirmed": r.confirmed_wrong}
        for r in results
        if r.silent_wrong
    ][:30]
    return summary


def _by_square_size(results: Sequence[SceneResult]) -> dict[str, dict[str, Any]]:
    """Kingdoms found and squares read right, by the size of a square in the photo."""
    out: dict[str, dict[str, Any]] = {}
    for name, lo, hi in SIZE_BANDS:
        band = [r for r in results if lo <= r.square_px < hi]
        if not band:
            continue
        cells = sum(r.cells for r in band)
        out[name] = {
            "kingdoms": len(band),
            "found_pct": round(100 * sum(r.found for r in band) / len(band), 2),
        }
        if cells:
            out[name]["end_to_end_pct"] = round(100 * sum(r.cells_correct for r in band) / cells, 2)
            out[name]["placed_pct"] = round(
                100 * sum(r.cells_placed_correct for r in band) / cells, 2
            )
            out[name]["true_corners_pct"] = round(
                100 * sum(r.cells_correct_true_corners for r in band) / cells, 2
            )
    return out


def evaluate_real_photos(root: Path, classify: Reader | None, overlays: Path) -> dict[str, Any]:
    """Find the kingdoms of the Mighty Duel photos; read game1 against its label."""
    folder = root / "mighty-duel" / "photos"
    out: dict[str, Any] = {"photos": {}}
    overlays.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.glob("*.jpg")):
        image = _read_photo(path)
        entry: dict[str, Any]
        try:
            locations = find_kingdoms(image)
            entry = {
                "kingdoms": len(locations),
                "shapes": [list(loc.shape) for loc in locations],
                "corners": [np.round(loc.corners, 1).tolist() for loc in locations],
            }
            _save_overlay(image, locations, overlays / f"{path.stem}.jpg")
        except BoardNotFoundError as err:
            entry = {"kingdoms": 0, "error": str(err)}
            locations = []
        label = root / "mighty-duel" / "labels" / f"{path.stem}.txt"
        if classify is not None and label.exists() and len(locations) == 1:
            truth = Kingdom.parse(label.read_text(encoding="utf-8"))
            location = locations[0]
            kingdom = classify.photo(image, location)[1].kingdom
            entry["squares_correct"] = best_rotation_matches(kingdom, truth)
            entry["squares"] = truth.height * truth.width
        out["photos"][path.stem] = entry
    found = sum(e["kingdoms"] == 1 and e["shapes"] == [[7, 7]] for e in out["photos"].values())
    out["found_7x7"] = f"{found}/{len(out['photos'])}"
    out["overlays"] = str(overlays)
    return out


def format_report(report: dict[str, Any]) -> str:
    """The report as Markdown."""
    s = report["synthetic"]
    lines = [
        "# Photo evaluation",
        "",
        "Measured by `python -m scorer.evaluate --photos` (`python -m scorer.evaluate_photos`).",
        "",
        f"## Synthetic scenes ({s['scenes']} seeded scenes, {s['kingdoms']} kingdoms)",
        "",
        f"- kingdoms found (corner error < {FOUND_ERROR:.0%} of side): {s['found_pct']}%",
        f"- mean corner error of found kingdoms: {s['mean_corner_error_pct']}% of the side",
        f"- grid shape right: {s['grid_shape_ok_pct']}%",
    ]
    if "end_to_end_cell_accuracy_pct" in s:
        lines.append(
            "- end-to-end square accuracy, whole kingdoms (a kingdom missed or read with the "
            f"wrong grid counts wholly wrong): {s['end_to_end_cell_accuracy_pct']}%"
        )
        lines.append(
            "- end-to-end square accuracy, each square at its place in the photo: "
            f"{s['end_to_end_placed_cell_accuracy_pct']}%"
        )
        lines.append(
            f"- square accuracy within the kingdoms found: {s['found_kingdoms_cell_accuracy_pct']}%"
        )
        if "found_kingdoms_flagged_pct" in s:
            caught = s["found_kingdoms_wrong_flagged_pct"]
            lines.append(
                "- squares flagged for the player to check, within the kingdoms found: "
                f"{s['found_kingdoms_flagged_pct']}% of all, "
                + ("no square wrong" if caught is None else f"{caught}% of the wrong ones")
            )
        if "found_kingdoms_silent_wrong" in s:
            lines.append(
                "- kingdoms found whose total is wrong: "
                f"{s['found_kingdoms_total_wrong']}; of them wrong silently (confirmed, a "
                "wrong square not flagged, or a wrong grid with no square flagged): "
                f"{s['found_kingdoms_silent_wrong']} ({s['found_kingdoms_silent_wrong_pct']}% "
                "of the kingdoms found)"
                + (
                    f", and shown as confirmed: {s['found_kingdoms_confirmed_wrong']}"
                    if "found_kingdoms_confirmed_wrong" in s
                    else ""
                )
            )
        if "found_kingdoms_right_unconfirmed" in s:
            lines.append(
                "- kingdoms found whose total is right but left for the player to confirm "
                f"(the price of the caution): {s['found_kingdoms_right_unconfirmed']}"
            )
        if s.get("missed"):
            seeds = ", ".join(f"{m['seed']} ({m['board']})" for m in s["missed"])
            lines.append(f"- the scenes of the kingdoms not found (seed): {seeds}")
        if s.get("silent_wrong"):
            seeds = ", ".join(
                f"{w['seed']} ({w['board']}{', confirmed' if w['confirmed'] else ''})"
                for w in s["silent_wrong"]
            )
            lines.append(f"- the scenes of the silent wrong totals (seed): {seeds}")
        if "true_corners_cell_accuracy_pct" in s:
            lines.append(
                "- square accuracy read through the true corners (no detection error): "
                f"{s['true_corners_cell_accuracy_pct']}%"
            )
        lines.append(f"- classifier: {s['classifier']}")
        lines.append(
            f"- accuracy on the same boards, rectified originals: {s['original_board_accuracy']}%"
        )
    lines.append(f"- time: {s['seconds']} s")
    lines.append("")
    lines.append("| table | kingdoms | found |")
    lines.append("|---|---|---|")
    for bg, v in s["by_background"].items():
        lines.append(f"| {bg} | {v['kingdoms']} | {v['found_pct']}% |")
    sizes = s.get("by_square_size", {})
    if sizes:
        lines += [
            "",
            "| square in the photo | kingdoms | found | end to end, whole kingdoms "
            "| end to end, at their place | through true corners |",
        ]
        lines.append("|---|---|---|---|---|---|")
        for band, v in sizes.items():
            e2e, placed, true = (
                f"{v[key]}%" if key in v else "–"
                for key in ("end_to_end_pct", "placed_pct", "true_corners_pct")
            )
            lines.append(
                f"| {band} | {v['kingdoms']} | {v['found_pct']}% | {e2e} | {placed} | {true} |"
            )
    p = report["real_photos"]
    lines += ["", "## Real photos (mighty-duel)", "", f"- one 7×7 kingdom found: {p['found_7x7']}"]
    for name, e in p["photos"].items():
        extra = ""
        if "squares_correct" in e:
            extra = f", read end to end: {e['squares_correct']}/{e['squares']} squares"
        detail = e.get("shapes", e.get("error"))
        lines.append(f"- {name}: {e['kingdoms']} kingdom(s) {detail}{extra}")
    lines += ["", "## Notes", ""] + [f"- {n}" for n in report["notes"]]
    return "\n".join(lines)


def _notes(classify: Any, held_out: bool) -> list[str]:
    notes = [
        "Synthetic scenes are drawn fresh from seeds; no detection setting was tuned on them "
        "as a fixed set.",
        f"Overlays of the real-photo detections are saved for visual checking; "
        f"'found' on synthetic scenes means corner error under {FOUND_ERROR:.0%} of the side.",
        "End-to-end square accuracy counts every square of every true kingdom, two ways. "
        "Whole kingdoms: a kingdom not found, or found with the wrong grid, counts as all "
        "wrong, and grids are compared over the four rotations. At their place: the centre "
        "of each true square is carried through the true corners into the grid of the "
        "kingdom read over it, and the square counts as right when the label read there is "
        "the true one (a square under no kingdom read counts as read empty); a kingdom read "
        "a row short keeps its other squares, and a grid a fraction of a square off loses "
        "the squares it misplaces.",
    ]
    if classify is None:
        notes.append("No square classifier was loaded: detection figures only.")
    elif held_out:
        notes.append(
            "Synthetic end to end uses classifiers trained without the scene's kingdoms "
            "(aau boards split in two by kingdom, plus phone-tiles); the comparison is the "
            "same classifiers on the same boards, rectified by hand."
        )
    else:
        notes.append(
            "The classifier was trained with the aau boards, so the synthetic end-to-end "
            "accuracy is not a held-out figure (run with --held-out for that); compare it with "
            "the accuracy on the same rectified boards, which isolates the loss due to "
            "detection and warping."
        )
    notes.append(
        "The real photo game1 is read with the same classifier as the synthetic scenes "
        "when it is not held out; the committed model was trained with mighty-duel tiles, "
        "some cut from these photos."
    )
    return notes


def _classifier(disabled: bool, path: str | None) -> Reader | None:
    """A :class:`Reader` of the model at ``path`` (default: the committed one),
    or None when no model is available."""
    if disabled:
        return None
    try:
        from scorer.read.classify import load_model

        model = load_model(path)
    except (ModelFileError, ImportError, OSError) as err:
        print(f"note: no square classifier ({err}); measuring detection only", file=sys.stderr)
        return None
    return Reader(model)


def _original_accuracy(
    boards: Sequence[Board], results: Sequence[SceneResult], reader_of: dict[str, Reader]
) -> float:
    """Accuracy of the same classifiers on the original rectified boards used in the scenes."""
    by_name = {b.name: b for b in boards}
    matches: dict[str, int] = {}
    correct = total = 0
    for r in results:
        b = by_name[r.board]
        if r.board not in matches:
            kingdom = reader_of[r.board].board(b.image, b.kingdom.shape).kingdom
            matches[r.board] = best_rotation_matches(kingdom, b.kingdom)
        correct += matches[r.board]
        total += b.kingdom.height * b.kingdom.width
    return round(100 * correct / max(total, 1), 2)


def held_out_folds(
    root: Path, boards: Sequence[Board], jobs: int
) -> list[tuple[list[Board], Reader]]:
    """Two classifiers, each trained without half of the aau kingdoms (split by ``groups.csv``).

    Each is paired with the boards it never saw, so scenes built from them
    measure the pipeline on unseen kingdoms.
    """
    from scorer.lab.train import (
        JITTERED_VIEWS,
        SCENE_SOURCE,
        collect_tiles,
        fit_model,
        training_features,
    )

    print("training two held-out classifiers (a few minutes)...", file=sys.stderr)
    tiles = collect_tiles(root, ("aau", "phone"))
    # Training scenes are drawn from seeds far from the evaluated ones; their squares
    # carry their kingdom's group, so each fold drops those of the kingdoms it holds out.
    features = training_features(tiles, boards, views=JITTERED_VIEWS, seed=0, jobs=jobs)
    kingdoms = sorted({b.group for b in boards})
    board_rows = np.isin(features.sources, ["aau", SCENE_SOURCE])
    folds = []
    for f in range(2):
        held = set(kingdoms[f::2])
        keep = ~(board_rows & np.isin(features.groups, sorted(held)))
        model = fit_model(features.select(keep), seed=0)
        read = Reader(model)
        folds.append(([b for b in boards if b.group in held], read))
    return folds


def _read_photo(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"cannot read {path}")
    return np.asarray(image, dtype=np.uint8)


def _same_shape(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a == b or a == (b[1], b[0])


def _save_overlay(image: np.ndarray, locations: Sequence[BoardLocation], path: Path) -> None:
    scale = 1000 / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    for loc in locations:
        pts = (loc.corners * scale).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(small, [pts], True, (0, 0, 255), 2)
        cv2.circle(small, tuple(int(v) for v in loc.corners[0] * scale), 6, (255, 0, 255), -1)
    cv2.imwrite(str(path), small)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m scorer.evaluate_photos", description=__doc__)
    p.add_argument("--n", type=int, default=500, help="synthetic scenes (default 500)")
    p.add_argument("--seed", type=int, default=1000, help="first scene seed (default 1000)")
    p.add_argument("--data", default=None, help="labelled data folder (default ../shared/data)")
    p.add_argument("--no-model", action="store_true", help="measure detection only")
    p.add_argument("--model", default=None, help="model folder (default: the committed model)")
    p.add_argument(
        "--matrix",
        action="store_true",
        help="the condition matrix instead (scorer.lab.matrix; --conditions, --kingdoms, "
        "--seed, --jobs, --no-write)",
    )
    p.add_argument(
        "--held-out",
        action="store_true",
        help="read scenes with classifiers trained without their kingdoms (trains two models)",
    )
    p.add_argument("--jobs", type=int, default=2, help="processes for feature extraction")
    add_removal_option(p)
    p.add_argument("--no-write", action="store_true", help="print only; write no report files")
    p.add_argument("--out", default=str(_REPO / "models" / "photo_evaluation.md"))
    p.add_argument("--overlays", default="/tmp/kingdomino-overlays")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="GROUP.FIELD=VALUE",
        help="detect or read the synthetic scenes with a tuned value changed, e.g. "
        "extent.dark_row_ratio=1.4 (scorer.detect.params) or read.light_trial=true "
        "(scorer.read.params); repeatable",
    )
    return p


if __name__ == "__main__":
    sys.exit(main())
