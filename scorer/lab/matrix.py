"""The condition matrix: held-out kingdoms photographed under each hard condition.

``python -m scorer.evaluate_photos --matrix`` lays each of a few held-out ``aau``
kingdoms (never seen by the classifier that reads it) into one synthetic photo per
condition of :data:`scorer.lab.synth.CONDITIONS`, runs the whole pipeline
(:func:`scorer.pipeline.score_photo`) and prints one row per condition: kingdoms
found, right grid, squares right, kingdoms exact, wrong totals that were flagged,
wrong totals that were **silent**, and seconds per photo.

The classifiers are the two fold classifiers of
:func:`scorer.lab.evaluate_photos.held_out_folds`, cached on disk (keyed by the data
and the training settings) so that a second run does not train again.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import inspect
import json
import os
import pickle
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from scorer.detect.params import DEFAULT as DETECT_DEFAULT
from scorer.detect.params import DetectParams, with_overrides
from scorer.lab.datasets import Board, data_dir, load_aau_boards
from scorer.lab.matching import match_kingdoms
from scorer.lab.scene_conditions import CONDITIONS
from scorer.lab.synth import Scene, add_removal_option, make_scene
from scorer.pipeline import score_photo
from scorer.read.classify import CellClassifier, load_model, save_model
from scorer.read.params import DEFAULT as READ_DEFAULT
from scorer.read.params import ReadParams
from scorer.results.photo import KingdomReport
from scorer.rules.errors import BoardNotFoundError
from scorer.rules.kingdom import Kingdom, Position
from scorer.rules.scoring import score

Params = tuple[DetectParams, ReadParams]
"""The tuned values of detection and of reading that a matrix run reads with."""

CACHE_DIR: Final = Path("/tmp/kingdomino-fold-models")
"""Where the trained fold classifiers are kept between runs."""

SCENE_CACHE: Final = Path("/tmp/kingdomino-matrix-scenes")
"""Where the generated scenes are kept between runs, keyed by the generator's source."""

_REPO = Path(__file__).resolve().parents[2]


# --- fold classifiers, cached ------------------------------------------------------------------


def fold_cache_key(root: Path) -> str:
    """A digest of everything the fold classifiers depend on.

    The files of the ``aau-boards`` and ``phone-tiles`` folders (each name and the
    sha256 of its bytes, about 40 MB read in about a second; not their modification
    times, which change whenever the data is copied), the training settings and recipe
    (the constants and the source of the augmentation, feature, scene and fitting
    functions of :mod:`scorer.lab.train`, :mod:`scorer.lab.fit`, and of
    :func:`scorer.lab.evaluate_photos.held_out_folds`), the feature version and the
    visual vocabulary. Edits elsewhere in those modules leave the key alone.
    """
    from scorer.lab import evaluate_photos, fit, train
    from scorer.read.cells import FEATURE_VERSION, words_resource

    h = hashlib.sha256()
    for folder in ("aau-boards", "phone-tiles"):
        base = root / folder
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath) / name
                rel = path.relative_to(root)
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                h.update(f"{rel}\0{digest}\n".encode())
    recipe = [getattr(train, name, None) for name in _TRAIN_RECIPE]
    recipe += [evaluate_photos.held_out_folds, fit]
    for part in recipe:
        if callable(part) or inspect.ismodule(part):
            h.update(inspect.getsource(part).encode())
        else:
            h.update(repr(part).encode())
    h.update(json.dumps(train.MODEL_PARAMS, sort_keys=True).encode())
    h.update(f"{FEATURE_VERSION}".encode())
    h.update(words_resource().read_bytes())
    return h.hexdigest()[:16]


