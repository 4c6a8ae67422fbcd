#!/usr/bin/python3
"""Export a trained checkpoint (train.py's ckpt.pt + tokenizer.json) as a qwen35 GGUF file.

    /usr/bin/python3 tools/train/export_gguf.py --run /tmp/kjv-train --type q8_0 \
        --out models/kazeia-kjv-q8_0.gguf

--type f32 | q8_0 | q4_0. Quantized files follow llama-quantize's conventions: 1-D tensors and
ssm_conv1d stay F32; every other matrix gets the chosen type, except token_embd.weight, which
doubles as the output head (tied embeddings) and gets Q8_0 in the Q4_0 file (llama-quantize
gives the output matrix Q6_K, falling back to Q8_0 when the row length, here 192, is not a
multiple of 256). Q4_K is not offered for the same reason (rows must be multiples of 256).
--random SEED exports an untrained model (used to check PyTorch/engine parity before training).
The chat model (kazeia-chat) takes its chat template from a file:

    /usr/bin/python3 tools/train/export_gguf.py --run /tmp/chat-train --type q8_0 \
        --name kazeia-chat --template ../shared/fixtures/templates/qwen3.jinja \
        --license "generated dialogues (tools/train/chat_data.py)" \
        --out models/kazeia-chat-q8_0.gguf
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_writer import (BOOL, F32V, GGML_F32, GGML_Q4_0, GGML_Q8_0, I32, STR, U32,  # noqa: E402
                         GGUFWriter, dequantize)
from model import Config, Qwen35  # noqa: E402
from tokenizer import SPECIAL_TOKENS, Tokenizer  # noqa: E402

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")

TYPES = {"f32": GGML_F32, "q8_0": GGML_Q8_0, "q4_0": GGML_Q4_0}
FILE_TYPE = {"f32": 0, "q8_0": 7, "q4_0": 2}  # llama_ftype: ALL_F32, MOSTLY_Q8_0, MOSTLY_Q4_0


def load_run(run: str, random_seed: int | None = None) -> tuple[Qwen35, Tokenizer]:
    tok = Tokenizer.load(os.path.join(run, "tokenizer.json"))
    if random_seed is not None:
        torch.manual_seed(random_seed)
        model = Qwen35(Config(n_vocab=len(tok.tokens)))
        with torch.no_grad():  # make the untrained model less trivial: random norms and gates
            for n, p in model.named_parameters():
                if p.dim() == 1:
                    p.add_(torch.randn_like(p) * 0.3)
                elif n == "embed.weight":
                    p.normal_(0, 0.5)
                elif "conv" not in n:
                    p.mul_(3.0)
    else:
        ck = torch.load(os.path.join(run, "ckpt.pt"), map_location="cpu")
        model = Qwen35(Config(**ck["config"]))
        model.load_state_dict(ck["model"])
    model.eval()
    return model, tok


def gguf_tensors(model: Qwen35) -> list[tuple[str, np.ndarray, str]]:
    """(name, array, kind); kind: 'matrix' (quantizable), 'embd', 'f32' (vectors, conv)."""
    def a(t):
        return t.detach().to(torch.float32).numpy()

    out = [("token_embd.weight", a(model.embed.weight), "embd"),
           ("output_norm.weight", a(model.out_norm.weight), "f32")]
    for il, b in enumerate(model.blocks):
        p = f"blk.{il}."
        out += [(p + "attn_norm.weight", a(b.attn_norm.weight), "f32"),
                (p + "post_attention_norm.weight", a(b.post_norm.weight), "f32")]
        m = b.mixer
        if b.is_attn:
            out += [(p + "attn_q.weight", a(m.wq.weight), "matrix"),
                    (p + "attn_k.weight", a(m.wk.weight), "matrix"),
                    (p + "attn_v.weight", a(m.wv.weight), "matrix"),
                    (p + "attn_output.weight", a(m.wo.weight), "matrix"),
                    (p + "attn_q_norm.weight", a(m.q_norm), "f32"),
                    (p + "attn_k_norm.weight", a(m.k_norm), "f32")]
        else:
            out += [(p + "attn_qkv.weight", a(m.in_qkv.weight), "matrix"),
                    (p + "attn_gate.weight", a(m.in_z.weight), "matrix"),
                    (p + "ssm_conv1d.weight", a(m.conv), "f32"),
                    (p + "ssm_dt.bias", a(m.dt_bias), "f32"),
                    (p + "ssm_a", -np.exp(a(m.A_log)), "f32"),
                    (p + "ssm_beta.weight", a(m.in_b.weight), "matrix"),
                    (p + "ssm_alpha.weight", a(m.in_a.weight), "matrix"),
                    (p + "ssm_norm.weight", a(m.norm), "f32"),
                    (p + "ssm_out.weight", a(m.out.weight), "matrix")]
        out += [(p + "ffn_gate.weight", a(b.ffn_gate.weight), "matrix"),
                (p + "ffn_up.weight", a(b.ffn_up.weight), "matrix"),
                (p + "ffn_down.weight", a(b.ffn_down.weight), "matrix")]
    return out


def tensor_type(kind: str, qtype: str) -> int:
    if kind == "f32" or qtype == "f32":
        return GGML_F32
    if kind == "embd" and qtype == "q4_0":
        return GGML_Q8_0
    return TYPES[qtype]


def rope_sections(n_rot: int) -> list[int]:  # every rotary pair in t/h/w (as the engine's mkmodel)
    pairs = n_rot // 2
    t = (pairs + 2) // 3
    h = (pairs - t + 1) // 2
    return [t, h, pairs - t - h, 0]


def export(model: Qwen35, tok: Tokenizer, qtype: str, path: str, name: str,
           template: str = CHAT_TEMPLATE,
           licence: str = "public-domain (training text: King James Bible)") -> None:
    c = model.c
    w = GGUFWriter()
    a = "qwen35."
    w.add("general.architecture", STR, "qwen35")
    w.add("general.name", STR, name)
    w.add("general.license", STR, licence)
    w.add("general.file_type", U32, FILE_TYPE[qtype])
    if qtype != "f32":
        w.add("general.quantization_version", U32, 2)
    w.add(a + "context_length", U32, c.n_ctx_train)
    w.add(a + "embedding_length", U32, c.n_embd)
    w.add(a + "block_count", U32, c.n_layer)
    w.add(a + "feed_forward_length", U32, c.n_ff)
    w.add(a + "attention.head_count", U32, c.n_head)
    w.add(a + "attention.head_count_kv", U32, c.n_head_kv)
    w.add(a + "attention.key_length", U32, c.head_dim)
    w.add(a + "attention.value_length", U32, c.head_dim)
    w.add(a + "rope.freq_base", F32V, c.rope_base)
    w.add(a + "attention.layer_norm_rms_epsilon", F32V, c.eps)
    w.add(a + "rope.dimension_count", U32, c.n_rot)
    w.add_array(a + "rope.dimension_sections", I32, rope_sections(c.n_rot))
    w.add(a + "ssm.conv_kernel", U32, c.d_conv)
    w.add(a + "ssm.state_size", U32, c.d_k)
    w.add(a + "ssm.group_count", U32, c.n_k)
    w.add(a + "ssm.time_step_rank", U32, c.n_v)
    w.add(a + "ssm.inner_size", U32, c.n_v * c.d_k)
    w.add(a + "full_attention_interval", U32, c.full_attention_interval)
    # tokenizer
    types = [1] * len(tok.tokens)
    for text, ty in SPECIAL_TOKENS:
        types[tok.id[text]] = ty
    w.add("tokenizer.ggml.model", STR, "gpt2")
    w.add("tokenizer.ggml.pre", STR, "qwen35")
    w.add_array("tokenizer.ggml.tokens", STR, tok.tokens)
    w.add_array("tokenizer.ggml.token_type", I32, types)
    w.add_array("tokenizer.ggml.merges", STR, tok.merges)
    w.add("tokenizer.ggml.eos_token_id", U32, tok.id["<|im_end|>"])
    w.add("tokenizer.ggml.padding_token_id", U32, tok.id["<|endoftext|>"])
    w.add("tokenizer.ggml.bos_token_id", U32, tok.id["<|endoftext|>"])
    w.add("tokenizer.ggml.add_bos_token", BOOL, False)
    w.add("tokenizer.chat_template", STR, template)
    for n, arr, kind in gguf_tensors(model):
        w.add_tensor(n, arr, tensor_type(kind, qtype))
    w.write(path)


def engine_view(model: Qwen35, qtype: str) -> Qwen35:
    """A copy of `model` whose weights are what the engine reads from the `qtype` file."""
    import copy
    m = copy.deepcopy(model)
    src = {n: (arr, kind) for n, arr, kind in gguf_tensors(model)}
    with torch.no_grad():
        def put(param, name):
            arr, kind = src[name]
            param.copy_(torch.from_numpy(dequantize(arr, tensor_type(kind, qtype))))
        put(m.embed.weight, "token_embd.weight")
        for il, b in enumerate(m.blocks):
            p = f"blk.{il}."
            mx = b.mixer
            for mod, n in ([(mx.wq, "attn_q"), (mx.wk, "attn_k"), (mx.wv, "attn_v"),
                            (mx.wo, "attn_output")] if b.is_attn else
                           [(mx.in_qkv, "attn_qkv"), (mx.in_z, "attn_gate"), (mx.in_b, "ssm_beta"),
                            (mx.in_a, "ssm_alpha"), (mx.out, "ssm_out")]) + \
                    [(b.ffn_gate, "ffn_gate"), (b.ffn_up, "ffn_up"), (b.ffn_down, "ffn_down")]:
                put(mod.weight, p + n + ".weight")
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, help="train.py output folder")
    ap.add_argument("--type", choices=list(TYPES), default="q8_0")
    ap.add_argument("--out", required=True)
    ap.add_argument("--random", type=int, default=None, help="export an untrained model (seed)")
    ap.add_argument("--name", default="kazeia-kjv")
    ap.add_argument("--template", default=None, help="chat template file (default: ChatML)")
    ap.add_argument("--license", default="public-domain (training text: King James Bible)")
    args = ap.parse_args()
    model, tok = load_run(args.run, args.random)
    template = CHAT_TEMPLATE
    if args.template:
        with open(args.template, encoding="utf-8") as f:
            template = f.read()
    export(model, tok, args.type, args.out, args.name, template, args.license)
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes, {args.type})")


if __name__ == "__main__":
    main()
