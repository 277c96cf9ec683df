"""One photo on the page: read it (cached), report a failure, and mark corners by hand."""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

import cv2
import numpy as np
import streamlit as st
from numpy.typing import NDArray

from scorer import pipeline
from scorer.detect import order_corners
from scorer.i18n import _, language, ngettext, number
from scorer.page.common import (
    WHOLE_TABLE,
    Analysis,
    FoundKingdom,
    Photo,
    PhotoView,
    Problem,
    photo_key,
    problem_for,
    show_problem,
)
from scorer.page.picker import image_picker
from scorer.page.state import Corners, OutlineState, PhotoState, Point, add_kingdom_key
from scorer.photo.imageio import load_image_with_info
from scorer.read import classify
from scorer.results import render
from scorer.rules.errors import ModelFileError, ScorerError
from scorer.rules.scoring import Rules

PREVIEW_SIDE: Final = 1400
"""Longest side, in pixels, of the photos drawn on the page."""


def photo_ui(
    photo: Photo, rules: Rules, whole_table: bool
) -> tuple[list[FoundKingdom], PhotoView | None]:
    """Recognise the kingdoms in one photo, each through detection's outline or the corners
    the player marked; on failure offer to mark the corners by hand.

    Returns the kingdoms to score, and the photo as the kingdoms' cards show it (None when
    it could not be read at all).
    """
    grid = rules.side
    memory = PhotoState(photo.key)
    analysis, details = _analyse_or_explain(photo, grid, None)
    marked = memory.marked
    if analysis.problem is not None and not (analysis.preview is not None and marked):
        with st.container(border=True):
            st.markdown(f"**{photo.name}**")
            show_problem(analysis.problem)
            if details:
                with st.expander(_("Details for a bug report")):
                    st.code(details, language=None)
            if analysis.preview is not None and analysis.problem.corners_help:
                view = PhotoView(photo, analysis.preview, analysis.scale)
                corners_ui(view, "1", open_now=True)
        return [], None
    assert analysis.preview is not None
    if analysis.timings:
        total = sum(analysis.timings.values())
        parts = ", ".join(f"{_(k)} {number(v, 2)} s" for k, v in analysis.timings.items())
        st.caption(
            _(
                "{photo}: read in {seconds} s ({parts}).",
                photo=photo.name,
                seconds=number(total, 1),
                parts=parts,
            )
        )
    for note in analysis.kingdoms[0].file_notes if analysis.kingdoms else ():
        st.caption(f"{photo.name}: {note}")
    found = list(analysis.kingdoms)
    if not whole_table and len(found) > 1:
        st.info(
            _(
                '{photo} shows {count} kingdoms; the first is scored. Choose "{mode}" to score '
                "each one as a player.",
                photo=photo.name,
                count=len(found),
                mode=_(WHOLE_TABLE),
            )
        )
        found = found[:1]
    slots = [str(i + 1) for i in range(len(found))]
    if whole_table or not slots:
        slots += [slot for slot in marked if slot not in slots]
    kingdoms = []
    for slot in slots:
        auto = found[int(slot) - 1] if slot.isdigit() and int(slot) <= len(found) else None
        kingdom = _slot_kingdom(photo, grid, slot, auto, marked.get(slot), len(slots) > 1)
        if kingdom is not None:
            kingdoms.append(kingdom)
    view = PhotoView(photo, analysis.preview, analysis.scale, tuple(kingdoms))
    if whole_table:
        add_kingdom_ui(view)
    return kingdoms, view


def _analyse_or_explain(
    photo: Photo, grid: int | None, corners: Corners | None
) -> tuple[Analysis, str]:
    """The photo's analysis; an unexpected failure becomes a problem and its traceback."""
    if corners:
        spinning = _(
            "Finding and reading the kingdom inside your corners in {photo}…", photo=photo.name
        )
    else:
        spinning = _("Finding and reading the kingdoms in {photo}…", photo=photo.name)
    with st.spinner(spinning):
        try:
            return analyse_photo(photo.data, photo.name, grid, corners), ""
        except Exception as err:  # one bad photo must not take the other players' scores with it
            problem = Problem(
                type(err).__name__,
                _("Something unexpected went wrong while reading this photo."),
                _(
                    "Try another photo of this kingdom, or type its grid; the other kingdoms "
                    "are scored meanwhile."
                ),
            )
            return Analysis(None, 1.0, problem=problem), "".join(traceback.format_exception(err))


def _slot_kingdom(
    photo: Photo,
    grid: int | None,
    slot: str,
    auto: FoundKingdom | None,
    corners: Corners | None,
    several: bool,
) -> FoundKingdom | None:
    """The kingdom of one slot: read inside the player's corners if marked, else as found."""
    chosen = auto
    if corners is not None:
        manual, _details = _analyse_or_explain(photo, grid, corners)
        if manual.problem is None and manual.kingdoms:
            chosen = replace(manual.kingdoms[0], marked=True)
        else:
            problem = manual.problem or Problem("NoKingdom", _("No kingdom inside those corners."))
            st.error(
                _(
                    "{photo}, kingdom {slot}: {message}",
                    photo=photo.name,
                    slot=_slot_name(slot),
                    message=problem.message,
                )
            )
            if problem.hint:
                st.info(_("Next step: {hint}", hint=problem.hint))
    if chosen is None:
        return None
    source = (
        _("{photo}, kingdom {slot}", photo=photo.name, slot=_slot_name(slot))
        if several
        else photo.name
    )
    return replace(chosen, key=f"{photo.key}-{slot}", slot=slot, source=source)