_TRAIN_RECIPE: Final = (
    "JITTERED_VIEWS",
    "SCENES",
    "SCENE_SEED",
    "MEMBERS",
    "BLEND_WEIGHT",
    "OVEREXPOSED_SHARE",
    "OVEREXPOSURE",
    "CAST_SHARE",
    "CAST",
    "DIM_SHARE",
    "DIM",
    "SHADOW_SHARE",
    "SHADOW",
    "SHADOW_CAST",
    "SMEAR_SHARE",
    "SMEAR",
    "HUE_SHIFT",
    "PHOTO_SIDES",
    "collect_tiles",
    "featurize",
    "training_features",
    "scene_features",
    "fit_model",
    "augment",
    "_overexposed",
    "_in_other_light",
    "_dim",
    "_smeared",
    "smear",
    "_photo_camera",
    "_tilt",
    "_photo_light",
    "_featurize_chunk",
)
"""What of :mod:`scorer.lab.train` the fold classifiers are trained with."""


def fold_classifiers(
    root: Path, boards: Sequence[Board], jobs: int = 2, cache: Path = CACHE_DIR
) -> list[tuple[list[Board], CellClassifier]]:
    """The two held-out fold classifiers with the boards each never saw.

    Trained by :func:`scorer.lab.evaluate_photos.held_out_folds` the first time, then
    read back from ``cache`` under :func:`fold_cache_key`.
    """
    folder = cache / fold_cache_key(root)
    names = folder / "boards.json"
    if names.exists():
        try:
            held = json.loads(names.read_text(encoding="utf-8"))
            by_name = {b.name: b for b in boards}
            return [
                ([by_name[n] for n in held[f]], load_model(folder / f"fold{f}"))
                for f in range(len(held))
            ]
        except (KeyError, OSError, ValueError) as err:
            print(f"note: fold cache unusable ({err}); training again", file=sys.stderr)
    from scorer.lab.evaluate_photos import held_out_folds

    started = time.perf_counter()
    folds = held_out_folds(root, boards, jobs)
    for f, (_, reader) in enumerate(folds):
        save_model(reader.model, folder / f"fold{f}", {"fold": f, "key": folder.name})
    held = [[b.name for b in fold_boards] for fold_boards, _ in folds]
    names.write_text(json.dumps(held), encoding="utf-8")
    print(
        f"trained the fold classifiers in {time.perf_counter() - started:.0f} s; "
        f"cached in {folder}",
        file=sys.stderr,
    )
    return [(fold_boards, reader.model) for fold_boards, reader in folds]


