"""The scoring page: photograph each kingdom, check it, correct it, and rank the players.

Run it with ``make run`` (or ``streamlit run app.py``). The page only calls
:mod:`scorer.pipeline` for photos and :mod:`scorer.rules.scoring` for the rules, and
draws what they return with :mod:`scorer.results.render`.
"""

from __future__ import annotations

import hashlib
import os
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import pandas as pd  # type: ignore[import-untyped]
import streamlit as st
from numpy.typing import NDArray

from scorer.photo.imageio import load_image
from scorer.pipeline import STAGES, doubtful_hint, score_photo, small_squares_note
from scorer.read.classify import CellClassifier, load_model
from scorer.results import render
from scorer.results.export import PlayerResult, results_csv, results_json
from scorer.results.report import format_positions
from scorer.rules.errors import BoardNotFoundError, ModelFileError, ScorerError
from scorer.rules.kingdom import (
    ALL_CELLS,
    DUEL_SIZE,
    STANDARD_SIZE,
    Cell,
    GridParseError,
    Kingdom,
    Position,
    Terrain,
)
from scorer.rules.scoring import (
    CROWNS_FIRST_NAME,
    DYNASTY_GAMES,
    HARMONY_BONUS,
    MAX_PLAYERS,
    MIDDLE_KINGDOM_BONUS,
    Player,
    Ranking,
    Rules,
    ScoreBreakdown,
    TieBreakOrder,
    Violation,
    is_centred,
    is_complete,
    rank,
    score,
    tileset_violations,
)
from scorer.store import GameStore

APP_DIR: Final = Path(__file__).resolve().parent
# Environment variable naming the sample photo shown on first run.
SAMPLE_ENV: Final = "KINGDOMINO_SAMPLE"

DEFAULT_SAMPLE: Final = APP_DIR / "sample_images" / "sample_board.jpg"
PHOTO_TYPES: Final = ["jpg", "jpeg", "png", "webp", "heic", "heif"]
# Every square value a player can pick when correcting: W0 … M3, C and .
TOKENS: Final = [c.token for c in ALL_CELLS]

# Longest side, in pixels, of the photos drawn on the page.
PREVIEW_SIDE: Final = 1400

TERRAIN_ICONS: Final = {
    Terrain.WHEAT: "🌾",
    Terrain.FOREST: "🌲",
    Terrain.LAKE: "🌊",
    Terrain.GRASSLAND: "🌿",
    Terrain.SWAMP: "🐸",
    Terrain.MINE: "⛏️",
}

# Grid side of each variant; None measures each kingdom in its photo and scores it as found.
AUTOMATIC: Final = (
    f"From each kingdom's size ({STANDARD_SIZE}×{STANDARD_SIZE} or {DUEL_SIZE}×{DUEL_SIZE})"
)
VARIANTS: Final[dict[str, int | None]] = {
    AUTOMATIC: None,
    f"Standard {STANDARD_SIZE}×{STANDARD_SIZE}": STANDARD_SIZE,
    f"Mighty Duel {DUEL_SIZE}×{DUEL_SIZE}": DUEL_SIZE,
}
_EXAMPLE_GRID: Final = (
    "G0 L0 F0 F0 F0\nG0 L0 F1 F0 W0\nG0 G0 C F0 F0\nW0 S0 S1 W0 W0\nW1 S0 S0 L1 L0"
)
PER_PLAYER: Final = "One photo per player"
WHOLE_TABLE: Final = "One photo of the whole table"


@dataclass(frozen=True)
class Photo:
    """A photo given to the page: its bytes, a name to show and a key from its content."""

    name: str
    data: bytes
    sample: bool = False

    @property
    def key(self) -> str:
        """A short fingerprint of the content, stable across reruns."""
        return hashlib.sha1(self.data).hexdigest()[:12]


@dataclass(frozen=True)
class Problem:
    """An expected failure as the page shows it: what went wrong and what to do next."""

    kind: str
    message: str
    hint: str = ""
    corners_help: bool = False
    """True when marking the kingdom's corners by hand can get past it."""


@dataclass(frozen=True)
class FoundKingdom:
    """One kingdom from any input, as recognised or typed, before corrections by hand."""

    key: str
    source: str
    kingdom: Kingdom
    photo_key: str | None = None
    board: NDArray[Any] | None = None
    corners: NDArray[Any] | None = None
    doubtful: frozenset[Position] = frozenset()
    square_px: float = 0.0
    second_choices: tuple[tuple[Position, Cell], ...] = ()
    outline_note: str | None = None


