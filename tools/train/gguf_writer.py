"""Minimal GGUF v3 writer and the Q8_0 / Q4_0 reference quantizers (numpy).

GGUF layout: /work/shared/spec/gguf.md; quantizers: spec/quants.md §5.2 (Q8_0), §5.3 (Q4_0).
"""
from __future__ import annotations

import struct

import numpy as np

# gguf value types
U8, I8, U16, I16, U32, I32, F32V, BOOL, STR, ARR, U64, I64, F64 = range(13)
# ggml tensor types
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q8_0 = 0, 1, 2, 8
BLOCK = {GGML_F32: (1, 4), GGML_F16: (1, 2), GGML_Q4_0: (32, 18), GGML_Q8_0: (32, 34)}
ALIGN = 32


def _str(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _scalar(t: int, v) -> bytes:
    fmt = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32V: "<f",
           BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}
    if t == STR:
        return _str(v)
    return struct.pack(fmt[t], v)


class GGUFWriter:
    def __init__(self):
        self.kv: list[bytes] = []
        self.tensors: list[tuple[str, list[int], int, bytes]] = []

    def add(self, key: str, t: int, v):
        self.kv.append(_str(key) + struct.pack("<i", t) + _scalar(t, v))

    def add_array(self, key: str, t: int, values):
        body = b"".join(_scalar(t, v) for v in values)
        self.kv.append(_str(key) + struct.pack("<i", ARR) + struct.pack("<iQ", t, len(values)) + body)

    def add_tensor(self, name: str, arr: np.ndarray, ggml_type: int):
        """arr: numpy array in row-major order; ggml ne = reversed numpy shape."""
        ne = list(reversed(arr.shape))
        if ggml_type == GGML_F32:
            data = np.ascontiguousarray(arr, dtype=np.float32).tobytes()
        elif ggml_type == GGML_F16:
            data = np.ascontiguousarray(arr, dtype=np.float16).tobytes()
        elif ggml_type == GGML_Q8_0:
            data = quantize_q8_0(arr)
        elif ggml_type == GGML_Q4_0:
            data = quantize_q4_0(arr)
        else:
            raise ValueError(ggml_type)
        self.tensors.append((name, ne, ggml_type, data))

    def write(self, path: str):
        out = bytearray(b"GGUF")
        out += struct.pack("<IqQ", 3, len(self.tensors), len(self.kv))
        for kv in self.kv:
            out += kv
        off = 0
        for name, ne, t, data in self.tensors:
            out += _str(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}q", *ne)
            out += struct.pack("<iQ", t, off)
            off += (len(data) + ALIGN - 1) // ALIGN * ALIGN
        out += b"\0" * ((-len(out)) % ALIGN)
        for _, _, _, data in self.tensors:
            out += data + b"\0" * ((-len(data)) % ALIGN)
        with open(path, "wb") as f:
            f.write(out)


# --- quantizers ------------------------------------------------------------------------------


def _blocks(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    assert x.shape[-1] % 32 == 0, x.shape
    return x.reshape(-1, 32)


def _roundf(x: np.ndarray) -> np.ndarray:  # C roundf: half away from zero
    return np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))


def quantize_q8_0(x: np.ndarray) -> bytes:
    b = _blocks(x)
    amax = np.abs(b).max(axis=1)
    d = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore"):
        idv = np.where(d != 0, np.float32(1) / np.where(d != 0, d, 1), 0).astype(np.float32)
    q = _roundf(b * idv[:, None]).astype(np.int8)
    out = np.zeros(len(b), dtype=[("d", "<f2"), ("qs", "i1", 32)])
    out["d"] = d.astype(np.float16)
    out["qs"] = q
    return out.tobytes()


def quantize_q4_0(x: np.ndarray) -> bytes:
    b = _blocks(x)
    i = np.abs(b).argmax(axis=1)  # first of equal magnitudes
    mx = b[np.arange(len(b)), i]
    d = (mx / np.float32(-8)).astype(np.float32)
    with np.errstate(divide="ignore"):
        idv = np.where(d != 0, np.float32(1) / np.where(d != 0, d, 1), 0).astype(np.float32)
    q = np.minimum(15, np.trunc(b * idv[:, None] + np.float32(8.5))).astype(np.uint8)
    qs = (q[:, :16] | (q[:, 16:] << 4)).astype(np.uint8)
    out = np.zeros(len(b), dtype=[("d", "<f2"), ("qs", "u1", 16)])
    out["d"] = d.astype(np.float16)
    out["qs"] = qs
    return out.tobytes()


def dequantize(x: np.ndarray, ggml_type: int) -> np.ndarray:
    """The values the engine sees for `x` stored as ggml_type (f32 result, same shape)."""
    if ggml_type == GGML_F32:
        return np.asarray(x, dtype=np.float32)
    if ggml_type == GGML_F16:
        return np.asarray(x, dtype=np.float16).astype(np.float32)
    if ggml_type == GGML_Q8_0:
        r = np.frombuffer(quantize_q8_0(x), dtype=[("d", "<f2"), ("qs", "i1", 32)])
        v = r["d"].astype(np.float32)[:, None] * r["qs"].astype(np.float32)
    elif ggml_type == GGML_Q4_0:
        r = np.frombuffer(quantize_q4_0(x), dtype=[("d", "<f2"), ("qs", "u1", 16)])
        lo = (r["qs"] & 0x0F).astype(np.float32) - 8
        hi = (r["qs"] >> 4).astype(np.float32) - 8
        v = r["d"].astype(np.float32)[:, None] * np.concatenate([lo, hi], axis=1)
    else:
        raise ValueError(ggml_type)
    return v.reshape(np.shape(x))