# --- judging one kingdom ------------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """What the pipeline said about one kingdom: the grid read, the squares it pointed
    the player at, and whether it stood behind the total."""

    kingdom: Kingdom
    flagged: frozenset[Position]
    confirmed: bool


@dataclass(frozen=True)
class Outcome:
    """How one true kingdom came out of one photo.

    Attributes
    ----------
    found, shape_ok, exact : bool
        Matched to a kingdom read; with the right grid; every square right too.
    squares, squares_right : int
        The true kingdom's squares, and those read right (none without the right grid).
    total_wrong, flagged, silent : bool
        The total read differs from the true one; if so, whether the player was pointed
        at what is wrong (the kingdom unconfirmed and every wrong square flagged; with a
        wrong grid, unconfirmed), or not: silent.
    hidden, hidden_flagged : int
        Squares glare or a hand hides, and how many of them were flagged.
    others, others_right : int
        The squares not hidden, and how many of them were read right.
    cut, unconfirmed : bool
        The photo's edge cuts the kingdom; whether no total was confirmed for it (a kingdom
        not found is unconfirmed).
    seconds : float
        Time of the whole pipeline on the photo.
    detail : str
        For a wrong total, what was read wrong (:func:`wrong_detail`); else empty.
    """

    found: bool
    shape_ok: bool
    exact: bool
    squares: int
    squares_right: int
    total_wrong: bool
    flagged: bool
    silent: bool
    hidden: int = 0
    hidden_flagged: int = 0
    others: int = 0
    others_right: int = 0
    cut: bool = False
    unconfirmed: bool = False
    seconds: float = 0.0
    detail: str = ""


def aligned(
    found: Kingdom, truth: Kingdom, flagged: frozenset[Position]
) -> tuple[Kingdom, frozenset[Position]] | None:
    """``found`` turned (with its flags) to the one of its four turns that matches ``truth``
    best, or None when no turn has ``truth``'s shape.

    >>> a = Kingdom.parse("C F0")
    >>> k, f = aligned(Kingdom.parse("C\\nF0"), a, frozenset({(1, 0)}))
    >>> k == Kingdom.parse("F0 C"), sorted(f)
    (False, [(0, 1)])
    """
    best: tuple[int, Kingdom, frozenset[Position]] | None = None
    flags = np.zeros(found.shape, bool)
    for pos in flagged:
        if 0 <= pos[0] < found.height and 0 <= pos[1] < found.width:
            flags[pos] = True
    for _ in range(4):
        if found.shape == truth.shape:
            right = sum(found[p] == cell for p, cell in truth.cells())
            if best is None or right > best[0]:
                marks = frozenset((int(r), int(c)) for r, c in zip(*np.nonzero(flags), strict=True))
                best = (right, found, marks)
        found, flags = found.rotate(), np.rot90(flags, -1)
    return None if best is None else (best[1], best[2])


def judge(
    truth: Kingdom,
    read: Read | None,
    *,
    hidden: frozenset[Position] = frozenset(),
    cut: bool = False,
    seconds: float = 0.0,
) -> Outcome:
    """Judge one true kingdom against what was read for it (None: nothing was).

    Parameters
    ----------
    truth : Kingdom
        The true labels.
    read : Read, optional
        The kingdom read over it, if one was found there.
    hidden : frozenset of Position
        Squares of ``truth`` that glare or a hand hides.
    cut : bool
        Whether the photo's edge cuts the kingdom.
    seconds : float
        Time of the pipeline on the photo.

    Examples
    --------
    >>> truth = Kingdom.parse("F1 F0 C")
    >>> wrong = Kingdom.parse("F0 F0 C")
    >>> judge(truth, Read(wrong, frozenset(), confirmed=True)).silent
    True
    >>> judge(truth, Read(wrong, frozenset({(0, 0)}), confirmed=False)).flagged
    True
    """
    squares = truth.height * truth.width
    others = squares - len(hidden)
    if read is None:
        return Outcome(
            False, False, False, squares, 0, True, False, False,
            hidden=len(hidden), others=others, cut=cut, unconfirmed=True, seconds=seconds,
        )  # fmt: skip
    turned = aligned(read.kingdom, truth, read.flagged)
    total_wrong = score(read.kingdom).total != score(truth).total
    right = hidden_flagged = others_right = 0
    all_flagged = not read.confirmed
    if turned is not None:
        kingdom, flags = turned
        wrong = {p for p, cell in truth.cells() if kingdom[p] != cell}
        right = squares - len(wrong)
        hidden_flagged = len(hidden & flags)
        others_right = sum(1 for p, _ in truth.cells() if p not in hidden and p not in wrong)
        all_flagged = all_flagged and wrong <= flags
    flagged = total_wrong and all_flagged
    return Outcome(
        found=True,
        shape_ok=turned is not None,
        exact=turned is not None and right == squares,
        squares=squares,
        squares_right=right,
        total_wrong=total_wrong,
        flagged=flagged,
        silent=total_wrong and not flagged,
        hidden=len(hidden),
        hidden_flagged=hidden_flagged,
        others=others,
        others_right=others_right,
        cut=cut,
        unconfirmed=not read.confirmed,
        seconds=seconds,
    )


# --- one photo -------------------------------------------------------------------------------


def read_of(report: KingdomReport) -> Read:
    """The :class:`Read` of a pipeline report: its grid, its flagged squares (doubtful or
    unreadable) and its verdict."""
    prediction = report.prediction
    flagged = set(prediction.doubtful)
    for item in getattr(prediction, "unreadable", ()):
        pos = getattr(item, "position", getattr(item, "pos", None))
        if pos is not None:
            flagged.add(tuple(pos))
    return Read(prediction.kingdom, frozenset(flagged), report.confirmed)


def evaluate_photo(
    scene: Scene, model: CellClassifier, params: Params = (DETECT_DEFAULT, READ_DEFAULT)
) -> tuple[list[Outcome], int]:
    """Run the pipeline on a scene (with the tuned values ``params``); judge each true
    kingdom, and count the phantoms: confirmed kingdoms read where there is none."""
    started = time.perf_counter()
    detect, reading = params
    try:
        reports = list(
            score_photo(
                scene.image, model=model, detect_params=detect, read_params=reading
            ).kingdoms
        )
    except BoardNotFoundError:
        reports = []
    seconds = time.perf_counter() - started
    match = match_kingdoms([r.location for r in reports], scene.kingdoms)
    outcomes = []
    used = set()
    for truth, (index, error) in zip(scene.kingdoms, match, strict=True):
        near = CUT_OVERLAP if truth.cut else FOUND_ERROR
        read = None
        if index is not None and error < near:
            read = read_of(reports[index])
            used.add(index)
        outcome = judge(truth.kingdom, read, hidden=truth.hidden, cut=truth.cut, seconds=seconds)
        if outcome.total_wrong:
            report = reports[index] if read is not None and index is not None else None
            outcome = replace(outcome, detail=wrong_detail(truth.kingdom, read, report))
        outcomes.append(outcome)
    phantoms = sum(1 for i, r in enumerate(reports) if i not in used and r.confirmed)
    return outcomes, phantoms


def wrong_detail(truth: Kingdom, read: Read | None, report: KingdomReport | None) -> str:
    """What was read wrong in a kingdom: each wrong square as ``(row, col):TRUE->READ``,
    ``(f)`` where it was flagged, the totals, and the verdict with its first reasons.

    >>> read = Read(Kingdom.parse("F0 F0 C"), frozenset({(0, 0)}), confirmed=False)
    >>> wrong_detail(Kingdom.parse("F1 F0 C"), read, None)
    '(0, 0):F1->F0(f) | total 0, true 2; unconfirmed'
    """
    if read is None:
        return "not found"
    turned = aligned(read.kingdom, truth, read.flagged)
    if turned is None:
        squares = (
            f"grid {read.kingdom.height}×{read.kingdom.width}, true {truth.height}×{truth.width}"
        )
    else:
        kingdom, flags = turned
        squares = " ".join(
            f"{p}:{cell.token}->{kingdom[p].token}{'(f)' if p in flags else ''}"
            for p, cell in truth.cells()
            if kingdom[p] != cell
        )
    verdict = "confirmed" if read.confirmed else "unconfirmed"
    reasons = "; ".join(list(report.reasons)[:2]) if report is not None else ""
    totals = f"total {score(read.kingdom).total}, true {score(truth).total}"
    return f"{squares} | {totals}; {verdict}" + (f" ({reasons})" if reasons else "")


# --- the matrix ------------------------------------------------------------------------------


@dataclass
class Row:
    """The figures of one condition over its kingdoms."""

    condition: str
    outcomes: list[Outcome] = field(default_factory=list)
    photos: int = 0
    phantoms: int = 0
    seconds: float = 0.0

    def add(self, outcomes: Sequence[Outcome], phantoms: int) -> None:
        """Count one photo's kingdoms and phantoms."""
        self.outcomes.extend(outcomes)
        self.photos += 1
        self.phantoms += phantoms
        self.seconds += outcomes[0].seconds if outcomes else 0.0

    def cells(self) -> dict[str, str]:
        """The row's cells, by column title (:data:`COLUMNS`)."""
        o = self.outcomes
        n = len(o)
        squares = sum(x.squares for x in o)
        hidden = sum(x.hidden for x in o)
        cut = [x for x in o if x.cut]
        checks = []
        if hidden:
            others = sum(x.others for x in o)
            checks.append(
                f"hidden flagged {sum(x.hidden_flagged for x in o)}/{hidden}; "
                f"others right {_pct(sum(x.others_right for x in o), others)}"
            )
        if cut:
            checks.append(f"cut kingdom unconfirmed {sum(x.unconfirmed for x in cut)}/{len(cut)}")
        if self.phantoms:
            checks.append(f"{self.phantoms} confirmed kingdom(s) where there is none")
        return {
            "condition": self.condition,
            "found": f"{sum(x.found for x in o)}/{n}",
            "right shape": f"{sum(x.shape_ok for x in o)}/{n}",
            "squares right": _pct(sum(x.squares_right for x in o), squares),
            "kingdoms exact": f"{sum(x.exact for x in o)}/{n}",
            "flagged wrong": str(sum(x.flagged for x in o)),
            "SILENT WRONG": str(sum(x.silent for x in o) + self.phantoms),
            "right, unconfirmed": str(
                sum(x.found and not x.total_wrong and x.unconfirmed and not x.cut for x in o)
            ),
            "s/photo": f"{self.seconds / max(self.photos, 1):.2f}",
            "checks": "; ".join(checks) or "–",
        }


