"""Byte-level BPE tokenizer compatible with the engine's `qwen35` pre-tokenizer.

* `pretokenize` is the hand-written matcher of the qwen35 pre-tokenizer regex
  (docs: /work/shared/spec/tokenizer.md §3.2), code point by code point.
* `BYTE_TO_CP` is the GPT-2 byte-level alphabet (§3.3).
* `train_bpe` learns merges on a corpus (frequency of pre-tokens, greedy most-frequent pair,
  ties broken by the lexicographically smallest pair so the result is deterministic).
* `Tokenizer.encode` applies merges like the engine (§3.4): repeatedly merge the lowest-rank
  adjacent pair, leftmost first.
"""
from __future__ import annotations

import heapq
import json
import unicodedata
from collections import Counter

# --- byte-level alphabet (tokenizer.md §3.3) -------------------------------------------------


def _byte_to_cp() -> dict[int, str]:
    keep = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    m, n = {}, 0
    for b in range(256):
        if b in keep:
            m[b] = chr(b)
        else:
            m[b] = chr(0x100 + n)
            n += 1
    return m


BYTE_TO_CP = _byte_to_cp()
CP_TO_BYTE = {v: k for k, v in BYTE_TO_CP.items()}

SPECIAL_TOKENS = [  # (text, GGUF token type): CONTROL = 3, USER_DEFINED = 4
    ("<|endoftext|>", 3),
    ("<|im_start|>", 3),
    ("<|im_end|>", 3),
    ("<think>", 4),
    ("</think>", 4),
]

# --- qwen35 pre-tokenizer (tokenizer.md §3.2) -------------------------------------------------

_WS = set(range(0x09, 0x0E)) | {0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
_WS |= set(range(0x2000, 0x200B))


def _cls(ch: str | None) -> str:
    """'L' letter or mark (qwen35), 'N' number, 'W' whitespace, 'P' other, '' end of text."""
    if ch is None:
        return ""
    if ord(ch) in _WS:
        return "W"
    c = unicodedata.category(ch)[0]
    if c in "LM":
        return "L"
    if c == "N":
        return "N"
    return "P"


def pretokenize(text: str) -> list[str]:
    cps = text
    n = len(cps)
    out: list[str] = []
    pos = 0

    def at(i: int):
        return cps[i] if 0 <= i < n else None

    while pos < n:
        start = pos
        c = cps[pos]
        c1 = at(pos + 1)
        # 1. contractions 's 't 're 've 'm 'll 'd (case-insensitive)
        if c == "'" and c1 is not None:
            l1 = c1.lower()
            if l1 in ("s", "t", "m", "d"):
                out.append(cps[pos:pos + 2])
                pos += 2
                continue
            c2 = at(pos + 2)
            if c2 is not None and (l1 + c2.lower()) in ("re", "ve", "ll"):
                out.append(cps[pos:pos + 3])
                pos += 3
                continue
        k = _cls(c)
        # 2. [^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+
        if not (c in "\r\n" or k == "N") and (k == "L" or _cls(c1) == "L"):
            pos += 1
            while _cls(at(pos)) == "L":
                pos += 1
            out.append(cps[start:pos])
            continue
        # 3. \p{N}
        if k == "N":
            out.append(c)
            pos += 1
            continue
        # 4. ' ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*'
        k2 = _cls(c1) if c == " " else k
        if k2 == "P":
            if c == " ":
                pos += 1
            while _cls(at(pos)) == "P":
                pos += 1
            while at(pos) in ("\r", "\n"):
                pos += 1
            out.append(cps[start:pos])
            continue
        # 5. whitespace
        nws, last_nl = 0, 0
        while _cls(at(pos + nws)) == "W":
            if cps[pos + nws] in "\r\n":
                last_nl = pos + nws + 1
            nws += 1
        if last_nl > 0:
            pos = last_nl
        elif nws > 1 and at(pos + nws) is not None:
            pos += nws - 1
        elif nws > 0:
            pos += nws
        else:
            pos += 1  # 6. anything else: one code point
        out.append(cps[start:pos])
    return out


def to_byte_level(piece: str) -> str:
    return "".join(BYTE_TO_CP[b] for b in piece.encode("utf-8"))


# --- BPE training ------------------------------------------------------------------------------


def train_bpe(text: str, n_vocab: int, log=print) -> tuple[list[str], list[str]]:
    """Returns (tokens, merges). tokens = 256 byte symbols (by byte value), then one token per
    new merge result, then the special tokens; len(tokens) == n_vocab."""
    n_merged_target = n_vocab - 256 - len(SPECIAL_TOKENS)
    freq = Counter(pretokenize(text))
    words = [list(to_byte_level(w)) for w in freq]
    counts = [freq[w] for w in freq]
    log(f"bpe: {len(words)} distinct pre-tokens, target {n_merged_target} merges")

    pair_count: Counter = Counter()
    where: dict[tuple[str, str], set[int]] = {}
    for i, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pair_count[(a, b)] += counts[i]
            where.setdefault((a, b), set()).add(i)
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)

    tokens = [BYTE_TO_CP[b] for b in range(256)]
    have = set(tokens)
    merges: list[str] = []
    while len(tokens) - 256 < n_merged_target and heap:
        negc, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -negc or -negc <= 0:
            continue  # stale entry
        a, b = pair
        new = a + b
        merges.append(f"{a} {b}")
        if new not in have:
            have.add(new)
            tokens.append(new)
        changed: set[tuple[str, str]] = set()
        for i in list(where.get(pair, ())):
            w, c = words[i], counts[i]
            for p in zip(w, w[1:]):
                pair_count[p] -= c
                changed.add(p)
                s = where.get(p)
                if s is not None:
                    s.discard(i)
            out, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(new)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):
                pair_count[p] += c
                changed.add(p)
                where.setdefault(p, set()).add(i)
        for p in changed:
            if pair_count[p] > 0:
                heapq.heappush(heap, (-pair_count[p], p))
            else:
                pair_count.pop(p, None)
        if len(merges) % 500 == 0:
            log(f"bpe: {len(merges)} merges, last {new!r} x{-negc}")
    tokens += [t for t, _ in SPECIAL_TOKENS]
    return tokens, merges