def _slot_name(slot: str) -> str:
    """How the page names a slot.

    >>> _slot_name("2"), _slot_name("added-1")
    ('2', 'added by hand 1')
    """
    return slot if slot.isdigit() else _("added by hand {n}", n=slot.removeprefix("added-"))


def add_kingdom_ui(view: PhotoView) -> None:
    """Let the player mark the corners of a kingdom detection missed: a new player."""
    memory = PhotoState(view.photo.key)
    if st.toggle(
        "➕ " + _("A kingdom was missed? Mark its four corners"),
        key=add_kingdom_key(view.photo.key),
        help=_("Each kingdom whose corners you mark becomes one more player."),
    ):
        corners_ui(view, memory.next_added_slot, open_now=True, adding=True)


def analyse_photo(data: bytes, name: str, grid: int | None, corners: Corners | None) -> Analysis:
    """Read a photo and recognise its kingdoms; cached by content, grid and corners."""
    try:
        return _analyse_photo_cached(data, name, grid, corners, language())
    except ModelFileError as err:  # never cached: restoring the model fixes it without a restart
        return Analysis(None, 1.0, problem=problem_for(err))


@st.cache_resource(show_spinner="Loading the square classifier…")
def cell_model() -> classify.CellClassifier:
    """The trained square classifier, loaded once per server."""
    return classify.load_model()


@st.cache_data(show_spinner=False, max_entries=24)
def _analyse_photo_cached(
    data: bytes, name: str, grid: int | None, corners: Corners | None, lang: str
) -> Analysis:
    """The analysis of :func:`analyse_photo`; ``lang``, the language of its messages, is part
    of the cache key."""
    key = photo_key(data)
    try:
        image, info = load_image_with_info(data)
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
            file_damage=info.damage,
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
                key=f"{key}-{i + 1}",
                source=_("{photo}, kingdom {slot}", photo=name, slot=i + 1) if several else name,
                kingdom=item.kingdom,
                photo_key=key,
                board=render.fit_within(np.asarray(item.board), 700)[0],
                corners=np.asarray(item.corners, dtype=np.float64) * scale,
                doubtful=frozenset(item.doubtful),
                square_px=item.square_px,
                second_choices=tuple(sorted(item.second_choices.items())),
                outline_note=item.outline_note,
                report=item,
                reasons=tuple(item.reasons),
                slot=str(i + 1),
                marked=corners is not None,
                file_notes=tuple(info.notes),
            )
        )
    timings = {k: float(v) for k, v in report.timings.items() if k in pipeline.STAGES}
    return Analysis(preview, scale, tuple(found), None, timings)


def corners_ui(view: PhotoView, slot: str, *, open_now: bool = False, adding: bool = False) -> None:
    """Let the player click a kingdom's four corners on the photo, then read it again.

    ``slot`` is the kingdom's (:class:`~scorer.page.state.PhotoState`); ``open_now`` shows
    the tool without its toggle; ``adding`` says the corners are those of a new kingdom.
    """
    memory = OutlineState(view.photo.key, slot)
    if not open_now and not st.toggle(
        "📐 " + _("Outline wrong? Mark the four corners by hand"), key=memory.toggle_key
    ):
        return
    with st.container(border=True):
        if adding:
            st.markdown("**📐 " + _("Mark the missed kingdom's four corners by hand") + "**")
        else:
            st.markdown("**📐 " + _("Mark the kingdom's four corners by hand") + "**")
        st.caption(
            _(
                "Tap the four outer corners of the kingdom, in any order. The page straightens "
                "the kingdom and reads every square again."
            )
        )
        clicks = memory.clicks
        shown = view.preview.copy()
        others = [
            render.Outline(k.corners, k.kingdom.shape)
            for k in view.kingdoms
            if k.slot != slot and k.corners is not None
        ]
        if others:
            shown = render.draw_outlines(shown, others)
        for x, y in clicks:
            px, py = round(x * view.scale), round(y * view.scale)
            draw_click(shown, (px, py), max(6, max(shown.shape[:2]) // 70))
        value = image_picker(
            shown, key=memory.picker_key, cursor="crosshair", alt=_("The photo: tap a corner")
        )
        if value is not None and len(clicks) < 4 and memory.new_click(value):
            width = float(value.get("width") or shown.shape[1])
            height = float(value.get("height") or shown.shape[0])
            x = float(value["x"]) * shown.shape[1] / width / view.scale
            y = float(value["y"]) * shown.shape[0] / height / view.scale
            memory.clicks = [*clicks, (x, y)]
            st.rerun()
        st.caption(ngettext("{n} of 4 corners marked.", "{n} of 4 corners marked.", len(clicks)))
        left, right = st.columns(2)
        clear = (
            _("Back to the automatic outline") if memory.manual_corners else _("Clear the corners")
        )
        if adding or (memory.manual_corners and not slot.isdigit()):
            clear = _("Remove this kingdom") if memory.manual_corners else _("Clear the corners")
        left.button(clear, key=memory.clear_key, on_click=memory.clear_corners)
        if len(clicks) == 4:
            right.button(
                _("Read the kingdom inside them"),
                key=memory.use_key,
                type="primary",
                on_click=memory.use_corners,
                args=(corners_in_order(clicks),),
            )
        if memory.manual_corners:
            st.caption(_("Read from the corners you marked."))


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
