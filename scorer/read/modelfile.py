"""The model file: numeric arrays and a JSON header in one zip archive, nothing that runs.

The archive is an ``.npz`` file (``numpy.load(path, allow_pickle=False)`` opens it),
with a ``header.json`` member that names what the arrays are. Nothing in it is
unpickled or imported, so a file from anywhere can be read without running its
code. :func:`read_archive` also trusts none of its sizes: the file, the header and
the unpacked arrays are capped before anything is unpacked, every array is a plain
number or boolean array whose header agrees with its member's size, and an
archive that says otherwise is refused, so a forged file cannot take gigabytes of
memory. :func:`write_archive` writes the same bytes for the same arrays (no
timestamps), so the same model always has the same sha256.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Mapping
from typing import Any, Final

import numpy as np

HEADER: Final = "header.json"
"""The archive member that describes the arrays."""

MAX_FILE_BYTES: Final = 32 << 20
"""The largest model file read (the committed one is about 2 MB)."""

MAX_UNPACKED_BYTES: Final = 64 << 20
"""The most all members of the archive may hold once unpacked."""

MAX_HEADER_BYTES: Final = 1 << 20
"""The largest ``header.json``, and the largest metadata file beside the model."""

MAX_MEMBERS: Final = 256
"""The most members an archive may have."""

_DTYPES: Final = frozenset({"b1", "i4", "i8", "f4", "f8"})
"""The array types a model is made of (any byte order)."""

_CHUNK: Final = 1 << 16
_FIXED_TIME: Final = (1980, 1, 1, 0, 0, 0)


def write_archive(path: Any, header: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` (as ``NAME.npy`` members) and ``header`` into a deflated zip.

    Parameters
    ----------
    path : str or Path
        The file to write.
    header : mapping
        JSON-serialisable description, stored as :data:`HEADER`.
    arrays : mapping of str to numpy.ndarray
        Plain numeric or boolean arrays, by name. A column-major (Fortran-order) array
        is kept so, as the same product with it is then computed in the same order.
    """
    with zipfile.ZipFile(path, "w") as archive:
        _write_member(archive, HEADER, json.dumps(header, sort_keys=True).encode("utf-8"))
        for name in sorted(arrays):
            array = np.asarray(arrays[name])
            if not array.flags.f_contiguous:  # a column-major array stays one (``.T`` ops)
                array = np.ascontiguousarray(array)
            if array.dtype.str[1:] not in _DTYPES:
                raise ValueError(f"array {name!r} has type {array.dtype}, not a plain number")
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            _write_member(archive, f"{name}.npy", buffer.getvalue())


def read_archive(data: bytes) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and the arrays of an archive :func:`write_archive` wrote.

    Parameters
    ----------
    data : bytes
        The whole file, at most :data:`MAX_FILE_BYTES`.

    Returns
    -------
    header : dict
    arrays : dict of str to numpy.ndarray

    Raises
    ------
    ValueError
        With the reason, when the archive is not one, breaks a cap, or holds
        anything but a header and plain arrays.
    """
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"the file is {len(data)} bytes, more than {MAX_FILE_BYTES}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as err:
        raise ValueError(f"not a model archive ({err})") from None
    with archive:
        members = archive.infolist()
        _check_members(members)
        header = _read_header(archive, archive.getinfo(HEADER))
        arrays = {
            m.filename.removesuffix(".npy"): _read_array(archive, m)
            for m in members
            if m.filename != HEADER
        }
    return header, arrays


def _check_members(members: list[zipfile.ZipInfo]) -> None:
    """Refuse, before unpacking anything, an archive whose directory breaks a cap."""
    if len(members) > MAX_MEMBERS:
        raise ValueError(f"the archive has {len(members)} members, more than {MAX_MEMBERS}")
    names = [m.filename for m in members]
    if len(set(names)) != len(names):
        raise ValueError("the archive names a member twice")
    if HEADER not in names:
        raise ValueError(f"the archive has no {HEADER}")
    odd = [n for n in names if n != HEADER and not _plain_name(n)]
    if odd:
        raise ValueError(f"the archive holds members that are not arrays: {odd[:3]}")
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_UNPACKED_BYTES:
        raise ValueError(f"the archive unpacks to {unpacked} bytes, more than {MAX_UNPACKED_BYTES}")
    for m in members:
        if m.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ValueError(f"member {m.filename} is compressed in an unknown way")
        if m.flag_bits & 0x1:
            raise ValueError(f"member {m.filename} is encrypted")


def _plain_name(name: str) -> bool:
    stem = name.removesuffix(".npy")
    return stem != name and 0 < len(stem) <= 64 and all(c.isalnum() or c in "._" for c in stem)


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, cap: int) -> bytes:
    """The member's bytes, read in small pieces so that no piece unpacks beyond ``cap``."""
    if member.file_size > cap:
        raise ValueError(f"member {member.filename} is {member.file_size} bytes, more than {cap}")
    parts, size = [], 0
    with archive.open(member) as f:
        while chunk := f.read(_CHUNK):
            size += len(chunk)
            if size > member.file_size:
                raise ValueError(f"member {member.filename} holds more than it declares")
            parts.append(chunk)
    if size != member.file_size:
        raise ValueError(f"member {member.filename} holds less than it declares")
    return b"".join(parts)


def _read_header(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> dict[str, Any]:
    raw = _read_member(archive, member, MAX_HEADER_BYTES)
    try:
        header = json.loads(raw.decode("utf-8"))
    except ValueError as err:
        raise ValueError(f"{HEADER} is not JSON ({err})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{HEADER} is not a JSON object")
    return header


def _read_array(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> np.ndarray:
    """One ``.npy`` member: a plain array whose header agrees with its size."""
    raw = _read_member(archive, member, MAX_UNPACKED_BYTES)
    stream = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"npy version {version}")
    except ValueError as err:
        raise ValueError(f"member {member.filename} is not a plain array ({err})") from None
    if dtype.str[1:] not in _DTYPES or min(shape, default=0) < 0:
        raise ValueError(f"member {member.filename} is a {dtype} array, not a plain number")
    if len(raw) - stream.tell() != math.prod(shape) * dtype.itemsize:
        raise ValueError(f"member {member.filename} does not hold the array its header names")
    stream.seek(0)
    return np.asarray(np.lib.format.read_array(stream, allow_pickle=False))


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data, compresslevel=9)