@dataclass(frozen=True)
class Analysis:
    """What the page keeps of one photo: a preview, the kingdoms found, or the problem."""

    preview: NDArray[Any] | None
    scale: float
    kingdoms: tuple[FoundKingdom, ...] = ()
    problem: Problem | None = None
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class Entry:
    """A player's kingdom as it stands on the page, after any correction by hand."""

    found: FoundKingdom
    name: str
    kingdom: Kingdom
    breakdown: ScoreBreakdown
    violations: tuple[Violation, ...]
    pictures: list[NDArray[Any]] = field(default_factory=list)
    """What the page drew for this kingdom (photo with outline, labelled kingdom), for the PNG."""

    @property
    def edited(self) -> frozenset[Position]:
        """Squares that differ from what was recognised or typed."""
        if self.kingdom.shape != self.found.kingdom.shape:
            return frozenset(p for p, _ in self.kingdom.cells())
        return frozenset(p for p, c in self.kingdom.cells() if self.found.kingdom[p] != c)

    @property
    def corrected(self) -> bool:
        """True when a player changed a square by hand."""
        return bool(self.edited)

    def result(self) -> PlayerResult:
        """The player's result for the downloads."""
        return PlayerResult(self.name, self.found.source, self.kingdom, self.corrected)


def main() -> None:
    """Draw the page; any unexpected failure becomes a friendly message, not a traceback."""
    st.set_page_config(page_title="Kingdomino score", page_icon="👑", layout="wide")
    try:
        page()
    except Exception as err:  # the last line of defence: show it, never crash the page
        st.error(
            "Something unexpected went wrong while scoring. Your photos and corrections are "
            "kept: try again, or remove the last photo you added."
        )
        with st.expander("Details for a bug report"):
            st.code("".join(traceback.format_exception(err)), language=None)


def page() -> None:
    """The whole page, top to bottom."""
    st.title("👑 Kingdomino score")
    st.caption(
        "Photograph each finished kingdom, check the squares, fix any the camera misread, "
        "and see who wins — with every tie-break explained."
    )
    rules = rules_ui()
    photos, whole_table = photos_ui()
    typed = typed_ui()
    if not photos and not typed:
        sample = sample_photo()
        if sample is not None:
            photos = [sample]
            st.info(
                "This is a sample photo, already scored. Upload or take a photo of your own "
                "kingdom to replace it."
            )
    found: list[FoundKingdom] = []
    context: dict[str, tuple[Photo, Analysis]] = {}
    for photo in photos:
        kingdoms, analysis = photo_ui(photo, rules, whole_table)
        context[photo.key] = (photo, analysis)
        found.extend(kingdoms)
    found.extend(typed)
    if not found:
        st.info("Add a photo or type a kingdom's grid to see its score.")
        return
    summary = st.container()
    st.subheader("Kingdoms")
    entries = [kingdom_ui(f, i, rules, context.get(f.photo_key or "")) for i, f in enumerate(found)]
    with summary:
        ranking = ranking_ui(entries, rules)
    dynasty_ui(entries, rules)
    export_ui(entries, rules, ranking)


# --- inputs --------------------------------------------------------------------------------


def rules_ui() -> Rules:
    """The variant and options the players chose; shown in the sidebar."""
    with st.sidebar:
        st.header("Game")
        variant = st.radio(
            "Variant",
            list(VARIANTS),
            key="variant",
            help="Choose the grid size when the photo is read with the wrong number of squares.",
        )
        st.caption("Bonuses (the players choose before the game)")
        harmony = st.checkbox(
            f"Harmony (+{HARMONY_BONUS})",
            key="harmony",
            help="A complete kingdom: every square of the grid filled.",
        )
        middle = st.checkbox(
            f"Middle Kingdom (+{MIDDLE_KINGDOM_BONUS})",
            key="middle_kingdom",
            help="The castle is in the centre of the kingdom.",
        )
        st.caption("Tie-break")
        crowns_first = st.checkbox(
            f"House rule: {CROWNS_FIRST_NAME}",
            key="crowns_first",
            help="The published rules compare the largest property first, then crowns. "
            "This house rule swaps the two steps.",
        )
        if crowns_first:
            st.warning(f'House rule in play: "{CROWNS_FIRST_NAME}".')
    side = VARIANTS[variant or next(iter(VARIANTS))]
    order = TieBreakOrder.CROWNS_FIRST if crowns_first else TieBreakOrder.OFFICIAL
    return Rules(harmony=harmony, middle_kingdom=middle, tiebreak=order, side=side)


