"""Train the square classifier on all labelled data and write ``models/``.

``python -m scorer.train`` reads the data folder (``--data``, else
``$KINGDOMINO_DATA``, else ``../shared/data``): every square of
``aau-boards/``, every crop of ``phone-tiles/`` (including the empty class of
table and background) and of ``mighty-duel/tiles/``. Each crop is seen as it
is and in two jittered copies (a random 90° turn, light, colour, blur, a few
pixels of seam drift); the second copy is also degraded as a phone photo
degrades a square (tilt, light gradient, a shadow, a smear, glare, a smaller size,
blur, noise, JPEG). The squares of :data:`SCENES` synthetic table photos built from
the ``aau-boards`` (:mod:`scorer.lab.synth`), cut through their true corners, are
added as they are: a square as the pipeline cuts it from a photo, with the
scene's light, perspective and camera. Training is seeded, so the same data
gives the same model, and a model that does not fit its own training crops is
refused rather than written. With ``--corrections DIR...``, the squares of the
kingdoms players confirmed (:mod:`scorer.confirmed`) are added like the phone crops,
grouped by source photo, and the metadata records how many (corrected ones too) and the
sha256 of each folder's bundle.

The helpers here (:func:`collect_tiles`, :func:`featurize`, :func:`fit_model`)
are shared with :mod:`scorer.lab.evaluate`, which uses them to train on folds; the
fitting itself is :mod:`scorer.lab.fit`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import sklearn

from scorer.confirmed import ConfirmedStore, ConfirmedStoreError, sha256
from scorer.detect import BoardLocation, rectify
from scorer.lab import datasets
from scorer.lab.datasets import Tile
from scorer.lab.fit import fit_cell_classifier, learn_visual_words
from scorer.lab.scene_conditions import smear
from scorer.lab.synth import degrade, make_scene
from scorer.read.cells import (
    FEATURE_SIZE,
    FEATURE_VERSION,
    VISUAL_WORDS,
    WORDS_FILE,
    cells_features,
    words_resource,
)
from scorer.read.classify import MODEL_DIR, CellClassifier, save_model

SOURCES: Final = ("aau", "phone", "duel")
"""The data sets: ``aau-boards``, ``phone-tiles`` and ``mighty-duel/tiles``."""

WORD_SOURCES: Final = ("aau",)
"""The crops whose SIFT descriptors make the visual vocabulary (without their labels)."""

JITTERED_VIEWS: Final = 2
"""Jittered copies of each crop (each in a random 90° turn) added to the crop as it is.

Nearly every feature is invariant to 90° turns, so the jittered copies turn at
random rather than each crop being seen in all four turns. Every other copy, from
the second on, is photo-like (see :func:`augment`): the square as a phone photo
shows it, between 20 and 100 pixels across, blurred, noisy and JPEG-compressed."""

SCENES: Final = 400
"""Synthetic table photos whose squares, cut through the true corners, are trained on.

Each square keeps its board's kingdom as its group, so a fold that holds a
kingdom out holds out its scene squares too."""

SCENE_SEED: Final = 100_000
"""First seed of the training scenes; every evaluation draws its scenes far below it."""

MEMBERS: Final = 2
"""Learners in the model, each fitted on the crops as they are plus its own jittered copies.

Their probabilities are averaged (:class:`scorer.read.classify.CellClassifier`), which
steadies the squares a single learner reads by chance."""

BLEND_WEIGHT: Final = 0.3
"""Share of a perceptron, fitted beside the boosted trees, in the model's probabilities.

