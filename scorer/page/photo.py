"""One photo on the page: read it (cached), report a failure, and mark corners by hand."""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import Any, Final

import cv2
import numpy as np
import streamlit as st
from numpy.typing import NDArray

from scorer import pipeline
from scorer.detect import order_corners
from scorer.page.common import (
    WHOLE_TABLE,
    Analysis,
    FoundKingdom,
    Photo,
    Problem,
    photo_key,
    problem_for,
    show_problem,
)
from scorer.page.state import Corners, PhotoState, Point
from scorer.photo.imageio import load_image
from scorer.read import classify
from scorer.results import render
from scorer.rules.errors import ModelFileError, ScorerError
from scorer.rules.scoring import Rules

PREVIEW_SIDE: Final = 1400
"""Longest side, in pixels, of the photos drawn on the page."""


def photo_ui(photo: Photo, rules: Rules, whole_table: bool) -> tuple[list[FoundKingdom], Analysis]:
    """Recognise the kingdoms in one photo; on failure offer to mark the corners by hand."""
    grid = rules.side
    manual = PhotoState(photo.key).manual_corners
    details = ""
    with st.spinner(f"Finding and reading the kingdom in {photo.name}…"):
        try:
            analysis = analyse_photo(photo.data, photo.name, grid, manual)
        except Exception as err:  # one bad photo must not take the other players' scores with it
            details = "".join(traceback.format_exception(err))
            analysis = Analysis(
                None,
                1.0,
                problem=Problem(
                    type(err).__name__,
                    "Something unexpected went wrong while reading this photo.",
                    "Try another photo of this kingdom, or type its grid; the other kingdoms "
                    "are scored meanwhile.",
                ),
            )
    if analysis.problem is not None:
        with st.container(border=True):
            st.markdown(f"**{photo.name}**")
            show_problem(analysis.problem)
            if details:
                with st.expander("Details for a bug report"):
                    st.code(details, language=None)
            if analysis.preview is not None and analysis.problem.corners_help:
                corners_ui(photo, analysis, open_now=True)
        return [], analysis
    if analysis.timings:
        total = sum(analysis.timings.values())
        parts = ", ".join(f"{k} {v:.2f} s" for k, v in analysis.timings.items())
        st.caption(f"{photo.name}: read in {total:.1f} s ({parts}).")
    kingdoms = list(analysis.kingdoms)
    if not whole_table and len(kingdoms) > 1:
        st.info(
            f"{photo.name} shows {len(kingdoms)} kingdoms; the first is scored. Choose "
            f'"{WHOLE_TABLE}" to score each one as a player.'
        )
        kingdoms = kingdoms[:1]
    return kingdoms, analysis


def analyse_photo(data: bytes, name: str, grid: int | None, corners: Corners | None) -> Analysis:
    """Read a photo and recognise its kingdoms; cached by content, grid and corners."""
    try:
        return _analyse_photo_cached(data, name, grid, corners)
    except ModelFileError as err:  # never cached: restoring the model fixes it without a restart
        return Analysis(None, 1.0, problem=problem_for(err))


@st.cache_resource(show_spinner="Loading the square classifier…")
def cell_model() -> classify.CellClassifier:
    """The trained square classifier, loaded once per server."""
    return classify.load_model()