def photos_ui() -> tuple[list[Photo], bool]:
    """Uploads and the camera; return the photos and whether one photo shows the whole table."""
    st.subheader("Photos")
    mode = st.radio(
        "What do the photos show?", [PER_PLAYER, WHOLE_TABLE], horizontal=True, key="photo_mode"
    )
    uploads = st.file_uploader(
        "Upload photos (JPEG, PNG, WebP or HEIC)",
        type=PHOTO_TYPES,
        accept_multiple_files=True,
        key="uploads",
        help="Photograph from above, with the whole kingdom in frame. On a phone, Upload "
        "also offers to take a photo with the camera.",
    )
    photos = [Photo(u.name, u.getvalue()) for u in uploads or []]
    if st.toggle(
        "Take a photo with this device's camera",
        key="use_camera",
        help="Browsers allow the camera only on https:// pages or on localhost. On a phone "
        "reaching this page over the local network, use Upload, which offers the camera.",
    ):
        shot = st.camera_input("Photograph a kingdom from above", key="camera")
        if shot is not None:
            photos.append(Photo("camera photo", shot.getvalue()))
    unique = list({p.key: p for p in reversed(photos)}.values())[::-1]
    if len(unique) < len(photos):
        st.info("The same photo was given twice; it is scored once.")
    return unique, mode == WHOLE_TABLE


def typed_ui() -> list[FoundKingdom]:
    """Kingdoms typed or pasted as text grids, one per player, separated by a blank line."""
    with st.expander("⌨️ Type or paste kingdoms as text grids"):
        st.caption(
            "One row a line, squares separated by spaces: a terrain letter (W wheat, F forest, "
            "L lake, G grassland, S swamp, M mine) and its crowns, C for the castle, . for empty. "
            "Leave a blank line between kingdoms; each kingdom is one player."
        )
        text = st.text_area(
            "Grids",
            key="typed_grids",
            height=180,
            placeholder=_EXAMPLE_GRID,
        )
    kingdoms, problems = parse_grids(text or "")
    for problem in problems:
        show_problem(problem)
    return kingdoms


def parse_grids(text: str) -> tuple[list[FoundKingdom], list[Problem]]:
    """Split pasted text at blank lines and read each block as one kingdom.

    Line numbers in the problems count from the top of the whole text.
    """
    kingdoms: list[FoundKingdom] = []
    problems: list[Problem] = []
    for number, (first_line, block) in enumerate(_blocks(text), start=1):
        try:
            kingdom = Kingdom.parse(block)
        except GridParseError as err:
            where = [f"line {err.line + first_line - 1}"] if err.line is not None else []
            if err.column is not None:
                where.append(f"square {err.column}")
            if err.token is not None:
                where.append(repr(err.token))
            place = f" ({', '.join(where)})" if where else ""
            problems.append(
                Problem(
                    "GridParseError",
                    f"Typed grid {number}{place}: {err.reason}.",
                    "Fix that square; the other kingdoms are scored meanwhile.",
                )
            )
            continue
        kingdoms.append(FoundKingdom(f"typed-{number}", f"typed grid {number}", kingdom))
    return kingdoms, problems


def sample_photo() -> Photo | None:
    """The sample photo shown on first run, or None.

    ``$KINGDOMINO_SAMPLE`` names it (relative to the app's folder, or absolute);
    set but empty, it turns the sample off; unset, it is the one in sample_images/.
    """
    named = os.environ.get(SAMPLE_ENV)
    if named is None:
        path = DEFAULT_SAMPLE
    elif not named.strip():
        return None
    else:
        path = Path(named) if Path(named).is_absolute() else APP_DIR / named
    if not path.is_file():
        return None
    return Photo(f"{path.name} (sample)", path.read_bytes(), sample=True)


# --- photos ----------------------------------------------------------------------------------


def photo_ui(photo: Photo, rules: Rules, whole_table: bool) -> tuple[list[FoundKingdom], Analysis]:
    """Recognise the kingdoms in one photo; on failure offer to mark the corners by hand."""
    grid = rules.side
    manual = st.session_state.get(f"manual-{photo.key}")
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


def analyse_photo(
    data: bytes, name: str, grid: int | None, corners: tuple[tuple[float, float], ...] | None
) -> Analysis:
    """Read a photo and recognise its kingdoms; cached by content, grid and corners."""
    try:
        return _analyse_photo_cached(data, name, grid, corners)
    except ModelFileError as err:  # never cached: restoring the model fixes it without a restart
        return Analysis(None, 1.0, problem=_problem(err))


@st.cache_resource(show_spinner="Loading the square classifier…")
def cell_model() -> CellClassifier:
    """The trained square classifier, loaded once per server."""
    return load_model()


@st.cache_data(show_spinner=False, max_entries=24)
def _analyse_photo_cached(
    data: bytes, name: str, grid: int | None, corners: tuple[tuple[float, float], ...] | None
) -> Analysis:
    key = hashlib.sha1(data).hexdigest()[:12]
    try:
        image = load_image(data)
    except ScorerError as err:
        return Analysis(None, 1.0, problem=_problem(err))
    preview, scale = render.fit_within(image, PREVIEW_SIDE)
    try:
        report = score_photo(
            image,
            Rules(side=grid),
            grid=grid,
            corners=None if corners is None else np.asarray(corners, dtype=np.float64),
            model=cell_model(),
        )
    except ModelFileError:
        raise
    except ScorerError as err:
        return Analysis(preview, scale, problem=_problem(err))
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
    timings = {k: float(v) for k, v in report.timings.items() if k in STAGES}
    return Analysis(preview, scale, tuple(found), None, timings)