The two kinds of learner err on different squares."""

MODEL_PARAMS: Final[dict[str, Any]] = {
    "kind": "hgb",
    "max_iter": 120,
    "learning_rate": 0.15,
    "max_leaf_nodes": 15,
    "l2_regularization": 1.0,
    "class_weight": "balanced",
    "members": MEMBERS,
    "blend_weight": BLEND_WEIGHT,
    "random_state": 0,
}
"""The classifier's settings (:func:`scorer.lab.fit.fit_cell_classifier`), chosen by grouped
cross-validation (see ``models/evaluation.md``)."""

EVALUATION_FILE: Final = "evaluation.json"

MIN_TRAINING_ACCURACY: Final = 0.97
"""Share of its own training crops a written model must read right (:func:`training_accuracy`)."""

OVEREXPOSED_SHARE: Final = 0.3
"""Share of photo-like copies that are over-exposed (see :func:`augment`)."""

OVEREXPOSURE: Final = (1.1, 1.6)
"""Range of the exposure gain of an over-exposed copy."""

CAST_SHARE: Final = 0.5
"""Share of photo-like copies taken in a light of another colour (see :func:`_in_other_light`)."""

CAST: Final = 0.4
"""Largest log gain (nats) of red against blue either way in a copy's light: an evening lamp
casts about +0.7 over daylight (red 1, blue 0.5), a fluorescent tube about -0.3."""

DIM_SHARE: Final = 0.25
"""Share of photo-like copies exposed too short, as by a lamp or a phone in a dim room."""

DIM: Final = (0.35, 0.8)
"""Range of the exposure gain of a dim copy (log-uniform)."""

SHADOW_SHARE: Final = 0.25
"""Share of photo-like copies with a shadow's edge across or beside the square."""

SHADOW: Final = (0.15, 0.7)
"""Range of the share of the light a shadow takes: a soft shade up to direct sun against the
sky's light left in the shade."""

SHADOW_CAST: Final = 0.2
"""Largest log gain (nats) of blue over red in a shadow, which the sky lights."""

SMEAR_SHARE: Final = 0.15
"""Share of photo-like copies taken by a moving phone (see :func:`_smeared`)."""

SMEAR: Final = (0.03, 0.15)
"""Range of the length of a copy's smear, in sides of its square: the matrix's motion blur
(0.8–1.5% of a 12 MP photo's long side) smears a square seen 300 pixels across by 10%."""

HUE_SHIFT: Final = (2.0, 2.5)
"""Largest hue shift (OpenCV units, 180 to a turn) of a jittered copy: plain, photo-like.

A wheat field's hue is about 26 and the bare wooden table of the ``aau-boards``
about 20: the shifts stay well inside the gap between them."""

PHOTO_SIDES: Final = (20, 100)
"""Smallest and largest side, in pixels, at which a photo-like copy sees its square."""


@dataclass(frozen=True)
class FeatureSet:
    """Feature rows of many crops and their augmented views.

    Attributes
    ----------
    X : numpy.ndarray
        ``m × FEATURE_SIZE`` float32 features.
    y : numpy.ndarray
        ``m`` cell tokens.
    groups : numpy.ndarray
        ``m`` group names (kingdom or photo): never split between train and test.
    sources : numpy.ndarray
        ``m`` data set names.
    origin : numpy.ndarray
        ``m`` indices of the crop each row was computed from.
    original : numpy.ndarray
        ``m`` booleans: True for the crop as it is (no turn, no jitter).
    member : numpy.ndarray
        ``m`` learner indices: the learner a jittered copy is for, -1 for a crop
        as it is (in any turn), which every learner sees.
    """

    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    sources: np.ndarray
    origin: np.ndarray
    original: np.ndarray
    member: np.ndarray

    def join(self, other: FeatureSet) -> FeatureSet:
        """These rows followed by ``other``'s."""
        return FeatureSet(
            *(np.concatenate([getattr(self, f.name), getattr(other, f.name)]) for f in fields(self))
        )

    def select(self, mask: np.ndarray) -> FeatureSet:
        """The rows where ``mask`` is True."""
        return FeatureSet(*(getattr(self, f.name)[mask] for f in fields(self)))


