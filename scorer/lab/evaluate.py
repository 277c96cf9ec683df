"""Measure the square classifier honestly: never on data it was trained on.

``python -m scorer.evaluate`` prints and writes (``models/evaluation.md`` and
``models/evaluation.json``):

(a) ``aau-boards`` with grouped cross-validation by kingdom (``groups.csv``):
    per-square accuracy for terrain, crowns and both, after tile-set decoding
    and before it; the confusion matrix; the share of boards whose property
    score is exactly right;
(b) ``phone-tiles`` with the same folds, split by photo id, against the
    audited labels (:data:`scorer.lab.datasets.PHONE_LABEL_FIXES`) and against the
    folders as published;
(c) ``mighty-duel/tiles`` and the 7×7 board ``game1`` with a model trained on
    ``aau-boards`` and ``phone-tiles`` only (and the synthetic scenes built
    from ``aau-boards``);
(d) with ``--corrections DIR...``, the kingdoms players confirmed (:mod:`scorer.confirmed`),
    grouped by source photo in the same folds: every fold is trained with and without
    them, and the report gives (a) and (b) both ways, and the squares of the confirmed
    kingdoms alone, held out by photo: the real-use accuracy.

(a) and (b) share one set of folds: each fold holds out some kingdoms and some
photos together, and trains on everything else (without Mighty Duel data). The
squares of the training scenes (:data:`scorer.lab.train.SCENES`) belong to their
kingdom's group, so a fold drops the scene squares of the kingdoms it holds out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
from sklearn.model_selection import GroupKFold

from scorer.lab import datasets
from scorer.lab.train import (
    EVALUATION_FILE,
    JITTERED_VIEWS,
    FeatureSet,
    collect_tiles,
    featurize,
    fit_model,
    training_features,
)
from scorer.read.cells import split_cells
from scorer.read.classify import DOUBT_THRESHOLD, MODEL_DIR, CellClassifier, doubtful_squares
from scorer.read.decoding import decode
from scorer.rules.kingdom import ALL_CELLS, Kingdom, Terrain
from scorer.rules.scoring import property_points

REPORT_FILE: Final = "evaluation.md"
TOKENS: Final = tuple(c.token for c in ALL_CELLS)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three evaluations, print them and write the report files; with
    ``--photos``, run :func:`scorer.lab.evaluate_photos.main` on the other options."""
    mode, rest = _mode_parser().parse_known_args(argv)
    if mode.photos:
        from scorer.lab import evaluate_photos

        return evaluate_photos.main(rest)
    args = _parser().parse_args(rest)
    start = time.perf_counter()
    root = datasets.data_dir(args.data)
    result = evaluate(
        root, folds=args.folds, seed=args.seed, jobs=args.jobs, corrections=args.corrections
    )
    result["seconds"] = round(time.perf_counter() - start, 1)
    report = format_report(result)
    print(report)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / EVALUATION_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / REPORT_FILE).write_text(report, encoding="utf-8")
    print(f"wrote {out / REPORT_FILE} and {out / EVALUATION_FILE}", file=sys.stderr)
    return 0


def _mode_parser() -> argparse.ArgumentParser:
    """Finds ``--photos`` anywhere on the line and leaves every other word, in order."""
    mode = argparse.ArgumentParser(add_help=False)
    mode.add_argument("--photos", action="store_true")
    return mode


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scorer.evaluate", description=__doc__)
    parser.add_argument(
        "--photos",
        action="store_true",
        help="measure detection and the whole pipeline on photos instead "
        "(python -m scorer.evaluate_photos, whose options then apply: --photos --help)",
    )
    parser.add_argument("--data", help="the labelled data folder (default: ../shared/data)")
    parser.add_argument("--out", default=str(MODEL_DIR), help="where to write the report")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="processes for feature extraction")
    parser.add_argument(
        "--corrections",
        nargs="+",
        default=[],
        metavar="DIR",
        help="folders of kingdoms players confirmed: measured with and without them, and "
        "on their squares alone (held out by photo)",
    )
    return parser