@st.cache_data(show_spinner=False, max_entries=24)
def _analyse_photo_cached(
    data: bytes, name: str, grid: int | None, corners: Corners | None
) -> Analysis:
    key = photo_key(data)
    try:
        image = load_image(data)
    except ScorerError as err:
        return Analysis(None, 1.0, problem=problem_for(err))
    preview, scale = render.fit_within(image, PREVIEW_SIDE)
    try:
        report = pipeline.score_photo(
            image,
            Rules(side=grid),
            grid=grid,
            corners=None if corners is None else np.asarray(corners, dtype=np.float64),
            model=cell_model(),
        )
    except ModelFileError:
        raise
    except ScorerError as err:
        return Analysis(preview, scale, problem=problem_for(err))
    found = []
    for i, item in enumerate(report.kingdoms):
        several = len(report.kingdoms) > 1
        found.append(
            FoundKingdom(
                key=f"{key}-{i}" if corners is None else f"{key}-manual",
                source=f"{name}, kingdom {i + 1}" if several else name,
                kingdom=item.kingdom,
                photo_key=key,
                board=render.fit_within(np.asarray(item.board), 700)[0],
                corners=np.asarray(item.corners, dtype=np.float64) * scale,
                doubtful=frozenset(item.doubtful),
                square_px=item.square_px,
                second_choices=tuple(sorted(item.second_choices.items())),
                outline_note=item.outline_note,
            )
        )
    timings = {k: float(v) for k, v in report.timings.items() if k in pipeline.STAGES}
    return Analysis(preview, scale, tuple(found), None, timings)


def corners_ui(photo: Photo, analysis: Analysis, *, open_now: bool = False) -> None:
    """Let the player click the kingdom's four corners on the photo, then read it again."""
    from streamlit_image_coordinates import streamlit_image_coordinates

    assert analysis.preview is not None
    memory = PhotoState(photo.key)
    if not open_now and not st.toggle(
        "📐 Outline wrong? Mark the four corners by hand", key=memory.toggle_key
    ):
        return
    with st.container(border=True):
        st.markdown("**📐 Mark the kingdom's four corners by hand**")
        st.caption(
            "Click the four outer corners of the kingdom, in any order. The page straightens "
            "the kingdom and reads every square again."
        )
        clicks = memory.clicks
        shown = analysis.preview.copy()
        for x, y in clicks:
            px, py = round(x * analysis.scale), round(y * analysis.scale)
            draw_click(shown, (px, py), max(6, max(shown.shape[:2]) // 70))
        value = streamlit_image_coordinates(
            render.to_rgb(shown),
            key=memory.picker_key,
            use_column_width="always",
            cursor="crosshair",
            image_format="JPEG",
            jpeg_quality=85,
        )
        if len(clicks) < 4 and memory.new_click(value):
            width = float(value.get("width") or shown.shape[1])
            height = float(value.get("height") or shown.shape[0])
            x = float(value["x"]) * shown.shape[1] / width / analysis.scale
            y = float(value["y"]) * shown.shape[0] / height / analysis.scale
            memory.clicks = [*clicks, (x, y)]
            st.rerun()
        st.caption(f"{len(clicks)} of 4 corners marked.")
        left, right = st.columns(2)
        left.button("Clear the corners", key=memory.clear_key, on_click=memory.clear_corners)
        if len(clicks) == 4:
            right.button(
                "Read the kingdom inside them",
                key=memory.use_key,
                type="primary",
                on_click=memory.use_corners,
                args=(corners_in_order(clicks),),
            )
        if memory.manual_corners:
            st.caption("Read from the corners you marked. Clear them to use the automatic outline.")


def corners_in_order(clicks: Sequence[Point]) -> Corners:
    """Four clicked corners, clockwise from the top-left, as plain floats.

    The order is :func:`scorer.detect.order_corners`'s, the rule detection applies to any
    corners it is given, so the corners kept are the ones read.

    >>> corners_in_order([(240, 200), (80, 40), (80, 200), (240, 40)])
    ((80.0, 40.0), (240.0, 40.0), (240.0, 200.0), (80.0, 200.0))
    """
    ordered = order_corners(np.asarray(clicks, dtype=np.float64).reshape(4, 2))
    return tuple((float(x), float(y)) for x, y in ordered)


def draw_click(image: NDArray[Any], centre: tuple[int, int], radius: int) -> None:
    """Draw a clicked corner as a ringed dot on the photo, in place."""
    cv2.circle(image, centre, radius, (0, 0, 255), -1, cv2.LINE_AA)
    cv2.circle(image, centre, radius, (255, 255, 255), max(1, radius // 3), cv2.LINE_AA)