def main(argv: Sequence[str] | None = None) -> int:
    """Train on all data and write the model and its metadata; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m scorer.train", description=__doc__)
    parser.add_argument("--data", help="the labelled data folder (default: ../shared/data)")
    parser.add_argument("--out", default=str(MODEL_DIR), help="where to write the model")
    parser.add_argument("--seed", type=int, default=0, help="seed for augmentation and model")
    parser.add_argument("--jobs", type=int, default=2, help="processes for feature extraction")
    parser.add_argument(
        "--views", type=int, default=JITTERED_VIEWS, help="jittered copies per crop"
    )
    parser.add_argument(
        "--corrections",
        nargs="+",
        default=[],
        metavar="DIR",
        help="folders of kingdoms players confirmed (the page's folder, or bundles imported "
        "with python -m scorer.lab.corrections import): their squares are added, grouped by "
        "source photo",
    )
    parser.add_argument(
        "--learn-words",
        action="store_true",
        help=f"learn the visual vocabulary again (scorer/data/{WORDS_FILE}) and stop; "
        "a model must then be trained on it",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    root = datasets.data_dir(args.data)
    if args.learn_words:
        return _learn_words(root, args.seed)
    tiles = collect_tiles(root, SOURCES)
    print(f"{len(tiles)} labelled crops from {root}", file=sys.stderr)
    try:
        confirmed = [datasets.load_confirmed(folder) for folder in args.corrections]
    except (FileNotFoundError, ConfirmedStoreError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    tiles += [t for c in confirmed for t in c.tiles]
    boards = datasets.load_aau_boards(root)
    features = training_features(tiles, boards, views=args.views, seed=args.seed, jobs=args.jobs)
    print(
        f"{len(features.y)} feature rows in {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    model = fit_model(features, seed=args.seed)
    fitted = training_accuracy(model, features)
    if fitted < MIN_TRAINING_ACCURACY:
        print(
            f"error: the model reads only {fitted:.1%} of its own training crops right "
            f"(at least {MIN_TRAINING_ACCURACY:.0%} expected): training did not converge, "
            "so no model was written",
            file=sys.stderr,
        )
        return 1
    out = Path(args.out)
    metadata = {
        "format": None,  # save_model writes the format of the file
        "sklearn_version": sklearn.__version__,
        "feature_version": FEATURE_VERSION,
        "feature_size": FEATURE_SIZE,
        "visual_words_sha256": model.words_sha256_,
        "classes": [str(c) for c in model.classes_],
        "params": model_params(args.seed),
        "seed": args.seed,
        "augmentation": describe_augmentation(args.views, MEMBERS),
        "training_accuracy": round(fitted, 4),
        "data": describe_data(tiles),
        "scenes": {
            "count": SCENES,
            "first_seed": SCENE_SEED,
            "squares": int(np.count_nonzero(features.sources == SCENE_SOURCE)),
        },
        "held_out": _held_out_figures(out),
    }
    if args.corrections:
        metadata["corrections"] = describe_corrections(args.corrections)
    written = save_model(model, out, metadata)
    elapsed = time.perf_counter() - start
    print(
        f"wrote {out / written['model_file']} ({written['size_bytes'] / 1e6:.1f} MB) "
        f"in {elapsed:.0f} s",
        file=sys.stderr,
    )
    return 0


def _learn_words(root: Path, seed: int) -> int:
    """Write the visual vocabulary learned from the :data:`WORD_SOURCES` crops."""
    tiles = collect_tiles(root, WORD_SOURCES)
    words = learn_visual_words([t.image for t in tiles], VISUAL_WORDS, seed=seed)
    path = Path(str(words_resource()))
    np.save(path, words, allow_pickle=False)
    print(
        f"wrote {path}: {len(words)} visual words from {len(tiles)} crops; "
        "train the model again (`make train`)",
        file=sys.stderr,
    )
    return 0


def collect_tiles(root: Path, sources: Iterable[str] = SOURCES) -> list[Tile]:
    """Every labelled crop of the chosen data sets (aau boards are cut into squares)."""
    tiles: list[Tile] = []
    for source in sources:
        if source == "aau":
            for board in datasets.load_aau_boards(root):
                tiles.extend(datasets.board_tiles(board))
        elif source == "phone":
            tiles.extend(datasets.load_phone_tiles(root))
        elif source == "duel":
            tiles.extend(datasets.load_duel_tiles(root))
        else:
            raise ValueError(f"unknown data set {source!r}; choose from {SOURCES}")
    return tiles


def featurize(
    tiles: Sequence[Tile],
    views: int = JITTERED_VIEWS,
    seed: int = 0,
    jobs: int = 1,
    turns: bool = False,
    members: int = MEMBERS,
) -> FeatureSet:
    """Features of each crop as it is (and in its other three 90° turns when ``turns``)
    plus ``views`` jittered copies for each of ``members`` learners, each jittered
    copy in a random turn.

    Each crop's jitter is seeded by ``seed`` and its index, so the result does
    not depend on ``jobs``; the first learner's copies do not depend on ``members``.
    """
    chunks = np.array_split(np.arange(len(tiles)), max(1, jobs * 4))
    images = [t.image for t in tiles]
    work = [([images[i] for i in chunk], chunk) for chunk in chunks if len(chunk)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            futures = [
                pool.submit(_featurize_chunk, imgs, idx, views, seed, turns, members)
                for imgs, idx in work
            ]
            results = [f.result() for f in futures]
    else:
        results = [_featurize_chunk(imgs, idx, views, seed, turns, members) for imgs, idx in work]
    rows = np.concatenate([r[0] for r in results])
    origin = np.concatenate([r[1] for r in results])
    original = np.concatenate([r[2] for r in results])
    member = np.concatenate([r[3] for r in results])
    return FeatureSet(
        X=rows,
        y=np.array([tiles[i].cell.token for i in origin]),
        groups=np.array([tiles[i].group for i in origin]),
        sources=np.array([tiles[i].source for i in origin]),
        origin=origin,
        original=original,
        member=member,
    )


def training_features(
    tiles: Sequence[Tile],
    boards: Sequence[datasets.Board],
    views: int = JITTERED_VIEWS,
    seed: int = 0,
    jobs: int = 1,
) -> FeatureSet:
    """Everything a model learns from: the crops with their jittered copies
    (:func:`featurize`) followed by the squares of :data:`SCENES` training scenes
    built from ``boards`` (:func:`scene_features`)."""
    crops = featurize(tiles, views=views, seed=seed, jobs=jobs)
    return crops.join(scene_features(boards, SCENES, jobs=jobs))


SCENE_SOURCE: Final = "scene"
"""The data set name of squares cut from synthetic scenes."""


def scene_features(
    boards: Sequence[datasets.Board], count: int, first_seed: int = SCENE_SEED, jobs: int = 1
) -> FeatureSet:
    """Features of every square of ``count`` synthetic scenes built from ``boards``.

    Each kingdom is rectified through its true corners and cut as the pipeline
    cuts a photo's board (:func:`scorer.detect.rectify`,
    :func:`scorer.lab.datasets.board_tiles`); each square is labelled with the
    kingdom's cell (empty where the scene took a tile away) and grouped with its
    board's kingdom. The rows are shared by every learner and never count as a
    test view (``original`` is False, ``origin`` is -1). Without boards, no rows.
    """
    if not boards:  # no rectified boards to build scenes from: no scene squares
        count = 0
    seeds = np.arange(first_seed, first_seed + max(0, count))
    chunks = [c for c in np.array_split(seeds, max(1, jobs * 4)) if len(c)]
    if jobs > 1 and len(chunks) > 1:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_scene_chunk, [boards] * len(chunks), chunks))
    else:
        parts = [_scene_chunk(boards, c) for c in chunks]
    X = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, FEATURE_SIZE))  # noqa: N806
    y = np.array([t for p in parts for t in p[1]], dtype=str)
    groups = np.array([g for p in parts for g in p[2]], dtype=str)
    n = len(y)
    return FeatureSet(
        X=np.asarray(X, np.float32),
        y=y,
        groups=groups,
        sources=np.full(n, SCENE_SOURCE),
        origin=np.full(n, -1, np.int64),
        original=np.zeros(n, bool),
        member=np.full(n, -1, np.int64),
    )


def _scene_chunk(
    boards: Sequence[datasets.Board], seeds: np.ndarray
) -> tuple[np.ndarray, list[str], list[str]]:
    by_name = {b.name: b for b in boards}
    tiles: list[Tile] = []
    for seed in seeds:
        scene = make_scene(int(seed), boards)
        for placed in scene.kingdoms:
            source = by_name[placed.board]
            image = rectify(scene.image, BoardLocation(placed.corners, placed.shape))
            photographed = datasets.Board(source.name, image, placed.kingdom, source.group)
            tiles.extend(datasets.board_tiles(photographed, SCENE_SOURCE))
    X = cells_features([t.image for t in tiles], workers=1)  # noqa: N806
    return X, [t.cell.token for t in tiles], [t.group for t in tiles]


def model_params(seed: int = 0, **params: Any) -> dict[str, Any]:
    """:data:`MODEL_PARAMS` seeded with ``seed`` and overridden by ``params``, sorted by name."""
    return dict(sorted({**MODEL_PARAMS, "random_state": seed, **params}.items()))


def fit_model(features: FeatureSet, seed: int = 0, **params: Any) -> CellClassifier:
    """Fit a :class:`CellClassifier` on ``features`` with :func:`model_params`."""
    chosen = model_params(seed, **params)
    return fit_cell_classifier(features.X, features.y, member=features.member, **chosen)


def training_accuracy(model: CellClassifier, features: FeatureSet) -> float:
    """Share of the crops as they are (not the jittered copies) that ``model`` reads right.

    Not a measure of quality (the model has seen these crops) but of
    convergence: gradient boosting that diverges falls far below 1.
    """
    seen = features.select(features.original)
    if not len(seen.y):
        return 1.0
    return float(np.mean(model.predict(seen.X) == seen.y))


def describe_data(tiles: Sequence[Tile]) -> dict[str, Any]:
    """Counts of crops and groups per data set and per label, for the metadata.

    ``relabelled`` counts the crops trained on a label other than the data
    set's own (:data:`scorer.lab.datasets.PHONE_LABEL_FIXES`).
    """
    out: dict[str, Any] = {}
    for source in sorted({t.source for t in tiles}):
        mine = [t for t in tiles if t.source == source]
        labels = Counter(t.cell.token for t in mine)
        out[source] = {
            "crops": len(mine),
            "groups": len({t.group for t in mine}),
            "labels": dict(sorted(labels.items())),
            "relabelled": sum(t.published is not None for t in mine),
        }
    return out


def describe_corrections(folders: Sequence[str | Path]) -> dict[str, Any]:
    """What a model learnt from confirmed kingdoms, for its metadata: the squares, the
    corrected squares, and for each folder the sha256 of the bundle it exports (the exact
    data) and of the bundles its kingdoms were imported from."""
    described = []
    for folder in folders:
        store = ConfirmedStore(folder)
        items = store.items()
        described.append(
            {
                "folder": Path(folder).name,
                "kingdoms": len(items),
                "photos": len({i.photo_sha256 for i in items}),
                "squares": sum(i.squares for i in items),
                "corrected_squares": sum(len(i.corrections) for i in items),
                "bundle_sha256": sha256(store.export_bundle()),
                "imported_from": sorted({i.bundle for i in items if i.bundle}),
            }
        )
    return {
        "squares": sum(d["squares"] for d in described),
        "corrected_squares": sum(d["corrected_squares"] for d in described),
        "bundles": described,
    }


def describe_augmentation(views: int, members: int = 1) -> str:
    """The augmentation :func:`featurize` applies with ``views`` copies per learner, in words.

    >>> describe_augmentation(1)
    'each crop as it is + 1 jittered copy in a random turn'
    >>> describe_augmentation(2, members=2)[-44:]
    '1 of them photo-like, for each of 2 learners'
    """
    if views == 1:
        text = "each crop as it is + 1 jittered copy in a random turn"
    else:
        text = f"each crop as it is + {views} jittered copies in random turns"
        photo_like = views // 2  # every other copy, from the second on
        text = f"{text}, {photo_like} of them photo-like" if photo_like else text
    return f"{text}, for each of {members} learners" if members > 1 else text


def augment(image: np.ndarray, rng: np.random.Generator, photo: bool = False) -> np.ndarray:
    """A jittered copy of a crop: turn, seam drift, light, colour and blur.

    With ``photo``, also what a phone photo does to a square once the board is
    rectified: a slight rotation and perspective, a light gradient across the
    square, sometimes a shadow edge, a smear, a glare spot or over-exposure, a smaller
    image resampled back up, sensor noise and JPEG compression.
    """
    h, w = image.shape[:2]
    drift = 0.06 if photo else 0.05
    dy, dx = (rng.uniform(-drift, drift, 2) * (h, w)).round().astype(int)
    scale = rng.uniform(0.88 if photo else 0.9, 1.0)
    ch, cw = max(4, int(h * scale)), max(4, int(w * scale))
    y0 = int(np.clip((h - ch) // 2 + dy, 0, h - ch))
    x0 = int(np.clip((w - cw) // 2 + dx, 0, w - cw))
    out = image[y0 : y0 + ch, x0 : x0 + cw]
    if photo and rng.random() < 0.6:
        out = _tilt(out, rng, 0.02)
    out = np.ascontiguousarray(np.rot90(out, int(rng.integers(4))))
    hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV).astype(np.float32)
    hue_shift = HUE_SHIFT[1] if photo else HUE_SHIFT[0]
    hsv[..., 0] = (hsv[..., 0] + rng.uniform(-hue_shift, hue_shift)) % 180
    hsv[..., 1] *= rng.uniform(0.75 if photo else 0.8, 1.2)
    hsv[..., 2] = hsv[..., 2] * rng.uniform(0.7 if photo else 0.75, 1.25) + rng.uniform(-15, 15)
    out = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
    if not photo:
        sigma = rng.uniform(0.0, 1.5) * max(h, w) / 64
        return cv2.GaussianBlur(out, (0, 0), sigma) if sigma > 0.3 else out
    out = _photo_light(out, rng)
    if rng.random() < SMEAR_SHARE:
        out = _smeared(out, rng)
    if rng.random() < CAST_SHARE:
        out = _in_other_light(out, rng)
    if rng.random() < OVEREXPOSED_SHARE:
        out = _overexposed(out, rng)
    elif rng.random() < DIM_SHARE:
        out = _dim(out, rng)
    return _photo_camera(out, rng)


def _in_other_light(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The square in a warmer or cooler light: red and blue scaled apart by up to
    :data:`CAST` nats, green between them, and a slight green or magenta tint."""
    warm = rng.uniform(-CAST, CAST)
    tint = rng.uniform(-0.05, 0.05)
    gains = np.exp([-warm / 2, tint, warm / 2])  # B, G, R
    return np.asarray(np.clip(image.astype(np.float32) * gains, 0, 255), np.uint8)


