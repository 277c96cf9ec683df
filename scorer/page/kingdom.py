"""One player's kingdom on the page: pictures, corrections by hand and the score breakdown."""

from __future__ import annotations

from typing import Final

import pandas as pd  # type: ignore[import-untyped]
import streamlit as st

from scorer.i18n import _, message, ngettext, words
from scorer.page.common import TOKENS, Entry, FoundKingdom, PhotoView
from scorer.page.photo import corners_ui
from scorer.page.picker import image_picker
from scorer.page.recognition import keep_ui
from scorer.page.state import KingdomState
from scorer.pipeline import doubtful_hint, small_squares_note
from scorer.results import render
from scorer.results.report import format_positions
from scorer.rules.kingdom import Cell, Kingdom, Position, Terrain
from scorer.rules.scoring import (
    TERRAIN_WORDS,
    Rules,
    is_centred,
    is_complete,
    score,
    tileset_violations,
)

TERRAIN_ICONS: Final = {
    Terrain.WHEAT: "🌾",
    Terrain.FOREST: "🌲",
    Terrain.LAKE: "🌊",
    Terrain.GRASSLAND: "🌿",
    Terrain.SWAMP: "🐸",
    Terrain.MINE: "⛏️",
}


def kingdom_ui(
    found: FoundKingdom, index: int, rules: Rules, view: PhotoView | None = None
) -> Entry:
    """One player's kingdom: name and total, pictures, corrections and the score breakdown.

    A total the program does not stand behind is shown as unconfirmed, with its reasons,
    a "This is right" button and the corner tool open beside it.
    """
    memory = KingdomState(found.key)
    with st.container(border=True):
        head, total_box = st.container(key=f"kingdom-head-{found.key}").columns([3, 1])
        default = _("Player {n}", n=index + 1)
        memory.restore_name()
        typed = head.text_input(_("Player"), key=memory.name_key, max_chars=40, placeholder=default)
        memory.keep_name(typed or "")
        name = (typed or "").strip() or default
        head.caption(
            _("From {source}", source=found.source)
            if found.photo_key
            else "⌨️ " + _("Typed by hand ({source})", source=found.source)
        )
        status = st.container()
        left, right = st.columns([2, 3] if view is not None else [1, 1])
        tools = st.container()
        with st.expander("✏️ " + _("Correct squares"), expanded=False):
            kingdom = correction_ui(found)
        breakdown = score(kingdom, rules)
        violations = tileset_violations(kingdom, rules)
        entry = Entry(found, name, kingdom, breakdown, violations)
        entry.player_confirmed = memory.confirmed_reading == found.kingdom
        settled = entry.settled
        total_box.metric(_("Total") if settled else _("Total (unconfirmed)"), breakdown.total)
        if entry.corrected:
            total_box.markdown(":blue-badge[✏️ " + _("corrected by hand") + "]")
        elif not settled:
            total_box.markdown(":orange-badge[⚠️ " + _("unconfirmed") + "]")
        if not settled:
            with status:
                unconfirmed_ui(entry)
        if view is not None:
            with left:
                photo_picture(entry, view)
            with right:
                kingdom_picture(entry)
            with status if not settled else tools:  # open beside an unconfirmed total
                corners_ui(view, found.slot, open_now=not settled)
            with tools:
                keep_ui(entry, view)
            breakdown_ui(entry, rules)
        else:
            with left:
                kingdom_picture(entry)
            with right:
                breakdown_ui(entry, rules, narrow=True)
    return entry


def unconfirmed_ui(entry: Entry) -> None:
    """Why the total is unconfirmed, and the button by which the player confirms it."""
    reasons = "; ".join(entry.found.reasons)
    st.warning(
        _(
            "**Unconfirmed — check the outline.** {name}'s total of {total} is not ranked "
            "yet: {reasons}. If the outline and the squares are right, press “This is right”; "
            "otherwise mark the four corners below or correct a square.",
            name=entry.name,
            total=entry.breakdown.total,
            reasons=reasons,
        )
    )
    memory = KingdomState(entry.found.key)
    st.button(
        "✅ " + _("This is right"),
        key=memory.confirm_key,
        type="primary",
        on_click=memory.confirm,
        args=(entry.found.kingdom,),
    )