def corners_ui(photo: Photo, analysis: Analysis, *, open_now: bool = False) -> None:
    """Let the player click the kingdom's four corners on the photo, then read it again."""
    from streamlit_image_coordinates import streamlit_image_coordinates

    assert analysis.preview is not None
    state_key = f"clicks-{photo.key}"
    version = st.session_state.get(f"clicks-version-{photo.key}", 0)
    toggle = f"corners-toggle-{photo.key}"
    if not open_now and not st.toggle(
        "📐 Outline wrong? Mark the four corners by hand", key=toggle
    ):
        return
    with st.container(border=True):
        st.markdown("**📐 Mark the kingdom's four corners by hand**")
        st.caption(
            "Click the four outer corners of the kingdom, in any order. The page straightens "
            "the kingdom and reads every square again."
        )
        clicks: list[tuple[float, float]] = list(st.session_state.get(state_key, []))
        shown = analysis.preview.copy()
        for x, y in clicks:
            px, py = round(x * analysis.scale), round(y * analysis.scale)
            _draw_click(shown, (px, py), max(6, max(shown.shape[:2]) // 70))
        value = streamlit_image_coordinates(
            render.to_rgb(shown),
            key=f"corner-pick-{photo.key}-{version}",
            use_column_width="always",
            cursor="crosshair",
            image_format="JPEG",
            jpeg_quality=85,
        )
        last = st.session_state.get(f"{state_key}-last")
        if value and value.get("unix_time") != last and len(clicks) < 4:
            st.session_state[f"{state_key}-last"] = value.get("unix_time")
            width = float(value.get("width") or shown.shape[1])
            height = float(value.get("height") or shown.shape[0])
            x = float(value["x"]) * shown.shape[1] / width / analysis.scale
            y = float(value["y"]) * shown.shape[0] / height / analysis.scale
            clicks.append((x, y))
            st.session_state[state_key] = clicks
            st.rerun()
        st.caption(f"{len(clicks)} of 4 corners marked.")
        left, right = st.columns(2)
        left.button(
            "Clear the corners",
            key=f"clear-corners-{photo.key}",
            on_click=_clear_corners,
            args=(photo.key,),
        )
        if len(clicks) == 4:
            right.button(
                "Read the kingdom inside them",
                key=f"use-corners-{photo.key}",
                type="primary",
                on_click=_use_corners,
                args=(photo.key, tuple(order_corners(clicks))),
            )
        if st.session_state.get(f"manual-{photo.key}"):
            st.caption("Read from the corners you marked. Clear them to use the automatic outline.")


def _clear_corners(photo_key: str) -> None:
    """Forget the marked corners and go back to the automatic outline."""
    st.session_state[f"clicks-{photo_key}"] = []
    st.session_state[f"clicks-version-{photo_key}"] = (
        st.session_state.get(f"clicks-version-{photo_key}", 0) + 1
    )
    st.session_state.pop(f"manual-{photo_key}", None)


def _use_corners(photo_key: str, corners: tuple[tuple[float, float], ...]) -> None:
    """Read the photo again inside the marked corners, and fold the corner picker away."""
    st.session_state[f"manual-{photo_key}"] = corners
    st.session_state[f"corners-toggle-{photo_key}"] = False


def _draw_click(image: NDArray[Any], centre: tuple[int, int], radius: int) -> None:
    """Draw a clicked corner as a ringed dot on the photo, in place."""
    cv2.circle(image, centre, radius, (0, 0, 255), -1, cv2.LINE_AA)
    cv2.circle(image, centre, radius, (255, 255, 255), max(1, radius // 3), cv2.LINE_AA)


def order_corners(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Put four clicked points in clockwise order, starting from the top-left one.

    >>> order_corners([(10, 10), (0, 10), (10, 0), (0, 0)])
    [(0, 0), (10, 0), (10, 10), (0, 10)]
    """
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)
    ring = sorted(points, key=lambda p: float(np.arctan2(p[1] - cy, p[0] - cx)))
    start = min(range(len(ring)), key=lambda i: ring[i][0] + ring[i][1])
    return ring[start:] + ring[:start]


# --- one kingdom -----------------------------------------------------------------------------


def kingdom_ui(
    found: FoundKingdom, index: int, rules: Rules, source: tuple[Photo, Analysis] | None = None
) -> Entry:
    """One player's kingdom: pictures, corrections and the score breakdown."""
    with st.container(border=True):
        head, total_box = st.columns([3, 1])
        name = head.text_input(
            "Player", value=f"Player {index + 1}", key=f"name-{found.key}", max_chars=40
        )
        name = (name or "").strip() or f"Player {index + 1}"
        head.caption(
            f"From {found.source}" if found.photo_key else f"⌨️ Typed by hand ({found.source})"
        )
        left, right = st.columns([2, 3] if found.photo_key is not None else [1, 1])
        corners_box = st.container()
        with st.expander("✏️ Correct squares", expanded=False):
            kingdom = correction_ui(found)
        breakdown = score(kingdom, rules)
        violations = tileset_violations(kingdom, rules)
        entry = Entry(found, name, kingdom, breakdown, violations)
        total_box.metric("Total", breakdown.total)
        if entry.corrected:
            total_box.markdown(":blue-badge[✏️ corrected by hand]")
        if found.photo_key is not None and source is not None:
            with left:
                _photo_picture(entry, source)
            with right:
                _kingdom_picture(entry)
            photo, analysis = source
            if analysis.kingdoms and analysis.kingdoms[0].key == found.key:
                with corners_box:
                    corners_ui(photo, analysis)
            _breakdown_ui(entry, rules)
        else:
            with left:
                _kingdom_picture(entry)
            with right:
                _breakdown_ui(entry, rules, narrow=True)
    return entry


def correction_ui(found: FoundKingdom) -> Kingdom:
    """A per-square editor; return the kingdom with the player's corrections."""
    base_key, version_key = f"base-{found.key}", f"version-{found.key}"
    stored = st.session_state.get(base_key)
    if stored is not None and stored[0] != found.kingdom:
        # The photo was read again or the typed grid changed: start from the new reading,
        # with a fresh editor (its key changes), since old edits belong to the old grid.
        st.session_state[version_key] = st.session_state.get(version_key, 0) + 1
        stored = None
    if stored is None:
        stored = (found.kingdom, found.kingdom)
        st.session_state[base_key] = stored
    base: Kingdom = stored[1]
    version = st.session_state.get(version_key, 0)
    st.caption(
        "Pick a square's value: terrain letter and crowns (W wheat, F forest, L lake, "
        "G grassland, S swamp, M mine), C castle, . empty. You can also click a square on "
        "the labelled kingdom."
    )
    columns = [str(c + 1) for c in range(base.width)]
    table = pd.DataFrame(
        [[cell.token for cell in row] for row in base.rows],
        columns=columns,
        index=[f"row {r + 1}" for r in range(base.height)],
    )
    config = {
        col: st.column_config.SelectboxColumn(col, options=TOKENS, required=True, width="small")
        for col in columns
    }
    edited = st.data_editor(
        table,
        key=f"editor-{found.key}-{version}",
        column_config=config,
        num_rows="fixed",
        width="content",
    )
    try:
        kingdom = Kingdom.from_cells(
            [Cell.parse(str(edited.iloc[r, c])) for c in range(base.width)]
            for r in range(base.height)
        )
    except ValueError as err:
        st.error(f"That is not a kingdom any more: {err}. The last valid grid is scored.")
        kingdom = base
    cols = st.columns(2)
    if (kingdom != found.kingdom or base != found.kingdom) and cols[0].button(
        "Undo all corrections", key=f"undo-{found.key}"
    ):
        st.session_state[base_key] = (found.kingdom, found.kingdom)
        st.session_state[version_key] = version + 1
        st.rerun()
    return kingdom


def _apply_square(found: FoundKingdom, current: Kingdom, pos: Position, widget: str) -> None:
    """Callback of the square picker: set one square and restart the editor from the result."""
    token = st.session_state.get(widget)
    if not token:
        return
    try:
        kingdom = current.replace(pos, Cell.parse(token))
    except ValueError as err:
        st.session_state[f"square-error-{found.key}"] = str(err)
        return
    st.session_state[f"base-{found.key}"] = (found.kingdom, kingdom)
    st.session_state[f"version-{found.key}"] = st.session_state.get(f"version-{found.key}", 0) + 1
    st.session_state.pop(f"selected-{found.key}", None)


def _photo_picture(entry: Entry, source: tuple[Photo, Analysis]) -> None:
    found = entry.found
    _, analysis = source
    if analysis.preview is None or found.corners is None:
        return
    caption = entry.name if len(analysis.kingdoms) > 1 else ""
    outlines = [render.Outline(found.corners, found.kingdom.shape, caption)]
    outlines += [
        render.Outline(k.corners, k.kingdom.shape)
        for k in analysis.kingdoms
        if k.key != found.key and k.corners is not None
    ]
    outlined = render.draw_outlines(analysis.preview, outlines)
    entry.pictures.append(outlined)
    st.image(
        outlined,
        channels="BGR",
        caption="Read inside the corners you marked"
        if found.key.endswith("-manual")
        else "Found in the photo",
        width="stretch",
        output_format="JPEG",
    )


def _kingdom_picture(entry: Entry) -> None:
    from streamlit_image_coordinates import streamlit_image_coordinates

    found = entry.found
    doubtful = (set(found.doubtful) - entry.edited) | {
        p for v in entry.violations for p in v.positions
    }
    picture = render.draw_kingdom(
        entry.kingdom,
        board=found.board,
        properties=entry.breakdown.properties,
        doubtful=doubtful,
        edited=entry.edited,
        cell_px=100,
    )
    entry.pictures.append(picture)
    click = streamlit_image_coordinates(
        render.to_rgb(picture),
        key=f"pick-{found.key}-{st.session_state.get(f'version-{found.key}', 0)}",
        use_column_width="always",
        cursor="pointer",
        image_format="JPEG",
        jpeg_quality=88,
    )
    st.caption("Labelled kingdom: each property shows squares × crowns = points. Click a square.")
    last_key = f"pick-last-{found.key}"
    if click and click.get("unix_time") != st.session_state.get(last_key):
        st.session_state[last_key] = click.get("unix_time")
        pos = render.cell_at(
            float(click["x"]),
            float(click["y"]),
            (int(click.get("width") or picture.shape[1]), int(click.get("height") or 1)),
            entry.kingdom.shape,
        )
        if pos is not None:
            st.session_state[f"selected-{found.key}"] = pos
    selected = st.session_state.get(f"selected-{found.key}")
    if selected is not None and _inside(selected, entry.kingdom.shape):
        r, c = selected
        widget = f"square-{found.key}-{r}-{c}"
        current = entry.kingdom[(r, c)].token
        st.session_state.setdefault(widget, current)
        st.selectbox(
            f"Square in row {r + 1}, column {c + 1} is",
            TOKENS,
            key=widget,
            on_change=_apply_square,
            args=(found, entry.kingdom, (r, c), widget),
        )
    error = st.session_state.pop(f"square-error-{found.key}", None)
    if error:
        st.error(f"That change would not make a kingdom: {error}.")


def _doubtful_words(entry: Entry, doubtful: set[Position]) -> str:
    """The doubtful squares in words, with the likeliest other reading where known."""
    choices = {pos: other for pos, other in entry.found.second_choices if pos in doubtful}
    unknown = sorted(doubtful - set(choices))
    parts = [doubtful_hint(entry.kingdom, choices)] if choices else []
    if unknown:
        parts.append(format_positions(unknown))
    return ", ".join(parts)


def _breakdown_ui(entry: Entry, rules: Rules, *, narrow: bool = False) -> None:
    b = entry.breakdown
    rows = [
        {
            "Property": f"{TERRAIN_ICONS.get(p.terrain, '')} {p.terrain.value}",
            "Squares × crowns": f"{p.squares} × {p.crowns}",
            "Points": p.points,
        }
        for p in sorted(b.properties, key=lambda p: (-p.points, -p.squares))
        if p.points
    ]
    crownless = sorted((p for p in b.properties if not p.points), key=lambda p: -p.squares)
    lines = [f"Properties: **{b.property_points}**"]
    if rules.harmony:
        done = is_complete(entry.kingdom, rules)
        lines.append(
            f"Harmony: **+{b.harmony}** ("
            + ("every square filled" if done else "not every square is filled")
            + ")"
        )
    if rules.middle_kingdom:
        centred = is_centred(entry.kingdom, rules)
        lines.append(
            f"Middle Kingdom: **+{b.middle_kingdom}** ("
            + ("castle in the centre" if centred else "castle not in the centre")
            + ")"
        )
    lines.append(f"Total: **{b.total}**")
    table_col, sums_col = (st.container(), st.container()) if narrow else st.columns([3, 1])
    with table_col:
        if rows:
            st.dataframe(
                pd.DataFrame(rows),
                hide_index=True,
                width="stretch",
                height=35 * (len(rows) + 1) + 3,
            )
        else:
            st.caption("No property has a crown yet, so none scores.")
        if crownless:
            st.caption(
                f"Without crowns, 0 points ({len(crownless)}): "
                + ", ".join(f"{p.terrain.value} {_plural(p.squares, 'square')}" for p in crownless)
            )
    with sums_col:
        st.markdown("  \n".join(lines))
        st.caption(
            f"Largest property: {_plural(b.largest_property, 'square')} · "
            f"{_plural(b.crowns, 'crown')}"
        )
    doubtful = set(entry.found.doubtful) - entry.edited
    if doubtful:
        st.warning(
            f"🔍 Check {len(doubtful)} doubtful square{'s' if len(doubtful) != 1 else ''} "
            f"(magenta frame): {_doubtful_words(entry, doubtful)}."
        )
    for v in entry.violations:
        st.warning(
            f"⚠️ This kingdom cannot exist: {v.message}. A square is probably misread; check "
            f"{format_positions(v.positions)}."
        )
    height, width = entry.kingdom.shape
    if entry.found.photo_key is not None and height != width:
        st.warning(
            f"The grid found is {height}×{width}, not square: check the outline on the photo, "
            "or mark the four corners by hand."
        )
    small = small_squares_note(entry.found.square_px)
    if small:
        st.warning(f"📷 {small[0].upper()}{small[1:]}.")
    outline = entry.found.outline_note
    if outline:
        st.info(
            f"📐 {outline[0].upper()}{outline[1:]} on the photo, or mark the four corners by hand."
        )


# --- ranking, dynasty, export ---------------------------------------------------------------


def ranking_ui(entries: Sequence[Entry], rules: Rules) -> Ranking | None:
    """The ranking table with every tie-break explained; None when it cannot be ranked."""
    st.subheader("🏆 Ranking")
    st.caption(rules_line(rules))
    if rules.side == STANDARD_SIZE and any(max(e.kingdom.shape) > STANDARD_SIZE for e in entries):
        st.warning(
            f"A kingdom is larger than {STANDARD_SIZE}×{STANDARD_SIZE}: for Mighty Duel, choose "
            f"the {DUEL_SIZE}×{DUEL_SIZE} variant in the sidebar (☰ on a phone)."
        )
    if len(entries) < 2:
        e = entries[0]
        st.markdown(f"**{e.name}** scores **{e.breakdown.total}**. Add a second kingdom to rank.")
        return None
    if len(entries) > MAX_PLAYERS:
        st.warning(
            f"{len(entries)} kingdoms: a game has at most {MAX_PLAYERS} players. "
            "Remove a photo or a typed grid to rank them."
        )
        return None
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        st.warning("Two players have the same name; give each player a different name to rank.")
        return None
    ranking = rank([Player(e.name, (e.kingdom,)) for e in entries], rules)
    by_name = {e.name: e for e in entries}
    table = pd.DataFrame(
        [
            {
                "Place": s.place,
                "Player": s.name,
                "Total": s.total,
                "Largest property": s.largest_property,
                "Crowns": s.crowns,
                "Note": "✏️ corrected by hand" if by_name[s.name].corrected else "",
            }
            for s in ranking.standings
        ]
    )
    winners = ranking.winners
    if len(winners) == 1:
        st.success(f"🏆 **{winners[0]}** wins with {ranking.standings[0].total} points.")
    else:
        st.success(f"🏆 Shared victory: **{' and '.join(winners)}**.")
    st.dataframe(table, hide_index=True, width="stretch")
    for text in ranking.explanations:
        st.info(f"⚖️ {text}")
    return ranking


def rules_line(rules: Rules) -> str:
    """The rules in play, in one line, so nobody has to open the sidebar to check them."""
    side = rules.side
    if side is None:
        variant = (
            f"grid size from each kingdom ({STANDARD_SIZE}×{STANDARD_SIZE}, "
            f"or {DUEL_SIZE}×{DUEL_SIZE} for Mighty Duel)"
        )
    elif side == STANDARD_SIZE:
        variant = f"Standard {side}×{side}"
    else:
        variant = f"Mighty Duel {side}×{side}"
    parts = [
        variant,
        f"Harmony {'on' if rules.harmony else 'off'}",
        f"Middle Kingdom {'on' if rules.middle_kingdom else 'off'}",
    ]
    if rules.tiebreak is TieBreakOrder.CROWNS_FIRST:
        parts.append(f'house rule "{CROWNS_FIRST_NAME}"')
    else:
        parts.append("official tie-break (largest property, then crowns)")
    return "Rules: " + " · ".join(parts)


def dynasty_ui(entries: Sequence[Entry], rules: Rules) -> None:
    """Add the game to a running Dynasty; list, rank and delete past games."""
    with st.expander("👑 Dynasty: three games in a row"):
        dynasty_body(entries, rules)


def dynasty_body(entries: Sequence[Entry], rules: Rules) -> None:
    """The Dynasty panel: save this game, list and delete saved games, rank a finished Dynasty."""
    try:
        store = GameStore()
        known = store.dynasties()
        st.caption(
            f"A Dynasty is {DYNASTY_GAMES} games by the same players with the same rules; the "
            "highest sum of totals wins. Ties are broken by the same steps over the three "
            "kingdoms together (a house rule). Saved games survive a reload or a restart."
        )
        name = st.text_input(
            "Dynasty name", value=known[0] if known else "Dynasty 1", key="dynasty_name"
        )
        if st.button("➕ Add this game to the dynasty", key="save_game"):
            game_id = store.save_game(
                name or "",
                [(e.name, e.kingdom) for e in entries],
                rules,
                corrected=[e.corrected for e in entries],
            )
            st.success(f"Saved as game {game_id} of {name}.")
        games = store.games(name or "")
        if games:
            _games_ui(store, games)
            if len(games) == DYNASTY_GAMES:
                _dynasty_ranking_ui(store.dynasty_standings(name or ""))
            else:
                st.caption(f"{len(games)} of {DYNASTY_GAMES} games played.")
        else:
            st.caption("No games saved in this Dynasty yet.")
        others = [d for d in known if d != " ".join((name or "").split())]
        if others:
            st.markdown("**Other Dynasties**")
            for other in others:
                _games_ui(store, store.games(other), title=other)
    except ScorerError as err:
        show_problem(_problem(err))


def _games_ui(store: GameStore, games: Sequence[Any], title: str = "") -> None:
    for game in games:
        players = ", ".join(
            f"{p.name} {p.total}" + (" ✏️" if p.corrected else "") for p in game.players
        )
        when = game.created.astimezone().strftime("%Y-%m-%d %H:%M")
        label = f"{title} · " if title else ""
        left, right = st.columns([5, 1])
        left.markdown(f"{label}Game {game.id} · {when} · {players}")
        if right.button("🗑️ Delete", key=f"delete-game-{game.id}"):
            store.delete_game(game.id)
            st.rerun()


def _dynasty_ranking_ui(ranking: Ranking) -> None:
    st.markdown(f"**Dynasty ranking** (sum of {DYNASTY_GAMES} games)")
    winners = ranking.winners
    if len(winners) == 1:
        st.success(f"🏆 **{winners[0]}** wins the Dynasty with {ranking.standings[0].total}.")
    else:
        st.success(f"🏆 Shared Dynasty victory: **{' and '.join(winners)}**.")
    st.dataframe(
        [
            {
                "Place": s.place,
                "Player": s.name,
                "Total": s.total,
                "Games": " + ".join(str(b.total) for b in s.scores),
                "Largest property": s.largest_property,
                "Crowns": s.crowns,
            }
            for s in ranking.standings
        ],
        hide_index=True,
    )
    for text in ranking.explanations:
        st.info(f"⚖️ {text}")


def export_ui(entries: Sequence[Entry], rules: Rules, ranking: Ranking | None) -> None:
    """Download buttons: JSON (the command line's shape), CSV and the annotated picture."""
    st.subheader("⬇️ Download")
    results = [e.result() for e in entries]
    cols = st.columns(3)
    cols[0].download_button(
        "Results (JSON)",
        results_json(results, rules, ranking),
        file_name="kingdomino-results.json",
        mime="application/json",
        key="download-json",
    )
    cols[1].download_button(
        "Results (CSV)",
        results_csv(results, rules, ranking),
        file_name="kingdomino-results.csv",
        mime="text/csv",
        key="download-csv",
    )
    cols[2].download_button(
        "Annotated kingdoms (PNG)",
        _annotated_png(entries),
        file_name="kingdomino-kingdoms.png",
        mime="image/png",
        key="download-png",
    )


# --- helpers ---------------------------------------------------------------------------------


def show_problem(problem: Problem) -> None:
    """Show an expected failure: the message, then the next step."""
    st.error(problem.message)
    if problem.hint:
        st.info(f"Next step: {problem.hint}")


def _problem(err: ScorerError) -> Problem:
    message = str(err) or type(err).__name__
    message = message[0].upper() + message[1:]
    return Problem(type(err).__name__, message, err.hint, isinstance(err, BoardNotFoundError))


def _blocks(text: str) -> list[tuple[int, str]]:
    """Blocks of non-blank lines with the 1-based line number where each starts."""
    blocks: list[tuple[int, str]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            blocks.append((start, "\n".join(current)))
            current = []
    if current:
        blocks.append((start, "\n".join(current)))
    return blocks


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _inside(pos: Position, shape: tuple[int, int]) -> bool:
    return 0 <= pos[0] < shape[0] and 0 <= pos[1] < shape[1]


def _annotated_png(entries: Sequence[Entry]) -> bytes:
    rows = []
    for e in entries:
        pictures = e.pictures or [render.draw_kingdom(e.kingdom, properties=e.breakdown.properties)]
        labelled = render.side_by_side(pictures, 500)
        rows.append(_caption_above(labelled, f"{e.name}: {e.breakdown.total} points"))
    width = max(r.shape[1] for r in rows)
    padded = [
        np.pad(r, ((0, 12), (0, width - r.shape[1]), (0, 0)), constant_values=255) for r in rows
    ]
    return render.encode_png(np.vstack(padded))


def _caption_above(image: NDArray[Any], text: str) -> NDArray[Any]:
    band = np.full((44, image.shape[1], 3), 255, np.uint8)
    cv2.putText(band, text, (8, 31), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2, cv2.LINE_AA)
    return np.vstack([band, image])


if __name__ == "__main__":
    main()