COLUMNS: Final = (
    "condition",
    "found",
    "right shape",
    "squares right",
    "kingdoms exact",
    "flagged wrong",
    "SILENT WRONG",
    "right, unconfirmed",
    "s/photo",
    "checks",
)
"""The matrix's columns."""

FOUND_ERROR: Final = 0.05
"""A kingdom is found when its mean corner error is under this share of its side
(as in :mod:`scorer.lab.evaluate_photos`)."""

CUT_OVERLAP: Final = 0.5
"""A kingdom read counts as the cut kingdom's reading when its corners lie within this share
of the kingdom's side (the visible part's outline lies far from the true corners)."""


def format_table(rows: Sequence[Row]) -> str:
    """The matrix as a Markdown table, with a total row over every condition."""
    total = Row("all conditions")
    for row in rows:
        total.outcomes.extend(row.outcomes)
        total.photos += row.photos
        total.phantoms += row.phantoms
        total.seconds += row.seconds
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in [*rows, total]:
        cells = row.cells()
        lines.append("| " + " | ".join(cells[c] for c in COLUMNS) + " |")
    return "\n".join(lines)


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def held_out_kingdoms(
    folds: Sequence[tuple[Sequence[Board], CellClassifier]], count: int
) -> list[tuple[int, Board, Board]]:
    """``count`` held-out kingdoms: (fold, board, a partner board of the same fold).

    One board per kingdom, taken from the two folds in turn, so each is read by the
    classifier that never saw it; the partner is the second kingdom of two-kingdom scenes.
    """
    per_fold: list[list[Board]] = []
    for boards, _ in folds:
        first: dict[str, Board] = {}
        for b in sorted(boards, key=lambda b: b.name):
            first.setdefault(b.group, b)
        per_fold.append([first[g] for g in sorted(first)])
    picked = []
    for i in range(count):
        f = i % len(per_fold)
        kingdoms = per_fold[f]
        j = i // len(per_fold)
        if j >= len(kingdoms):
            break
        picked.append((f, kingdoms[j], kingdoms[(j + 1) % len(kingdoms)]))
    return picked


