"""The page's inputs: the rules in the sidebar, photos, and kingdoms typed as text grids."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import streamlit as st

from scorer import i18n
from scorer.i18n import _, words
from scorer.page import state
from scorer.page.common import (
    APP_DIR,
    PER_PLAYER,
    WHOLE_TABLE,
    FoundKingdom,
    Photo,
    Problem,
    show_problem,
)
from scorer.rules.kingdom import DUEL_SIZE, STANDARD_SIZE, GridParseError, Kingdom
from scorer.rules.scoring import (
    CROWNS_FIRST_NAME,
    HARMONY_BONUS,
    MAX_PLAYERS,
    MIDDLE_KINGDOM_BONUS,
    Rules,
    TieBreakOrder,
)

SAMPLE_ENV: Final = "KINGDOMINO_SAMPLE"
"""Environment variable naming the sample photo shown on first run."""

DEFAULT_SAMPLE: Final = APP_DIR / "sample_images" / "sample_board.jpg"
PHOTO_TYPES: Final = ["jpg", "jpeg", "png", "webp", "heic", "heif"]

AUTOMATIC: Final = (
    f"From each kingdom's size ({STANDARD_SIZE}×{STANDARD_SIZE} or {DUEL_SIZE}×{DUEL_SIZE})"
)
VARIANTS: Final[dict[str, int | None]] = {
    AUTOMATIC: None,
    f"Standard {STANDARD_SIZE}×{STANDARD_SIZE}": STANDARD_SIZE,
    f"Mighty Duel {DUEL_SIZE}×{DUEL_SIZE}": DUEL_SIZE,
}
"""Grid side of each variant; None measures each kingdom in its photo and scores it as found."""

MAX_TYPED_KINGDOMS: Final = 2 * MAX_PLAYERS
"""The most kingdoms read from the typed text: a game has at most 4 players; a few more are
read for a whole table, and no more, so a paste of hundreds cannot exhaust the page's memory."""

MAX_TYPED_CHARS: Final = 64 * 1024
"""The longest typed text read, in characters: eight 7×7 grids with comments are a few KB."""

EXAMPLE_GRID: Final = (
    "G0 L0 F0 F0 F0\nG0 L0 F1 F0 W0\nG0 G0 C F0 F0\nW0 S0 S1 W0 W0\nW1 S0 S0 L1 L0"
)


def variant_label(variant: str) -> str:
    """A variant's name in the player's language (the options keep their English keys)."""
    small, large = STANDARD_SIZE, DUEL_SIZE
    if VARIANTS.get(variant) == STANDARD_SIZE:
        return _("Standard {side}×{side}", side=small)
    if VARIANTS.get(variant) == DUEL_SIZE:
        return _("Mighty Duel {side}×{side}", side=large)
    return _(
        "From each kingdom's size ({small}×{small} or {large}×{large})", small=small, large=large
    )


def rules_ui() -> Rules:
    """The variant and options the players chose; shown in the sidebar."""
    with st.sidebar:
        st.header(_("Game"))
        variant = st.radio(
            _("Variant"),
            list(VARIANTS),
            key=state.VARIANT,
            format_func=i18n.pinned(variant_label),
            help=_("Choose the grid size when the photo is read with the wrong number of squares."),
        )
        st.caption(_("Bonuses (the players choose before the game)"))
        harmony = st.checkbox(
            _("Harmony (+{bonus})", bonus=HARMONY_BONUS),
            key=state.HARMONY,
            help=_("A complete kingdom: every square of the grid filled."),
        )
        middle = st.checkbox(
            _("Middle Kingdom (+{bonus})", bonus=MIDDLE_KINGDOM_BONUS),
            key=state.MIDDLE_KINGDOM,
            help=_("The castle is in the centre of the kingdom."),
        )
        st.caption(_("Tie-break"))
        crowns_first = st.checkbox(
            _("House rule: {rule}", rule=_(CROWNS_FIRST_NAME)),
            key=state.CROWNS_FIRST,
            help=_(
                "The published rules compare the largest property first, then crowns. "
                "This house rule swaps the two steps."
            ),
        )
        if crowns_first:
            st.warning(_('House rule in play: "{rule}".', rule=_(CROWNS_FIRST_NAME)))
    side = VARIANTS[variant or next(iter(VARIANTS))]
    order = TieBreakOrder.CROWNS_FIRST if crowns_first else TieBreakOrder.OFFICIAL
    return Rules(harmony=harmony, middle_kingdom=middle, tiebreak=order, side=side)