# --- encoding / decoding -----------------------------------------------------------------------


class Tokenizer:
    def __init__(self, tokens: list[str], merges: list[str]):
        self.tokens = tokens
        self.id = {}
        for i, t in enumerate(tokens):
            self.id.setdefault(t, i)
        self.merges = merges
        self.rank: dict[tuple[str, str], int] = {}
        for r, m in enumerate(merges):
            i = m.index(" ", 1)
            self.rank.setdefault((m[:i], m[i + 1:]), r)
        self.special = {t: self.id[t] for t, _ in SPECIAL_TOKENS if t in self.id}
        self._cache: dict[str, list[int]] = {}

    @staticmethod
    def load(path: str) -> "Tokenizer":
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        return Tokenizer(d["tokens"], d["merges"])

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"tokens": self.tokens, "merges": self.merges}, f, ensure_ascii=False)

    def _bpe(self, piece: str) -> list[int]:
        hit = self._cache.get(piece)
        if hit is not None:
            return hit
        syms = list(to_byte_level(piece))
        while len(syms) > 1:
            best, best_rank = -1, None
            for i in range(len(syms) - 1):
                r = self.rank.get((syms[i], syms[i + 1]))
                if r is not None and (best_rank is None or r < best_rank):
                    best, best_rank = i, r
            if best < 0:
                break
            syms[best:best + 2] = [syms[best] + syms[best + 1]]
        ids = [self.id[s] for s in syms]
        self._cache[piece] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        """Like the engine with parse_special = false: USER_DEFINED specials (<think>) are still
        matched; CONTROL ones are not. Our corpus has none of them."""
        ids: list[int] = []
        for piece in pretokenize(text):
            ids += self._bpe(piece)
        return ids

    def decode(self, ids) -> str:
        out = bytearray()
        for i in ids:
            t = self.tokens[i]
            if t in self.special:
                out += t.encode()
            else:
                out += bytes(CP_TO_BYTE[ch] for ch in t)
        return out.decode("utf-8", errors="replace")