def evaluate(
    root: Path,
    folds: int = 5,
    seed: int = 0,
    jobs: int = 1,
    corrections: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Compute every figure; return them as a JSON-ready dict with a ``summary``.

    With ``corrections`` (folders of kingdoms players confirmed), their squares join the
    folds, grouped by source photo, and every fold is trained twice, with and without
    them: the figures are those with them, ``without_confirmed`` those without, and
    ``confirmed`` the figures on the confirmed squares alone.
    """
    boards = datasets.load_aau_boards(root)
    tiles = collect_tiles(root, ("aau", "phone"))
    confirmed = [datasets.load_confirmed(folder) for folder in corrections]
    tiles += [t for c in confirmed for t in c.tiles]
    features = training_features(tiles, boards, views=JITTERED_VIEWS, seed=seed, jobs=jobs)
    log = _progress()
    log(f"{len(tiles)} crops, {len(features.y)} feature rows")
    crop_groups = np.array([t.group for t in tiles])
    proba, _ = held_out_proba(features, crop_groups, folds, seed=seed, log=log)
    sources = np.array([t.source for t in tiles])
    truth = np.array([t.cell.token for t in tiles])
    aau = _aau_figures(boards, proba[sources == "aau"])
    phone_tiles = [t for t in tiles if t.source == "phone"]
    published = np.array([t.published_cell.token for t in phone_tiles])
    phone = _tile_figures(truth[sources == "phone"], proba[sources == "phone"])
    phone["published"] = _tile_figures(published, proba[sources == "phone"])
    phone["relabelled"] = sum(t.published is not None for t in phone_tiles)
    duel = _duel_figures(root, features, seed, jobs)
    log("Mighty Duel done")
    summary = {
        "aau_squares_right": aau["decoded"]["both"],
        "aau_terrain_right": aau["decoded"]["terrain"],
        "aau_crowns_right": aau["decoded"]["crowns"],
        "aau_boards_exact_score": aau["boards_exact_score"],
        "aau_boards_exact_grid": aau["boards_exact_grid"],
        "aau_boards_silent_wrong": aau["boards_silent_wrong"],
        "phone_tiles_right": phone["both"],
        "phone_tiles_right_published": phone["published"]["both"],
        "duel_tiles_right": duel["tiles"]["both"],
        "duel_game1_squares_right": duel["game1"]["right"],
        "duel_game1_squares": duel["game1"]["squares"],
    }
    result: dict[str, Any] = {
        "summary": summary,
        "folds": folds,
        "seed": seed,
        "aau": aau,
        "phone": phone,
        "duel": duel,
    }
    if confirmed:
        mine = sources == datasets.CONFIRMED_SOURCE
        without, _ = held_out_proba(
            features, crop_groups, folds, seed=seed, train=~features_of(features, mine), log=log
        )
        before = _aau_figures(boards, without[sources == "aau"])
        result["without_confirmed"] = {
            "aau_squares_right": before["decoded"]["both"],
            "aau_boards_exact_score": before["boards_exact_score"],
            "phone_tiles_right": _tile_figures(
                truth[sources == "phone"], without[sources == "phone"]
            )["both"],
        }
        alone = confirmed_figures(confirmed, proba[mine], without[mine])
        result["confirmed"] = alone
        summary["confirmed_squares_right"] = alone["with"]["both"]
        summary["confirmed_squares_right_without"] = alone["without"]["both"]
        summary["confirmed_read_right_at_the_table"] = alone["read_right"]
    return result


def features_of(features: FeatureSet, crops: np.ndarray) -> np.ndarray:
    """The feature rows of the chosen crops (``crops``: one boolean per crop); the rows of
    the synthetic scenes (``origin`` -1) belong to no crop."""
    return np.asarray((features.origin >= 0) & crops[np.maximum(features.origin, 0)], bool)


def held_out_proba(
    features: FeatureSet,
    crop_groups: np.ndarray,
    folds: int,
    *,
    seed: int = 0,
    train: np.ndarray | None = None,
    log: Any = None,
    **params: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Each crop's probabilities from a model that never saw its group, by grouped folds.

    Parameters
    ----------
    features : FeatureSet
        Every row; a fold trains on the rows outside its held-out groups.
    crop_groups : numpy.ndarray
        The group of each crop (``features.origin`` indexes it).
    folds : int
        Folds of :class:`sklearn.model_selection.GroupKFold`.
    train : numpy.ndarray, optional
        One boolean per row: the rows a fold may train on (all, when omitted).
    **params
        Passed to :func:`scorer.lab.train.fit_model`.

    Returns
    -------
    proba : numpy.ndarray
        ``crops × len(TOKENS)`` probabilities.
    fold : numpy.ndarray
        The fold that predicted each crop.
    """
    n_crops = len(crop_groups)
    proba = np.zeros((n_crops, len(TOKENS)))
    fold_of = np.full(n_crops, -1)
    allowed = np.ones(len(features.y), bool) if train is None else train
    for k, (_, test_idx) in enumerate(
        GroupKFold(n_splits=folds).split(np.zeros(n_crops), groups=crop_groups)
    ):
        held = np.isin(features.groups, list(set(crop_groups[test_idx])))
        model = fit_model(features.select(~held & allowed), seed=seed, **params)
        rows = features.select(held & features.original)
        proba[rows.origin] = model.expand_proba(model.predict_proba(rows.X))
        fold_of[rows.origin] = k
        if log is not None:
            log(f"fold {k + 1}/{folds} done")
    return proba, fold_of


def confirmed_figures(
    confirmed: Sequence[datasets.ConfirmedSquares], with_: np.ndarray, without: np.ndarray
) -> dict[str, Any]:
    """Figures on the confirmed squares alone, held out by photo: read by a model trained
    with the other photos' confirmed squares and without any; on the squares the players
    corrected; and the share the program read right at the table (not corrected)."""
    truth = np.array([t.cell.token for c in confirmed for t in c.tiles])
    corrected = np.concatenate([c.corrected for c in confirmed])
    figures: dict[str, Any] = {
        "photos": len({t.group for c in confirmed for t in c.tiles}),
        "squares": len(truth),
        "corrected": int(corrected.sum()),
        "read_right": float(1 - corrected.mean()) if len(truth) else 0.0,
        "with": _tile_figures(truth, with_),
        "without": _tile_figures(truth, without),
    }
    for name, proba in (("with", with_), ("without", without)):
        predicted = np.array([TOKENS[i] for i in proba.argmax(axis=1)])
        right = predicted[corrected] == truth[corrected]
        figures[name]["corrected_right"] = float(right.mean()) if len(right) else None
    return figures


def format_report(result: dict[str, Any]) -> str:
    """The figures as a Markdown report."""
    s, aau, phone, duel = result["summary"], result["aau"], result["phone"], result["duel"]
    lines = [
        "# Square classifier: held-out figures",
        "",
        "Measured by `python -m scorer.evaluate` "
        f"({result['folds']}-fold grouped cross-validation, seed {result['seed']}, "
        f"{result.get('seconds', '?')} s). No figure is measured on data the model was trained on.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| aau-boards squares fully right (terrain and crowns, decoded) | {_pct(s['aau_squares_right'])} |",  # noqa: E501
        f"| aau-boards terrain right | {_pct(s['aau_terrain_right'])} |",
        f"| aau-boards crowns right | {_pct(s['aau_crowns_right'])} |",
        f"| aau-boards boards with the exact property score | {_pct(s['aau_boards_exact_score'])} |",  # noqa: E501
        f"| aau-boards boards with every square right | {_pct(s['aau_boards_exact_grid'])} |",
        "| aau-boards boards whose score is wrong silently (a wrong square not flagged) | "
        f"{s.get('aau_boards_silent_wrong', '?')} of {aau['boards']} |",
        f"| phone-tiles fully right (split by photo) | {_pct(s['phone_tiles_right'])} |",
        f"| phone-tiles fully right, against the folders as published | {_pct(s['phone_tiles_right_published'])} |",  # noqa: E501
        f"| mighty-duel tiles fully right (never trained on) | {_pct(s['duel_tiles_right'])} |",
        f"| mighty-duel game1 squares right | {s['duel_game1_squares_right']}/{s['duel_game1_squares']} |",  # noqa: E501
        "",
        "## (a) aau-boards, grouped by kingdom",
        "",
        f"{aau['boards']} boards, {aau['squares']} squares. Before tile-set decoding "
        f"(arg-max of each square): both {_pct(aau['raw']['both'])}, terrain "
        f"{_pct(aau['raw']['terrain'])}, crowns {_pct(aau['raw']['crowns'])}. After decoding: "
        f"both {_pct(aau['decoded']['both'])}.",
        "",
        "Confusion matrix after decoding (rows: truth, columns: prediction; zeros shown as ·):",
        "",
        *_confusion_table(aau["confusion"]),
        "",
        "Wrong squares: " + (", ".join(aau["mistakes"]) if aau["mistakes"] else "none"),
        "",
        f"Squares flagged for the player to check (confidence under {DOUBT_THRESHOLD} or "
        f"changed by decoding): {_pct(aau['flagged'])} of all squares, "
        f"{aau['wrong_flagged']} of the {len(aau['mistakes'])} wrong ones.",
        "",
        "## (b) phone-tiles, grouped by photo",
        "",
        f"{phone['squares']} crops: both {_pct(phone['both'])}, terrain {_pct(phone['terrain'])}, "
        f"crowns {_pct(phone['crowns'])}.",
        "",
        f"Truth is the audited label: {phone['relabelled']} crops whose folder is plainly wrong "
        "are relabelled (`PHONE_LABEL_FIXES` in `scorer/lab/datasets.py` lists each "
        "with the reason). "
        "Against the folders as published: both "
        f"{_pct(phone['published']['both'])}, terrain {_pct(phone['published']['terrain'])}, "
        f"crowns {_pct(phone['published']['crowns'])}.",
        "",
        "Confusion matrix against the audited labels (rows: truth, columns: prediction; "
        "zeros shown as ·):",
        "",
        *_confusion_table(phone["confusion"]),
        "",
        "## (c) Mighty Duel, model trained without Mighty Duel data",
        "",
        f"Tiles: {duel['tiles']['squares']} crops: both {_pct(duel['tiles']['both'])}, terrain "
        f"{_pct(duel['tiles']['terrain'])}, crowns {_pct(duel['tiles']['crowns'])}.",
        "",
        f"game1 board (7×7): {duel['game1']['right']}/{duel['game1']['squares']} squares right "
        f"(best of four turns: {duel['game1']['best_rotation_right']}). Wrong: "
        + (", ".join(duel["game1"]["mistakes"]) if duel["game1"]["mistakes"] else "none"),
        "",
    ]
    if "confirmed" in result:
        lines += _confirmed_lines(result)
    return "\n".join(lines)


def _confirmed_lines(result: dict[str, Any]) -> list[str]:
    """The report's section on the kingdoms players confirmed."""
    c, before = result["confirmed"], result["without_confirmed"]
    s = result["summary"]

    def corrected(figures: dict[str, Any]) -> str:
        value = figures["corrected_right"]
        return "–" if value is None else _pct(value)

    return [
        "## (d) Kingdoms players confirmed, held out by photo",
        "",
        f"{c['squares']} squares from {c['photos']} photos, {c['corrected']} of them corrected "
        f"by the players. Read right at the table (not corrected): {_pct(c['read_right'])}.",
        "",
        "| measure | without them | with them |",
        "|---|---|---|",
        f"| confirmed squares fully right | {_pct(c['without']['both'])} | "
        f"{_pct(c['with']['both'])} |",
        f"| squares the players corrected, now right | {corrected(c['without'])} | "
        f"{corrected(c['with'])} |",
        f"| aau-boards squares fully right (decoded) | {_pct(before['aau_squares_right'])} | "
        f"{_pct(s['aau_squares_right'])} |",
        f"| aau-boards boards with the exact property score | "
        f"{_pct(before['aau_boards_exact_score'])} | {_pct(s['aau_boards_exact_score'])} |",
        f"| phone-tiles fully right | {_pct(before['phone_tiles_right'])} | "
        f"{_pct(s['phone_tiles_right'])} |",
        "",
    ]


def _aau_figures(boards: Sequence[datasets.Board], proba: np.ndarray) -> dict[str, Any]:
    decoded_tokens: list[str] = []
    truth_tokens: list[str] = []
    exact_score = exact_grid = 0
    mistakes = []
    offset = flagged = wrong_flagged = silent_wrong = 0
    for board in boards:
        rows, cols = board.kingdom.shape
        p = proba[offset : offset + rows * cols]
        offset += rows * cols
        kingdom, confidence = decode(p, ALL_CELLS, (rows, cols))
        doubtful = doubtful_squares(kingdom, confidence, p.reshape(rows, cols, -1))
        flagged += len(doubtful)
        right_score = property_points(kingdom) == property_points(board.kingdom)
        exact_score += right_score
        exact_grid += kingdom == board.kingdom
        unflagged = False
        for (pos, true), (_, got) in zip(board.kingdom.cells(), kingdom.cells(), strict=True):
            truth_tokens.append(true.token)
            decoded_tokens.append(got.token)
            if true != got:
                mistakes.append(f"board {board.name} {pos}: {true.token}→{got.token}")
                wrong_flagged += pos in doubtful
                unflagged |= pos not in doubtful
        silent_wrong += not right_score and unflagged
    raw_tokens = [TOKENS[i] for i in proba.argmax(axis=1)]
    return {
        "boards": len(boards),
        "squares": len(truth_tokens),
        "raw": _accuracies(truth_tokens, raw_tokens),
        "decoded": _accuracies(truth_tokens, decoded_tokens),
        "boards_exact_score": exact_score / len(boards),
        "boards_exact_grid": exact_grid / len(boards),
        "confusion": _confusion(truth_tokens, decoded_tokens),
        "mistakes": mistakes,
        "flagged": flagged / max(len(truth_tokens), 1),
        "wrong_flagged": wrong_flagged,
        "boards_silent_wrong": silent_wrong,
    }


def _tile_figures(truth: np.ndarray, proba: np.ndarray) -> dict[str, Any]:
    predicted = [TOKENS[i] for i in proba.argmax(axis=1)]
    return {
        "squares": len(truth),
        **_accuracies(list(truth), predicted),
        "confusion": _confusion(list(truth), predicted),
    }


def _duel_figures(root: Path, aau_phone: FeatureSet, seed: int, jobs: int) -> dict[str, Any]:
    model = fit_model(aau_phone, seed=seed)
    duel_tiles = datasets.load_duel_tiles(root)
    duel = featurize(duel_tiles, views=0, seed=seed, jobs=jobs)
    duel = duel.select(duel.original)
    tiles = _tile_figures(duel.y, model.expand_proba(model.predict_proba(duel.X)))
    boards = {b.name: b for b in datasets.load_duel_boards(root)}
    game1 = boards["game1"]
    shape = game1.kingdom.shape
    kingdom = _classify(model, game1.image, shape)
    right = _agreement(kingdom, game1.kingdom)
    best = 0
    turned = kingdom
    for _ in range(4):
        if turned.shape == game1.kingdom.shape:
            best = max(best, _agreement(turned, game1.kingdom))
        turned = turned.rotate()
    mistakes = [
        f"{pos}: {a.token}→{b.token}"
        for (pos, a), (_, b) in zip(game1.kingdom.cells(), kingdom.cells(), strict=True)
        if a != b
    ]
    return {
        "tiles": tiles,
        "game1": {
            "squares": shape[0] * shape[1],
            "right": right,
            "best_rotation_right": best,
            "mistakes": mistakes,
            "predicted": kingdom.format(),
        },
    }


def _agreement(a: Kingdom, b: Kingdom) -> int:
    return sum(x == y for (_, x), (_, y) in zip(a.cells(), b.cells(), strict=True))


def _classify(model: CellClassifier, image: np.ndarray, shape: tuple[int, int]) -> Kingdom:
    proba = model.predict_cell_proba(split_cells(image, shape))
    kingdom, _ = decode(proba, ALL_CELLS, shape)
    return kingdom


def _accuracies(truth: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    pairs = [(_parts(t), _parts(p)) for t, p in zip(truth, predicted, strict=True)]
    n = max(len(pairs), 1)
    return {
        "both": sum(t == p for t, p in pairs) / n,
        "terrain": sum(t[0] == p[0] for t, p in pairs) / n,
        "crowns": sum(t[1] == p[1] for t, p in pairs) / n,
    }


def _parts(token: str) -> tuple[str, int]:
    cell = ALL_CELLS[TOKENS.index(token)]
    return (cell.terrain.value, cell.crowns if cell.terrain != Terrain.EMPTY else 0)


def _confusion(truth: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    matrix = np.zeros((len(TOKENS), len(TOKENS)), int)
    for t, p in zip(truth, predicted, strict=True):
        matrix[TOKENS.index(t), TOKENS.index(p)] += 1
    return {"labels": list(TOKENS), "counts": matrix.tolist()}


def _confusion_table(confusion: dict[str, Any]) -> list[str]:
    labels = confusion["labels"]
    counts = confusion["counts"]
    lines = ["| truth \\ predicted | " + " | ".join(labels) + " |"]
    lines.append("|---" * (len(labels) + 1) + "|")
    for label, row in zip(labels, counts, strict=True):
        lines.append(f"| **{label}** | " + " | ".join(str(v) if v else "·" for v in row) + " |")
    return lines


def _pct(value: float) -> str:
    return f"{100 * value:.2f}%"


def _progress() -> Any:
    start = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - start:6.0f} s] {message}", file=sys.stderr, flush=True)

    return log


if __name__ == "__main__":
    raise SystemExit(main())
