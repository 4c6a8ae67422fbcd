"""Minimal GGUF v3 reader (the counterpart of gguf_writer.py): metadata, tensor bytes as stored,
and tensor values as the engine sees them (F32, F16, Q8_0, Q4_0 dequantized).

Used to train the MTP layer on the trunk exactly as shipped, to copy a file's trunk unchanged
when adding the MTP tensors, and to compute parity data on the engine's own weights.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from gguf_writer import ALIGN, ARR, BLOCK, GGML_F16, GGML_F32, GGML_Q4_0, GGML_Q8_0, STR

_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
           11: "<q", 12: "<d"}


@dataclass
class Tensor:
    name: str
    ne: list[int]  # ggml order (ne[0] is the row length)
    type: int
    data: bytes  # as stored in the file


@dataclass
class GGUFFile:
    # key -> (gguf type, value, element type of an array or None)
    kv: dict[str, tuple[int, object, int | None]] = field(default_factory=dict)
    tensors: list[Tensor] = field(default_factory=list)

    def value(self, key: str):
        return self.kv[key][1]

    def tensor(self, name: str) -> Tensor:
        return next(t for t in self.tensors if t.name == name)

    def values(self, name: str) -> np.ndarray:
        """The tensor's values as the engine reads them, f32, numpy shape = reversed ne."""
        t = self.tensor(name)
        shape = tuple(reversed(t.ne))
        if t.type == GGML_F32:
            return np.frombuffer(t.data, dtype="<f4").reshape(shape).copy()
        if t.type == GGML_F16:
            return np.frombuffer(t.data, dtype="<f2").astype(np.float32).reshape(shape)
        if t.type == GGML_Q8_0:
            r = np.frombuffer(t.data, dtype=[("d", "<f2"), ("qs", "i1", 32)])
            v = r["d"].astype(np.float32)[:, None] * r["qs"].astype(np.float32)
        elif t.type == GGML_Q4_0:
            r = np.frombuffer(t.data, dtype=[("d", "<f2"), ("qs", "u1", 16)])
            lo = (r["qs"] & 0x0F).astype(np.float32) - 8
            hi = (r["qs"] >> 4).astype(np.float32) - 8
            v = r["d"].astype(np.float32)[:, None] * np.concatenate([lo, hi], axis=1)
        else:
            raise ValueError(f"{name}: ggml type {t.type} is not supported here")
        return v.reshape(shape)


class _Cursor:
    def __init__(self, buf: bytes):
        self.buf, self.pos = buf, 0

    def take(self, fmt: str):
        v = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def string(self) -> str:
        n = self.take("<Q")
        s = self.buf[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return s

    def scalar(self, t: int):
        return self.string() if t == STR else self.take(_SCALAR[t])


def read(path: str) -> GGUFFile:
    with open(path, "rb") as f:
        buf = f.read()
    c = _Cursor(buf)
    magic, version = c.take("<4s"), c.take("<I")
    if magic != b"GGUF" or version != 3:
        raise ValueError(f"{path}: not a GGUF v3 file")
    n_tensors, n_kv = c.take("<qQ")
    g = GGUFFile()
    for _ in range(n_kv):
        key, t = c.string(), c.take("<i")
        if t == ARR:
            elem, n = c.take("<iQ")
            g.kv[key] = (t, [c.scalar(elem) for _ in range(n)], elem)
        else:
            g.kv[key] = (t, c.scalar(t), None)
    infos = []
    for _ in range(n_tensors):
        name = c.string()
        ne = [c.take("<q") for _ in range(c.take("<I"))]
        t, off = c.take("<iQ")
        infos.append((name, ne, t, off))
    base = (c.pos + ALIGN - 1) // ALIGN * ALIGN
    for name, ne, t, off in infos:
        block, size = BLOCK[t]
        n = int(np.prod(ne)) // block * size
        g.tensors.append(Tensor(name, ne, t, buf[base + off:base + off + n]))
    return g