def _smeared(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The square as a phone moving while it took the photo records it: smeared in a straight
    line of :data:`SMEAR` sides, in any direction."""
    length = max(2, round(rng.uniform(*SMEAR) * max(image.shape[:2])))
    return smear(image, length, rng.uniform(0, 180))


def _dim(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The square exposed too short: darker, with the sensor noise that dim light brings."""
    gain = np.exp(rng.uniform(np.log(DIM[0]), np.log(DIM[1])))
    noise = rng.normal(0.0, rng.uniform(1.0, 4.0), image.shape)
    return np.asarray(np.clip(image.astype(np.float32) * gain + noise, 0, 255), np.uint8)


def _overexposed(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The square exposed 1.1 to 1.6 times too long: each colour channel clips on its own.

    A wheat field's red and green both clip, and its orange-yellow turns the
    greener yellow of a grassland; scaling brightness in HSV keeps the hue and
    does not show this.
    """
    gain = rng.uniform(*OVEREXPOSURE)
    return np.asarray(np.clip(image.astype(np.float32) * gain, 0, 255), np.uint8)


def _photo_camera(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The square as a phone photo records it, brought back to the crop's size.

    The square is seen at 20 to 100 pixels across (log-uniform), degraded at
    that size by the camera model of the synthetic scenes
    (:func:`scorer.lab.synth.degrade`: blur, sensor noise, JPEG), then resampled up
    as :func:`scorer.detect.rectify` does.
    """
    h, w = image.shape[:2]
    side = min(int(np.exp(rng.uniform(np.log(PHOTO_SIDES[0]), np.log(PHOTO_SIDES[1])))), h, w)
    small = degrade(rng, cv2.resize(image, (side, side), interpolation=cv2.INTER_AREA))
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), np.uint8)