# worker state: the fold classifiers, loaded once per process, and the tuned values
_MODELS: list[CellClassifier] = []
_PARAMS: list[Params] = []


def _load_models(folders: Sequence[str], params: Params) -> None:
    _MODELS[:] = [load_model(f) for f in folders]
    _PARAMS[:] = [params]


def _run_one(
    task: tuple[str, int, int, Board, Board, bool],
) -> tuple[str, list[Outcome], int]:
    name, seed, fold, board, partner, whole = task
    scene = cached_scene(name, seed, board, partner, whole_dominoes=whole)
    outcomes, phantoms = evaluate_photo(scene, _MODELS[fold], _PARAMS[0])
    return name, outcomes, phantoms


def cached_scene(
    name: str, seed: int, board: Board, partner: Board, *, whole_dominoes: bool = True
) -> Scene:
    """The scene of a condition for a kingdom, generated once and then read back from
    :data:`SCENE_CACHE` (keyed by the source of the scene generator); an incomplete kingdom
    loses whole dominoes unless ``whole_dominoes`` is off (single squares)."""
    from scorer.lab import scene_conditions, synth

    digest = hashlib.sha256()
    for module in (synth, scene_conditions):
        digest.update(inspect.getsource(module).encode())
    single = "" if whole_dominoes else "-single"
    path = (
        SCENE_CACHE
        / digest.hexdigest()[:16]
        / f"{name}-{seed}-{board.name}-{partner.name}{single}.pkl"
    )
    if path.exists():
        try:
            with path.open("rb") as f:
                png, rest = pickle.load(f)
            image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
            return Scene(np.asarray(image, np.uint8), *rest)
        except (OSError, ValueError, pickle.UnpicklingError, EOFError):
            pass
    scene = make_scene(
        seed, [board, partner], condition=CONDITIONS[name], whole_dominoes=whole_dominoes
    )
    ok, png = cv2.imencode(".png", scene.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if ok:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.tmp")
        rest = (scene.kingdoms, scene.background, scene.seed, scene.condition)
        with part.open("wb") as f:
            pickle.dump((png.tobytes(), rest), f)
        part.replace(path)
    return scene


def run_matrix(
    root: Path,
    conditions: Sequence[str],
    kingdoms: int = 17,
    seed: int = 5000,
    jobs: int = 1,
    cache: Path = CACHE_DIR,
    params: Params = (DETECT_DEFAULT, READ_DEFAULT),
    whole_dominoes: bool = True,
) -> list[Row]:
    """Photograph ``kingdoms`` held-out kingdoms under each condition and judge the readings
    made with the tuned values ``params`` (detection's and reading's); incomplete kingdoms
    lose whole dominoes, or single squares with ``whole_dominoes`` off.

    Kingdom ``i`` is photographed with seed ``seed + i`` under every condition.
    """
    boards = load_aau_boards(root)
    folds = fold_classifiers(root, boards, jobs=max(jobs, 1), cache=cache)
    folder = cache / fold_cache_key(root)
    folders = [str(folder / f"fold{f}") for f in range(len(folds))]
    picked = held_out_kingdoms(folds, kingdoms)
    tasks = [
        (name, seed + i, f, board, partner, whole_dominoes)
        for name in conditions
        for i, (f, board, partner) in enumerate(picked)
    ]
    rows = {name: Row(name) for name in conditions}

    def add(name: str, outcomes: list[Outcome], phantoms: int) -> None:
        rows[name].add(outcomes, phantoms)
        if rows[name].photos == len(picked):  # progress, for long runs
            print(f"{name}: {rows[name].cells()}", file=sys.stderr, flush=True)

    if jobs > 1:
        with ProcessPoolExecutor(
            jobs, initializer=_load_models, initargs=(folders, params)
        ) as pool:
            for result in pool.map(_run_one, tasks, chunksize=1):
                add(*result)
    else:
        _load_models(folders, params)
        for task in tasks:
            add(*_run_one(task))
    return [rows[name] for name in conditions]


def split_overrides(assignments: Sequence[str]) -> Params:
    """Detection's and reading's tuned values with ``assignments`` applied: those named
    ``read.FIELD=VALUE`` to :class:`~scorer.read.params.ReadParams`, the others
    (``GROUP.FIELD=VALUE``) to :class:`~scorer.detect.params.DetectParams`.

    >>> detect, read = split_overrides(["read.red_cast=0.2", "work.side=900"])
    >>> read.red_cast, detect.work.side
    (0.2, 900)
    """
    reading = [a.removeprefix("read.") for a in assignments if a.startswith("read.")]
    detecting = [a for a in assignments if not a.startswith("read.")]
    return with_overrides(DETECT_DEFAULT, detecting), with_overrides(
        READ_DEFAULT, reading, "the reading parameters"
    )


def matrix_main(argv: Sequence[str] | None = None) -> int:
    """``python -m scorer.evaluate_photos --matrix``: print (and write) the condition matrix."""
    p = argparse.ArgumentParser(prog="python -m scorer.evaluate_photos --matrix")
    p.add_argument("--matrix", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--conditions",
        default=",".join(CONDITIONS),
        help="conditions to run, comma-separated (default: all): " + ", ".join(CONDITIONS),
    )
    p.add_argument("--kingdoms", type=int, default=17, help="held-out kingdoms (default 17)")
    p.add_argument("--seed", type=int, default=5000, help="first scene seed (default 5000)")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--data", default=None, help="labelled data folder (default ../shared/data)")
    p.add_argument("--no-write", action="store_true", help="print only; write no report")
    add_removal_option(p)
    p.add_argument("--out", default=str(_REPO / "models" / "matrix_evaluation.md"))
    p.add_argument("--cache", default=str(CACHE_DIR), help="folder of the fold classifiers")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="GROUP.FIELD=VALUE",
        help="read with a tuned value changed: read.FIELD for reading (scorer.read.params), "
        "GROUP.FIELD for detection (scorer.detect.params); repeatable",
    )
    p.add_argument(
        "--details",
        action="store_true",
        help="also list every wrong total: the wrong squares, flags and verdict",
    )
    args = p.parse_args(argv)
    try:
        params = split_overrides(args.set)
    except ValueError as err:
        p.error(f"--set: {err}")
    names = [n.strip() for n in args.conditions.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONDITIONS]
    if unknown:
        p.error(f"unknown condition(s) {', '.join(unknown)}; known: {', '.join(CONDITIONS)}")
    started = time.perf_counter()
    rows = run_matrix(
        data_dir(args.data),
        names,
        args.kingdoms,
        args.seed,
        args.jobs,
        Path(args.cache),
        params,
        whole_dominoes=not args.single_squares,
    )
    elapsed = time.perf_counter() - started
    command = "python -m scorer.evaluate_photos --matrix " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a != "--matrix"
    )
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = "\n".join(
        [
            "# Condition matrix",
            "",
            f"Measured by `{command.strip()}` on {when}, in {elapsed:.0f} s.",
            "",
            format_table(rows),
            "",
            *[f"- {note}" for note in NOTES],
        ]
    )
    print(text)
    if args.details:
        print("\n## Wrong totals\n")
        for row in rows:
            for i, outcome in enumerate(row.outcomes):
                if outcome.total_wrong:
                    kind = "SILENT" if outcome.silent else "flagged"
                    print(f"- {row.condition} #{i} {kind}: {outcome.detail}")
    if not args.no_write:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
    return 0


