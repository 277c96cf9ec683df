"""Bundles of confirmed kingdoms: one ``.zip`` a player exports and someone else imports.

A bundle holds ``manifest.json`` (the index rows of its kingdoms, and the sha256 and size
of every other file) and the files it lists: each kingdom's rectified image, and its photo
where the player kept it. :func:`read_bundle` trusts nothing in it: the bundle, each member
and the manifest are capped before they are unpacked, every member name must be one this
program makes (``0123456789abcdef.png``; no folder, no ``..``), each file must be the one the
manifest lists, and each image the one its row names. Nothing is extracted by name; the
caller writes the files it is given under names of its own.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from typing import Any, Final

from scorer import i18n
from scorer.confirmed import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MAX_BUNDLE_BYTES,
    MAX_ITEMS,
    MAX_MANIFEST_BYTES,
    MAX_MEMBER_BYTES,
    MEMBER_NAME,
    BundleError,
    ConfirmedKingdom,
    decode_png,
    sha256,
)
from scorer.i18n import _

FIXED_TIME: Final = (1980, 1, 1, 0, 0, 0)
"""The time every member is stamped with, so the same kingdoms give the same bytes."""


def write_bundle(items: Sequence[ConfirmedKingdom], files: dict[str, bytes]) -> bytes:
    """The bundle of ``items`` and their ``files`` (by name); the same input gives the same
    bytes (no timestamps)."""
    manifest = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "kingdoms": [i.to_json() for i in items],
        "files": {n: {"sha256": sha256(d), "bytes": len(d)} for n, d in sorted(files.items())},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _write_member(archive, MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())
        for name in sorted(files):
            _write_member(archive, name, files[name])
    return buffer.getvalue()


def read_bundle(data: bytes) -> tuple[list[ConfirmedKingdom], dict[str, bytes]]:
    """The rows and files of a bundle, every one checked.

    Raises
    ------
    BundleError
        With the reason, when the bundle breaks a limit, is damaged, or is not what its
        manifest says.
    """
    if len(data) > MAX_BUNDLE_BYTES:
        raise BundleError(
            _(
                "the bundle is {size} bytes, more than {limit}",
                size=i18n.number(len(data)),
                limit=i18n.number(MAX_BUNDLE_BYTES),
            )
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as err:
        raise BundleError(
            _("this is not a bundle: not a zip file ({reason})", reason=err)
        ) from None
    with archive:
        members = archive.infolist()
        names = [m.filename for m in members]
        odd = [n for n in names if n != MANIFEST and not MEMBER_NAME.fullmatch(n)]
        if odd:
            raise BundleError(
                _("the bundle holds a file that is not one of ours: {name}", name=repr(odd[0]))
            )
        if len(set(names)) != len(names):
            raise BundleError(_("the bundle names a file twice"))
        if MANIFEST not in names:
            raise BundleError(_("the bundle has no {manifest}", manifest=MANIFEST))
        if len(members) > 2 * MAX_ITEMS + 1:
            raise BundleError(
                _(
                    "the bundle holds {count} files, more than {limit}",
                    count=len(members),
                    limit=2 * MAX_ITEMS + 1,
                )
            )
        unpacked = sum(m.file_size for m in members)
        if unpacked > MAX_BUNDLE_BYTES:
            raise BundleError(
                _(
                    "the bundle unpacks to {size} bytes, more than {limit}",
                    size=i18n.number(unpacked),
                    limit=i18n.number(MAX_BUNDLE_BYTES),
                )
            )
        by_name = {m.filename: m for m in members}
        manifest = _manifest(_read_member(archive, by_name[MANIFEST], MAX_MANIFEST_BYTES))
        listed = manifest["files"]
        if set(listed) != set(names) - {MANIFEST}:
            extra = sorted(set(names) - {MANIFEST} - set(listed))
            missing = sorted(set(listed) - set(names))
            if extra:
                raise BundleError(
                    _("the bundle holds a file the manifest does not list: {name}", name=extra[0])
                )
            raise BundleError(
                _("the bundle holds no file {name}, which the manifest lists", name=missing[0])
            )
        files = {}
        for name, entry in listed.items():
            content = _read_member(archive, by_name[name], MAX_MEMBER_BYTES)
            if len(content) != entry["bytes"] or sha256(content) != entry["sha256"]:
                raise BundleError(
                    _("{name} is not the file the manifest lists (its sha256 or size)", name=name)
                )
            files[name] = content
    rows = []
    for number, raw in enumerate(manifest["kingdoms"], 1):
        try:
            row = ConfirmedKingdom.from_json(raw)
        except ValueError as err:
            raise BundleError(
                _("kingdom {number} of the manifest: {problem}", number=number, problem=err)
            ) from None
        if row.image not in files or sha256(files[row.image]) != row.image_sha256:
            raise BundleError(
                _("kingdom {ident}: its image is missing or not the one named", ident=row.id)
            )
        if row.photo is not None and (
            row.photo not in files or sha256(files[row.photo]) != row.photo_file_sha256
        ):
            raise BundleError(
                _("kingdom {ident}: its photo is missing or not the one named", ident=row.id)
            )
        decode_png(files[row.image], row.kingdom.shape, row.image, BundleError)
        rows.append(row)
    if len({r.id for r in rows}) != len(rows):
        raise BundleError(_("the manifest lists a kingdom twice"))
    used = {r.image for r in rows} | {r.photo for r in rows if r.photo}
    if used != set(files):
        raise BundleError(
            _(
                "the bundle holds a file no kingdom uses: {name}",
                name=sorted(set(files) - used)[0],
            )
        )
    return rows, files


def _manifest(raw: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except ValueError as err:
        raise BundleError(
            _("{manifest} is not JSON ({reason})", manifest=MANIFEST, reason=err)
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(
            _(
                "{manifest} is not the manifest of a bundle of confirmed kingdoms",
                manifest=MANIFEST,
            )
        )
    if manifest.get("version") != FORMAT_VERSION:
        raise BundleError(
            _(
                "the bundle has version {found}; this program reads version {version}",
                found=repr(manifest.get("version")),
                version=FORMAT_VERSION,
            )
        )
    kingdoms, files = manifest.get("kingdoms"), manifest.get("files")
    if not isinstance(kingdoms, list) or not isinstance(files, dict):
        raise BundleError(_("{manifest} lacks its list of kingdoms or of files", manifest=MANIFEST))
    if len(kingdoms) > MAX_ITEMS:
        raise BundleError(
            _(
                "the bundle holds {count} kingdoms, more than {limit}",
                count=len(kingdoms),
                limit=MAX_ITEMS,
            )
        )
    for name, entry in files.items():
        if (
            not MEMBER_NAME.fullmatch(name)
            or not isinstance(entry, dict)
            or not isinstance(entry.get("sha256"), str)
            or not isinstance(entry.get("bytes"), int)
        ):
            raise BundleError(
                _("{manifest} lists an odd file: {name}", manifest=MANIFEST, name=repr(name))
            )
    return manifest


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, cap: int) -> bytes:
    """A member's bytes, read in pieces, so that none unpacks beyond ``cap`` or its size."""
    if member.file_size > cap:
        raise BundleError(
            _(
                "{name} is {size} bytes, more than {limit}",
                name=member.filename,
                size=i18n.number(member.file_size),
                limit=i18n.number(cap),
            )
        )
    if member.flag_bits & 0x1 or member.compress_type not in (
        zipfile.ZIP_STORED,
        zipfile.ZIP_DEFLATED,
    ):
        raise BundleError(
            _("{name} is encrypted or compressed in an unknown way", name=member.filename)
        )
    parts, size = [], 0
    try:
        with archive.open(member) as f:
            while chunk := f.read(1 << 16):
                size += len(chunk)
                if size > member.file_size:
                    raise BundleError(_("{name} holds more than it declares", name=member.filename))
                parts.append(chunk)
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise BundleError(
            _("{name} is damaged ({reason})", name=member.filename, reason=err)
        ) from None
    return b"".join(parts)


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)
