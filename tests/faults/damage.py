"""Damage done to files on purpose."""

from __future__ import annotations

import random
import struct
import zipfile
from pathlib import Path


def flip_a_tensor_byte(path: Path, rng: random.Random) -> None:
    """Flip one bit inside the largest tensor record of a torch.save zip archive (the
    records are stored uncompressed), leaving the zip structure intact."""
    with zipfile.ZipFile(path) as archive:
        info = max((i for i in archive.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
    raw = bytearray(path.read_bytes())
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    raw[start + rng.randrange(info.file_size)] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(raw))