def _tilt(image: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Move each corner by up to ``amount`` of the side: a slight rotation and perspective."""
    h, w = image.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    shift = rng.uniform(-amount, amount, (4, 2)) * np.array([w, h])
    moved = (src + shift).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(src, moved)
    return np.asarray(
        cv2.warpPerspective(
            image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
        )
    )


def _photo_light(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A light gradient across the square; sometimes a soft shadow edge or a glare spot."""
    h, w = image.shape[:2]
    side = max(h, w)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = image.astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = ((xx - w / 2) * np.cos(angle) + (yy - h / 2) * np.sin(angle)) / side
    img *= (1 + rng.uniform(-0.25, 0.25) * ramp)[..., None]
    if rng.random() < SHADOW_SHARE:
        angle = rng.uniform(0, 2 * np.pi)
        offset = rng.uniform(-0.4, 0.4) * side
        across = (xx - w / 2) * np.cos(angle) + (yy - h / 2) * np.sin(angle) - offset
        edge = 1 / (1 + np.exp(-across / (rng.uniform(0.03, 0.15) * side)))
        bluer = rng.uniform(0.0, SHADOW_CAST)
        shade = (1 - rng.uniform(*SHADOW)) * np.exp([bluer / 2, 0.0, -bluer / 2])  # B, G, R
        img *= 1 + edge[..., None] * (shade - 1)
    if rng.random() < 0.15:
        cx, cy = rng.uniform([0, 0], [w, h])
        radius = rng.uniform(0.1, 0.45) * side
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius * radius))
        img += (rng.uniform(30, 90) * spot)[..., None]
    return np.asarray(np.clip(img, 0, 255), np.uint8)


