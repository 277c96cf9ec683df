"""Learning from the table: the corrections CLI, and training and evaluation on confirmed
kingdoms, with the two fixture bundles of ``tests/fixtures/confirmed`` (see its
``make_bundles.py``): kingdoms on a wheat-coloured table whose bare squares the program read
as wheat (W0) and the players corrected to empty."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from scorer.confirmed import ConfirmedStore
from scorer.lab import corrections, datasets, evaluate, train
from scorer.lab.datasets import Tile
from scorer.rules.kingdom import EMPTY, Cell

SMALL: dict[str, Any] = {"max_iter": 30, "max_leaf_nodes": 7, "members": 1, "blend_weight": 0.0}
"""A small, quick model: enough to learn the fixture squares."""

BUNDLES = ("wheat-table-1.zip", "wheat-table-2.zip")


def _gray_table(seed: int) -> np.ndarray:
    """A square of a grey table, the only bare table the base model knows."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(150, 12, (48, 48, 3)), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def base_tiles(fixtures: Path) -> list[Tile]:
    """What the base model learns from: the fixture crops and four grey-table squares."""
    tiles = []
    for path in sorted((fixtures / "cells").glob("*.jpg")):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        assert image is not None
        tiles.append(Tile(image, Cell.parse(path.stem.rpartition("_")[0]), path.stem, "test"))
    tiles += [Tile(_gray_table(k), EMPTY, f"gray-{k}", "test") for k in range(4)]
    return tiles


@pytest.fixture(scope="module")
def base_features(base_tiles: list[Tile]) -> train.FeatureSet:
    return train.featurize(base_tiles, views=1, seed=0, members=1)


def _imported(fixtures: Path, folder: Path, *names: str) -> Path:
    store = ConfirmedStore(folder)
    for name in names:
        store.import_bundle((fixtures / "confirmed" / name).read_bytes())
    return folder


