"""Help improve recognition: keep the kingdoms the player confirms, on this computer only.

Off by default. When the player turns it on in the sidebar, each kingdom read from a
photo gets a button by which the player confirms its squares (pressing "This is right"
confirms it too); the kingdom is then kept by :class:`scorer.confirmed.ConfirmedStore`,
with the squares the player corrected, and the page says so quietly. The panel "Your
recognition data" shows what is kept, deletes any or all of it, and exports it as a bundle.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Final

import numpy as np
import streamlit as st

from scorer.confirmed import ConfirmedKingdom, ConfirmedStore, ConfirmedStoreError
from scorer.i18n import _, ngettext
from scorer.page import state
from scorer.page.common import Entry, PhotoView

EXPORT_NAME: Final = "kingdomino-recognition-data.zip"
"""The file name the export is offered under."""

LISTED: Final = 20
"""The most kept kingdoms listed one by one in the panel (the newest); all are counted."""


def settings_ui() -> None:
    """The setting and its panel, in the sidebar: off by default, explained in one sentence."""
    with st.sidebar:
        st.header(_("Recognition"))
        on = st.toggle(_("Help improve recognition on this computer"), key=state.KEEP_RECOGNITION)
        st.caption(
            _(
                "Kingdoms you confirm are kept in a folder on this computer, to train a "
                "better reader; nothing is sent anywhere."
            )
        )
        if on:
            st.checkbox(
                _("Keep the whole photo too"),
                key=state.KEEP_PHOTOS,
                help=_("Otherwise only the kingdom's squares are kept, not the rest of the table."),
            )
        data_ui()


def data_ui() -> None:
    """The panel "Your recognition data": counts, delete one or all, and the export."""
    store = ConfirmedStore()
    with st.expander(_("Your recognition data"), key=state.RECOGNITION_PANEL):
        problem = st.session_state.pop(state.RECOGNITION_DELETE_PROBLEM, None)
        if problem:
            st.error(_("Not deleted: {problem}", problem=problem))
        kept = st.container()  # filled after the import below, so its counts include it
        _import_ui(store)
        with kept:
            try:
                _kept_ui(store)
            except ConfirmedStoreError as err:
                st.error(str(err))
                st.caption(_(err.hint))


def _kept_ui(store: ConfirmedStore) -> None:
    """What is kept, with the buttons that delete and export it."""
    items = store.items()
    summary = store.summary()
    if not items:
        st.caption(_("Nothing is kept. Folder: {folder}", folder=str(store.folder)))
        return
    st.markdown(
        ngettext("{n} kingdom kept", "{n} kingdoms kept", summary.kingdoms)
        + " · "
        + ngettext("{n} square", "{n} squares", summary.squares)
        + " · "
        + ngettext("{n} corrected", "{n} corrected", summary.corrected)
        + " · "
        + ngettext("{n} photo", "{n} photos", summary.photos)
    )
    st.caption(_("Folder: {folder}", folder=str(store.folder)))
    for item in reversed(items[-LISTED:]):
        _item_ui(store, item)
    st.download_button(
        _("⬇️ Export as a bundle (.zip)"),
        data=store.export_bundle,
        file_name=EXPORT_NAME,
        mime="application/zip",
        key=state.EXPORT_RECOGNITION,
    )
    st.button(
        _("🗑️ Delete all"),
        key=state.DELETE_RECOGNITION,
        on_click=_delete,
        args=(store, None),
    )


def _import_ui(store: ConfirmedStore) -> None:
    """Import bundles exported on other computers (a club's, a maintainer's)."""
    bundles = st.file_uploader(
        _("Import bundles (.zip)"),
        type=["zip"],
        accept_multiple_files=True,
        key=state.IMPORT_RECOGNITION,
        help=_("Kingdoms already kept are skipped; a damaged or altered bundle is refused."),
    )
    if not bundles or not st.button(_("Import"), key=state.IMPORT_RECOGNITION_GO):
        return
    for bundle in bundles:
        try:
            result = store.import_bundle(bundle.getvalue())
        except ConfirmedStoreError as err:
            st.error(_("{name} was refused: {reason}", name=bundle.name, reason=str(err)))
            continue
        st.success(
            _("{name}: ", name=bundle.name)
            + ngettext("{n} kingdom added", "{n} kingdoms added", len(result.added))
            + ", "
            + ngettext("{n} already kept", "{n} already kept", len(result.duplicates))
        )


def _item_ui(store: ConfirmedStore, item: ConfirmedKingdom) -> None:
    left, right = st.columns([3, 1])
    left.caption(
        _(
            "{when}: {rows}×{cols}",
            when=item.created[:16].replace("T", " "),
            rows=item.kingdom.height,
            cols=item.kingdom.width,
        )
        + ", "
        + ngettext("{n} square corrected", "{n} squares corrected", len(item.corrections))
    )
    right.button(
        _("Delete"),
        key=state.delete_recognition_key(item.id),
        on_click=_delete,
        args=(store, item.id),
    )


def _delete(store: ConfirmedStore, ident: str | None) -> None:
    """Callback of the delete buttons: one kingdom, or all when ``ident`` is None."""
    try:
        if ident is None:
            store.delete_all()
        else:
            store.delete(ident)
        _forget_kept(ident)
    except ConfirmedStoreError as err:
        st.session_state[state.RECOGNITION_DELETE_PROBLEM] = str(err)


def keep_ui(entry: Entry, view: PhotoView | None) -> None:
    """Under a kingdom read from a photo, with the setting on: the button that confirms its
    squares and keeps it, or a quiet note that it is kept. Pressing "This is right" keeps it
    too, for the reading as it is. A kingdom is kept once per grid: confirming it again after
    a correction keeps it again, in its place."""
    found = entry.found
    report = found.report
    if not st.session_state.get(state.KEEP_RECOGNITION) or view is None or report is None:
        return
    if view.photo.sample:
        return  # the sample photo is not the player's table
    kept = _kept_grid(found.key)
    grid = entry.kingdom.format()
    if entry.player_confirmed and entry.kingdom == found.kingdom and kept != grid:
        _keep(entry, view)  # "This is right" confirms the reading as it is
    elif kept != grid:
        st.button(
            _("👍 Squares all right: keep for recognition"),
            key=state.keep_key(found.key),
            help=_("Keeps this kingdom on this computer, with your corrections, to train on."),
            on_click=_keep,
            args=(entry, view),
        )
    problem = st.session_state.pop(state.RECOGNITION_PROBLEM, None)
    if problem:
        st.warning(_("Not kept for recognition: {problem}", problem=problem))
    elif _kept_grid(found.key) == grid:
        st.caption(_("✔️ Kept on this computer to improve recognition."))


def _keep(entry: Entry, view: PhotoView) -> None:
    """Keep the kingdom as it stands; remember its grid, or why it could not be kept."""
    found = entry.found
    report = found.report
    assert report is not None
    try:
        item = ConfirmedStore().save(
            np.asarray(report.board),
            entry.kingdom,
            found.kingdom,
            photo=view.photo.data,
            corners=np.asarray(report.corners, dtype=np.float64).tolist(),
            keep_photo=bool(st.session_state.get(state.KEEP_PHOTOS)),
            photo_suffix=PurePath(view.photo.name).suffix,
        )
    except (ConfirmedStoreError, ValueError) as err:
        st.session_state[state.RECOGNITION_PROBLEM] = str(err)
        return
    st.session_state[state.kept_key(found.key)] = (entry.kingdom.format(), item.id)


def _kept_grid(kingdom_key: str) -> str | None:
    """The grid of this kingdom kept in this session, or None."""
    kept: tuple[str, str] | None = st.session_state.get(state.kept_key(kingdom_key))
    return None if kept is None else kept[0]


def _forget_kept(ident: str | None) -> None:
    """Forget that a kingdom was kept (all, when ``ident`` is None): it was deleted."""
    for key in [k for k in st.session_state if str(k).startswith(state.kept_key(""))]:
        value = st.session_state[key]
        if ident is None or (isinstance(value, tuple) and value[1] == ident):
            del st.session_state[key]