def _featurize_chunk(
    images: Sequence[np.ndarray],
    indices: np.ndarray,
    views: int,
    seed: int,
    turns: bool,
    members: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    views_of: list[np.ndarray] = []
    origin: list[int] = []
    original: list[bool] = []
    member: list[int] = []
    for image, index in zip(images, indices, strict=True):
        rng = np.random.default_rng([seed, int(index)])
        for k in range(4 if turns else 1):
            views_of.append(np.ascontiguousarray(np.rot90(image, k)))
            origin.append(int(index))
            original.append(k == 0)
            member.append(-1)
        for view in range(views * members):
            views_of.append(augment(image, rng, photo=view % views % 2 == 1))
            origin.append(int(index))
            original.append(False)
            member.append(view // views)
    rows = [cells_features(views_of[i : i + 64], workers=1) for i in range(0, len(views_of), 64)]
    X = np.concatenate(rows) if rows else np.zeros((0, FEATURE_SIZE), np.float32)  # noqa: N806
    return (
        X,
        np.asarray(origin, dtype=np.int64),
        np.asarray(original, dtype=bool),
        np.asarray(member, dtype=np.int64),
    )


def _held_out_figures(folder: Path) -> dict[str, Any]:
    path = folder / EVALUATION_FILE
    if not path.exists():
        return {"note": "run python -m scorer.evaluate to measure"}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    summary: dict[str, Any] = data.get("summary", data)
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