def photos_ui() -> tuple[list[Photo], bool]:
    """Uploads and the camera; return the photos and whether one photo shows the whole table."""
    st.subheader(_("Photos"))
    mode = st.radio(
        _("What do the photos show?"),
        [PER_PLAYER, WHOLE_TABLE],
        horizontal=True,
        key=state.PHOTO_MODE,
        format_func=i18n.pinned(_),
    )
    uploads = st.file_uploader(
        _("Upload photos (JPEG, PNG, WebP or HEIC)"),
        type=PHOTO_TYPES,
        accept_multiple_files=True,
        key=state.UPLOADS,
        help=_(
            "Photograph from above, with the whole kingdom in frame. On a phone, Upload "
            "also offers to take a photo with the camera."
        ),
    )
    photos = [Photo(u.name, u.getvalue()) for u in uploads or []]
    if st.toggle(
        _("Take a photo with this device's camera"),
        key=state.USE_CAMERA,
        help=_(
            "Browsers allow the camera only on https:// pages or on localhost. On a phone "
            "reaching this page over the local network, use Upload, which offers the camera."
        ),
    ):
        shot = st.camera_input(_("Photograph a kingdom from above"), key=state.CAMERA)
        if shot is not None:
            photos.append(Photo(_("camera photo"), shot.getvalue()))
    unique = list({p.key: p for p in reversed(photos)}.values())[::-1]
    if len(unique) < len(photos):
        st.info(_("The same photo was given twice; it is scored once."))
    return unique, mode == WHOLE_TABLE


def typed_ui() -> list[FoundKingdom]:
    """Kingdoms typed or pasted as text grids, one per player, separated by a blank line."""
    with st.expander("⌨️ " + _("Type or paste kingdoms as text grids")):
        st.caption(
            _(
                "One row a line, squares separated by spaces: a terrain letter (W wheat, "
                "F forest, L lake, G grassland, S swamp, M mine) and its crowns, C for the "
                "castle, . for empty. Leave a blank line between kingdoms; each kingdom is "
                "one player."
            )
        )
        text = st.text_area(
            _("Grids"),
            key=state.TYPED_GRIDS,
            height=180,
            placeholder=EXAMPLE_GRID,
        )
    kingdoms, problems = parse_grids(text or "")
    for problem in problems:
        show_problem(problem)
    return kingdoms


def parse_grids(text: str) -> tuple[list[FoundKingdom], list[Problem]]:
    """Split pasted text at blank lines and read each block as one kingdom.

    Line numbers in the problems count from the top of the whole text.

    At most :data:`MAX_TYPED_KINGDOMS` kingdoms are read, from at most
    :data:`MAX_TYPED_CHARS` characters; beyond, a problem says so.

    >>> kingdoms, problems = parse_grids("F1 C\\n\\nM2 X9 C")
    >>> [k.key for k in kingdoms], problems[0].message
    (['typed-1'], "Typed grid 2 (line 3, square 2, 'X9'): unknown terrain letter 'X'.")
    >>> kingdoms, problems = parse_grids("F1 C\\n\\n" * 500)
    >>> len(kingdoms), problems[0].message
    (8, '500 kingdoms were typed; a game has at most 4 players, and only the first 8 are read.')
    """
    kingdoms: list[FoundKingdom] = []
    problems: list[Problem] = []
    if len(text) > MAX_TYPED_CHARS:
        problem = Problem(
            "GridParseError",
            _(
                "The typed text is {length} characters long; at most {most} are read, "
                "so none of it was.",
                length=i18n.number(len(text)),
                most=i18n.number(MAX_TYPED_CHARS),
            ),
            _("Type or paste one grid per player, a blank line between them."),
        )
        return kingdoms, [problem]
    typed = blocks(text)
    if len(typed) > MAX_TYPED_KINGDOMS:
        problems.append(
            Problem(
                "GridParseError",
                _(
                    "{count} kingdoms were typed; a game has at most {players} players, "
                    "and only the first {read} are read.",
                    count=len(typed),
                    players=MAX_PLAYERS,
                    read=MAX_TYPED_KINGDOMS,
                ),
                _("Leave a blank line only between two players' kingdoms, and keep one game."),
            )
        )
    for number, (first_line, block) in enumerate(typed[:MAX_TYPED_KINGDOMS], start=1):
        try:
            kingdom = Kingdom.parse(block)
        except GridParseError as err:
            where = [_("line {n}", n=err.line + first_line - 1)] if err.line is not None else []
            if err.column is not None:
                where.append(_("square {n}", n=err.column))
            if err.token is not None:
                where.append(repr(err.token))
            place = f" ({', '.join(where)})" if where else ""
            problems.append(
                Problem(
                    "GridParseError",
                    _(
                        "Typed grid {number}{place}: {reason}.",
                        number=number,
                        place=place,
                        reason=words(err.wording),
                    ),
                    _("Fix that square; the other kingdoms are scored meanwhile."),
                )
            )
            continue
        kingdoms.append(
            FoundKingdom(f"typed-{number}", _("typed grid {number}", number=number), kingdom)
        )
    return kingdoms, problems


def blocks(text: str) -> list[tuple[int, str]]:
    """Blocks of non-blank lines with the 1-based line number where each starts.

    >>> blocks("a\\nb\\n\\n\\nc")
    [(1, 'a\\nb'), (5, 'c')]
    """
    found: list[tuple[int, str]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            found.append((start, "\n".join(current)))
            current = []
    if current:
        found.append((start, "\n".join(current)))
    return found


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
    return Photo(_("{name} (sample)", name=path.name), path.read_bytes(), sample=True)