NOTES: Final = (
    "Each row: the same held-out aau kingdoms (one board per kingdom, never seen by the "
    "fold classifier that reads it; scorer.lab.evaluate_photos.held_out_folds), each in one "
    "synthetic photo of the condition (scorer.lab.scene_conditions.CONDITIONS), read by the "
    "whole pipeline (scorer.pipeline.score_photo). Incomplete kingdoms lose their squares a "
    "whole domino at a time, as an unfinished real kingdom does.",
    "found: a kingdom read with its corners within 5% of the side of the true ones; exact: "
    "the right grid and every square right; squares right counts every square of every "
    "kingdom (a kingdom missed or read with the wrong grid counts wholly wrong).",
    "A wrong total is flagged only when the kingdom is unconfirmed and every wrong square is "
    "among the flagged (doubtful or unreadable) squares (with a wrong grid: unconfirmed); "
    "otherwise it is SILENT WRONG, as is a confirmed kingdom read where there is none. A "
    "kingdom not found is neither (the player sees it missing).",
    "Glare and hand: squares with at least 20% of their area washed out or covered are "
    "hidden; all must be flagged, the others read right. Cut by the frame: the kingdom must "
    "never be confirmed (refused or unconfirmed).",
    "right, unconfirmed: kingdoms read with the right total that still wait for the player "
    "to confirm them: the price of the caution.",
    "s/photo: the pipeline alone, on photos of about 1 MP (0.3 MP for mp_0.3, smaller when "
    "cropped), in processes sharing the machine; not a benchmark.",
)
"""How to read the matrix."""