def correction_ui(found: FoundKingdom) -> Kingdom:
    """A per-square editor; return the kingdom with the player's corrections."""
    memory = KingdomState(found.key)
    stored = memory.base
    if stored is not None and stored[0] != found.kingdom:
        # The photo was read again or the typed grid changed: start from the new reading,
        # with a fresh editor (its key changes), since old edits belong to the old grid.
        memory.next_version()
        stored = None
    if stored is None:
        stored = (found.kingdom, found.kingdom)
        memory.base = stored
    base: Kingdom = stored[1]
    st.caption(
        _(
            "Pick a square's value: terrain letter and crowns (W wheat, F forest, L lake, "
            "G grassland, S swamp, M mine), C castle, . empty. You can also click a square on "
            "the labelled kingdom."
        )
    )
    columns = [str(c + 1) for c in range(base.width)]
    table = pd.DataFrame(
        [[cell.token for cell in row] for row in base.rows],
        columns=columns,
        index=[_("row {n}", n=r + 1) for r in range(base.height)],
    )
    config = {
        col: st.column_config.SelectboxColumn(col, options=TOKENS, required=True, width="small")
        for col in columns
    }
    edited = st.data_editor(
        table,
        key=memory.editor_key,
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
        st.error(
            _(
                "That is not a kingdom any more: {reason}. The last valid grid is scored.",
                reason=message(err),
            )
        )
        kingdom = base
    cols = st.columns(2)
    if (kingdom != found.kingdom or base != found.kingdom) and cols[0].button(
        _("Undo all corrections"), key=memory.undo_key
    ):
        memory.base = (found.kingdom, found.kingdom)
        memory.next_version()
        st.rerun()
    return kingdom


def _apply_square(found: FoundKingdom, current: Kingdom, pos: Position, widget: str) -> None:
    """Callback of the square picker: set one square and restart the editor from the result."""
    token = st.session_state.get(widget)
    if not token:
        return
    memory = KingdomState(found.key)
    try:
        kingdom = current.replace(pos, Cell.parse(token))
    except ValueError as err:
        memory.square_error = message(err)
        return
    memory.base = (found.kingdom, kingdom)
    memory.next_version()
    memory.selected = None


def photo_picture(entry: Entry, view: PhotoView) -> None:
    """The part of the photo around the kingdom, with its outline (and the other kingdoms')."""
    found = entry.found
    if found.corners is None:
        return
    several = len(view.kingdoms) > 1
    outlines = [render.Outline(found.corners, found.kingdom.shape, entry.name if several else "")]
    outlines += [
        render.Outline(k.corners, k.kingdom.shape)
        for k in view.kingdoms
        if k.key != found.key and k.corners is not None
    ]
    outlined = render.crop_around(render.draw_outlines(view.preview, outlines), found.corners)
    entry.pictures.append(outlined)
    st.container(key=f"photo-crop-{found.key}").image(
        outlined,
        channels="BGR",
        caption=_("Read inside the corners you marked")
        if found.marked
        else _("Found in the photo"),
        width="stretch",
        output_format="JPEG",
    )


def kingdom_picture(entry: Entry) -> None:
    """The labelled kingdom; clicking a square opens a picker for its value."""
    found = entry.found
    memory = KingdomState(found.key)
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
    click = image_picker(
        picture, key=memory.picker_key, alt=_("The labelled kingdom: tap a square"), quality=88
    )
    st.caption(
        _("Labelled kingdom: each property shows squares × crowns = points. Click a square.")
    )
    if click is not None and memory.new_click(click):
        pos = render.cell_at(
            float(click["x"]),
            float(click["y"]),
            (int(click.get("width") or picture.shape[1]), int(click.get("height") or 1)),
            entry.kingdom.shape,
        )
        if pos is not None:
            memory.selected = pos
    selected = memory.selected
    if selected is not None and _inside(selected, entry.kingdom.shape):
        r, c = selected
        widget = memory.square_key((r, c))
        current = entry.kingdom[(r, c)].token
        st.session_state.setdefault(widget, current)
        st.selectbox(
            _("Square in row {row}, column {column} is", row=r + 1, column=c + 1),
            TOKENS,
            key=widget,
            on_change=_apply_square,
            args=(found, entry.kingdom, (r, c), widget),
        )
    error = memory.take_square_error()
    if error:
        st.error(_("That change would not make a kingdom: {reason}.", reason=error))


def doubtful_words(entry: Entry, doubtful: set[Position]) -> str:
    """The doubtful squares in words, with the likeliest other reading where known."""
    choices = {pos: other for pos, other in entry.found.second_choices if pos in doubtful}
    unknown = sorted(doubtful - set(choices))
    parts = [doubtful_hint(entry.kingdom, choices)] if choices else []
    if unknown:
        parts.append(format_positions(unknown))
    return ", ".join(parts)


def breakdown_ui(entry: Entry, rules: Rules, *, narrow: bool = False) -> None:
    """The score breakdown, property by property, then the bonuses and every warning."""
    b = entry.breakdown
    rows = [
        {
            _("Property"): f"{TERRAIN_ICONS.get(p.terrain, '')} {_(TERRAIN_WORDS[p.terrain])}",
            _("Squares × crowns"): f"{p.squares} × {p.crowns}",
            _("Points"): p.points,
        }
        for p in sorted(b.properties, key=lambda p: (-p.points, -p.squares))
        if p.points
    ]
    crownless = sorted((p for p in b.properties if not p.points), key=lambda p: -p.squares)
    lines = [_("Properties: **{points}**", points=b.property_points)]
    if rules.harmony:
        if is_complete(entry.kingdom, rules):
            lines.append(_("Harmony: **+{bonus}** (every square filled)", bonus=b.harmony))
        else:
            lines.append(_("Harmony: **+{bonus}** (not every square is filled)", bonus=b.harmony))
    if rules.middle_kingdom:
        bonus = b.middle_kingdom
        if is_centred(entry.kingdom, rules):
            lines.append(_("Middle Kingdom: **+{bonus}** (castle in the centre)", bonus=bonus))
        else:
            lines.append(_("Middle Kingdom: **+{bonus}** (castle not in the centre)", bonus=bonus))
    lines.append(_("Total: **{total}**", total=b.total))
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
            st.caption(_("No property has a crown yet, so none scores."))
        if crownless:
            listed = ", ".join(
                ngettext(
                    "{terrain} {n} square",
                    "{terrain} {n} squares",
                    p.squares,
                    terrain=_(TERRAIN_WORDS[p.terrain]),
                )
                for p in crownless
            )
            st.caption(
                _(
                    "Without crowns, 0 points ({count}): {listed}",
                    count=len(crownless),
                    listed=listed,
                )
            )
    with sums_col:
        st.markdown("  \n".join(lines))
        st.caption(
            ngettext(
                "Largest property: {n} square", "Largest property: {n} squares", b.largest_property
            )
            + " · "
            + ngettext("{n} crown in the kingdom", "{n} crowns in the kingdom", b.crowns)
        )
    _warnings_ui(entry)


def _warnings_ui(entry: Entry) -> None:
    """Doubtful squares, impossible kingdoms, odd grids, small squares and moved outlines."""
    doubtful = set(entry.found.doubtful) - entry.edited
    if doubtful:
        st.warning(
            "🔍 "
            + ngettext(
                "Check {n} doubtful square (magenta frame): {squares}.",
                "Check {n} doubtful squares (magenta frame): {squares}.",
                len(doubtful),
                squares=doubtful_words(entry, doubtful),
            )
        )
    for v in entry.violations:
        st.warning(
            "⚠️ "
            + _(
                "This kingdom cannot exist: {reason}. A square is probably misread; check "
                "{squares}.",
                reason=words(v.wording or v.message),
                squares=format_positions(v.positions),
            )
        )
    height, width = entry.kingdom.shape
    if entry.found.photo_key is not None and height != width:
        st.warning(
            _(
                "The grid found is {height}×{width}, not square: check the outline on the "
                "photo, or mark the four corners by hand.",
                height=height,
                width=width,
            )
        )
    small = small_squares_note(entry.found.square_px)
    if small:
        st.warning(f"📷 {small[0].upper()}{small[1:]}.")
    outline = entry.found.outline_note
    if outline:
        st.info(
            "📐 "
            + _(
                "{note} on the photo, or mark the four corners by hand.",
                note=outline[0].upper() + outline[1:],
            )
        )


def _inside(pos: Position, shape: tuple[int, int]) -> bool:
    return 0 <= pos[0] < shape[0] and 0 <= pos[1] < shape[1]