@pytest.fixture(scope="module")
def folders(fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Each fixture bundle imported into a folder of its own."""
    root = tmp_path_factory.mktemp("confirmed")
    return [_imported(fixtures, root / name.removesuffix(".zip"), name) for name in BUNDLES]


# --------------------------------------------------------------------------- the CLI


def test_export_and_import_from_the_command_line(
    fixtures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _imported(fixtures, tmp_path / "a", *BUNDLES)
    out = tmp_path / "out.zip"
    assert corrections.main(["--folder", str(source), "export", str(out)]) == 0
    target = tmp_path / "b"
    assert corrections.main(["--folder", str(target), "import", str(out)]) == 0
    assert len(ConfirmedStore(target).items()) == 4
    # The same bundle again is refused (and said so); the folder is unchanged.
    index = (target / "index.jsonl").read_bytes()
    assert corrections.main(["--folder", str(target), "import", str(out)]) == 1
    assert "refused: every kingdom of this bundle (4) is already kept" in capsys.readouterr().err
    assert (target / "index.jsonl").read_bytes() == index
    assert corrections.main(["--folder", str(target), "show"]) == 0
    assert "4 kingdoms, 36 squares (12 corrected)" in capsys.readouterr().out


def test_the_command_line_refuses_a_missing_folder_a_folder_as_bundle_and_nothing_to_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(tmp_path / "kept")
    assert corrections.main(["--folder", folder, "import", str(tmp_path)]) == 1
    assert "folder" in capsys.readouterr().err
    assert corrections.main(["--folder", folder, "export", str(tmp_path / "x.zip")]) == 1
    assert "nothing to export" in capsys.readouterr().err
    assert not (tmp_path / "x.zip").exists()


# --------------------------------------------------------------------------- training


def test_confirmed_squares_are_grouped_by_source_photo(folders: list[Path]) -> None:
    loaded = datasets.load_confirmed(folders[0])
    assert len(loaded.tiles) == 18  # two 3×3 kingdoms
    groups = {t.group for t in loaded.tiles}
    photos = {hashlib.sha256(f"wheat table photo {k}".encode()).hexdigest()[:16] for k in (1, 2)}
    assert groups == {f"photo-{p}" for p in photos}
    assert {t.source for t in loaded.tiles} == {datasets.CONFIRMED_SOURCE}
    # The corrected squares are the bare table: read W0, confirmed empty (6, by the fixture).
    assert int(loaded.corrected.sum()) == 6
    assert {
        (t.cell, r.token)
        for t, r, c in zip(loaded.tiles, loaded.read, loaded.corrected, strict=True)
        if c
    } == {(EMPTY, "W0")}


def _table_reading(model: Any, loaded: datasets.ConfirmedSquares) -> list[str]:
    """What ``model`` reads on the squares the players corrected."""
    feats = train.featurize(loaded.tiles, views=0, seed=0, members=1)
    tokens = model.predict(feats.X)
    return [str(t) for t, c in zip(tokens, loaded.corrected, strict=True) if c]


def test_retraining_with_a_bundle_fixes_its_table_on_held_out_photos(
    base_features: train.FeatureSet, folders: list[Path]
) -> None:
    """Trained on the photos of bundle 1, tested on the other photos of the same table."""
    held_out = datasets.load_confirmed(folders[1])
    learnt = datasets.load_confirmed(folders[0])
    assert not {t.group for t in held_out.tiles} & {t.group for t in learnt.tiles}
    base = train.fit_model(base_features, **SMALL)
    assert _table_reading(base, held_out) == ["W0"] * 6  # the base model's mistake
    extra = train.featurize(learnt.tiles, views=1, seed=1, members=1)
    retrained = train.fit_model(base_features.join(extra), **SMALL)
    assert _table_reading(retrained, held_out) == ["."] * 6
    # The squares that were right stay right, real wheat included.
    feats = train.featurize(held_out.tiles, views=0, seed=0, members=1)
    truth = np.array([t.cell.token for t in held_out.tiles])
    kept = ~held_out.corrected
    before = base.predict(feats.X)[kept] == truth[kept]
    after = retrained.predict(feats.X)[kept] == truth[kept]
    assert after.sum() >= before.sum()


def test_evaluation_never_sees_a_training_photo_and_reports_with_and_without(
    base_tiles: list[Tile], folders: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    confirmed = [datasets.load_confirmed(f) for f in folders]
    tiles = base_tiles + [t for c in confirmed for t in c.tiles]
    features = train.featurize(tiles, views=1, seed=0, members=1)
    groups = np.array([t.group for t in tiles])
    seen: list[set[str]] = []

    def recording_fit(rows: train.FeatureSet, **kw: Any) -> Any:
        seen.append(set(rows.groups))
        return train.fit_model(rows, **kw)

    monkeypatch.setattr(evaluate, "fit_model", recording_fit)
    mine = np.array([t.source == datasets.CONFIRMED_SOURCE for t in tiles])
    with_, fold = evaluate.held_out_proba(features, groups, 2, **SMALL)
    without, _ = evaluate.held_out_proba(
        features, groups, 2, train=~evaluate.features_of(features, mine), **SMALL
    )
    assert len(seen) == 4
    for crop, group in enumerate(groups):
        assert group not in seen[fold[crop]], f"{group} was trained on and tested"
    # Without the confirmed squares no fold sees any of them.
    assert not any(g.startswith("photo-") for g in seen[2] | seen[3])
    figures = evaluate.confirmed_figures(confirmed, with_[mine], without[mine])
    assert (figures["squares"], figures["corrected"], figures["photos"]) == (36, 12, 4)
    assert figures["read_right"] == pytest.approx(24 / 36)
    assert figures["without"]["corrected_right"] == 0.0
    assert figures["with"]["corrected_right"] >= 0.9
    report = evaluate._confirmed_lines(
        {
            "confirmed": figures,
            "without_confirmed": {
                "aau_squares_right": 0.5,
                "aau_boards_exact_score": 0.5,
                "phone_tiles_right": 0.5,
            },
            "summary": {
                "aau_squares_right": 0.5,
                "aau_boards_exact_score": 0.5,
                "phone_tiles_right": 0.5,
            },
        }
    )
    assert any("squares the players corrected, now right | 0.00% |" in line for line in report)


def test_training_records_the_corrected_squares_and_bundle_hashes(
    fixtures: Path,
    base_tiles: list[Tile],
    folders: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(train.datasets, "data_dir", lambda path: tmp_path)
    monkeypatch.setattr(train.datasets, "load_aau_boards", lambda root: [])
    monkeypatch.setattr(train, "collect_tiles", lambda root, sources: list(base_tiles))
    small = {**SMALL, "members": train.MEMBERS}  # the jittered copies are made for each
    monkeypatch.setattr(train, "MODEL_PARAMS", {**train.MODEL_PARAMS, **small})
    out = tmp_path / "model"
    argv = ["--out", str(out), "--views", "1", "--jobs", "1", "--corrections", str(folders[0])]
    assert train.main(argv) == 0
    metadata = json.loads((out / "model.json").read_text())
    described = metadata["corrections"]
    assert (described["squares"], described["corrected_squares"]) == (18, 6)
    (bundle,) = described["bundles"]
    source = hashlib.sha256((fixtures / "confirmed" / BUNDLES[0]).read_bytes()).hexdigest()
    assert bundle["imported_from"] == [source]
    assert (
        bundle["bundle_sha256"]
        == hashlib.sha256(ConfirmedStore(folders[0]).export_bundle()).hexdigest()
    )
    assert metadata["data"][datasets.CONFIRMED_SOURCE]["crops"] == 18
    assert metadata["data"][datasets.CONFIRMED_SOURCE]["groups"] == 2


def test_training_refuses_a_missing_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(train.datasets, "data_dir", lambda path: tmp_path)
    monkeypatch.setattr(train, "collect_tiles", lambda root, sources: [])
    assert train.main(["--out", str(tmp_path / "m"), "--corrections", str(tmp_path / "none")]) == 1
    assert not (tmp_path / "m").exists()


def test_the_evaluation_with_corrections_reports_both_ways(
    base_tiles: list[Tile], folders: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole of ``evaluate(..., corrections=...)`` on stand-ins for the large data sets:
    one kingdom of the first bundle as the aau board, the fixture crops as phone tiles."""
    store = ConfirmedStore(folders[0])
    item = store.items()[0]
    board = datasets.Board("1", store.image(item), item.kingdom, "kingdom-1")
    phone = [Tile(t.image, t.cell, t.group, "phone") for t in base_tiles]

    def tiles_of(root: Path, sources: Any) -> list[Tile]:
        return datasets.board_tiles(board) + phone

    monkeypatch.setattr(evaluate.datasets, "load_aau_boards", lambda root: [board])
    monkeypatch.setattr(evaluate, "collect_tiles", tiles_of)
    monkeypatch.setattr(
        evaluate,
        "training_features",
        lambda tiles, boards, **kw: train.featurize(tiles, views=1, seed=0, members=1),
    )
    monkeypatch.setattr(
        evaluate, "fit_model", lambda rows, seed=0, **kw: train.fit_model(rows, **SMALL)
    )
    monkeypatch.setattr(
        evaluate,
        "_duel_figures",
        lambda *a: {
            "tiles": {"squares": 0, "both": 0.0, "terrain": 0.0, "crowns": 0.0},
            "game1": {"squares": 49, "right": 0, "best_rotation_right": 0, "mistakes": []},
        },
    )
    result = evaluate.evaluate(tmp_path, folds=2, corrections=[folders[1]])
    confirmed = result["confirmed"]
    assert (confirmed["squares"], confirmed["corrected"], confirmed["photos"]) == (18, 6, 2)
    assert set(result["without_confirmed"]) == {
        "aau_squares_right",
        "aau_boards_exact_score",
        "phone_tiles_right",
    }
    assert result["summary"]["confirmed_read_right_at_the_table"] == pytest.approx(12 / 18)
    report = evaluate.format_report(result)
    assert "## (d) Kingdoms players confirmed, held out by photo" in report
    assert "18 squares from 2 photos, 6 of them corrected" in report
