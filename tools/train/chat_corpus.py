"""Dialogues (chat_data.py) rendered with the chat template the model carries in its GGUF, then
tokenized with per-token loss weights.

The template is Qwen3's (shared/fixtures/templates/qwen3.jinja, read at run time and written into
the GGUF by export_gguf.py), rendered with jinja2 as Hugging Face's apply_chat_template does
(trim_blocks, lstrip_blocks). A dialogue rendered whole is exactly what the engine feeds at its
last turn with enable_thinking = false: earlier assistant turns as plain text, the last one after
the template's empty `<think>\\n\\n</think>\\n\\n` block. Special tokens split the text first, as
the engine's tokenizer does (text/tokenizer.cpp), and the pieces between them go through BPE.

Loss weights: 1 on what the assistant writes (its answer, the empty think block of the last turn,
and the closing <|im_end|>), 0 elsewhere. The first token of an earlier (plain) assistant turn has
weight 0 too: at inference the model always starts a reply with <think>, never with an answer
word, so only that beginning is taught.
"""
from __future__ import annotations

import os

import jinja2

from tokenizer import SPECIAL_TOKENS, Tokenizer

DEFAULT_TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "shared", "fixtures", "templates", "qwen3.jinja")


def load_template(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


class Renderer:
    def __init__(self, template: str):
        env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
        self.template = env.from_string(template)

    def __call__(self, messages: list[dict], add_generation_prompt=False,
                 enable_thinking=False) -> str:
        return self.template.render(messages=messages, add_generation_prompt=add_generation_prompt,
                                    enable_thinking=enable_thinking, tools=None)


def split_special(text: str) -> list[str]:
    """Text → pieces, each special token a piece of its own (longest first, left to right)."""
    specials = sorted((t for t, _ in SPECIAL_TOKENS), key=len, reverse=True)
    out, i, start = [], 0, 0
    while i < len(text):
        hit = next((s for s in specials if text.startswith(s, i)), None)
        if hit:
            if i > start:
                out.append(text[start:i])
            out.append(hit)
            i += len(hit)
            start = i
        else:
            i += 1
    if start < len(text):
        out.append(text[start:])
    return out


def encode_with_specials(tok: Tokenizer, text: str) -> list[int]:
    ids: list[int] = []
    for piece in split_special(text):
        ids += [tok.id[piece]] if piece in tok.special else tok.encode(piece)
    return ids


def encode_weighted(tok: Tokenizer, text: str) -> tuple[list[int], list[float]]:
    """Token ids of a rendered dialogue and their loss weights (see the module comment)."""
    ids: list[int] = []
    weights: list[float] = []
    in_assistant = False  # inside an assistant turn's content
    head_pending = False  # the next raw piece starts with the role line
    first_free = False    # the next content token is the first of a plain (earlier) turn
    for piece in split_special(text):
        if piece in tok.special:
            if piece == "<|im_start|>":
                ids.append(tok.id[piece])
                weights.append(0.0)
                head_pending = True
                continue
            ids.append(tok.id[piece])
            weights.append(1.0 if in_assistant else 0.0)
            if piece == "<think>" and in_assistant:
                first_free = False
            if piece == "<|im_end|>":
                in_assistant = False
            continue
        if head_pending:
            head_pending = False
            role, _, rest = piece.partition("\n")
            head = role + "\n"
            ids += tok.encode(head)
            weights += [0.0] * (len(ids) - len(weights))
            in_assistant = role == "assistant"
            first_free = in_assistant
            piece = rest
            if not piece:
                continue
        pids = tok.encode(piece)
        w = [1.0 if in_assistant else 0.0] * len(pids)
        if in_assistant and first_free and pids:
            w[0] = 0.0
            first_free = False
        ids += pids
        weights += w
    return ids, weights
