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

With --mtp (train_mtp.py's mtp.pt) the multi-token-prediction layer is added to an existing file
(--base), whose keys and trunk tensors are copied byte for byte:

    /usr/bin/python3 tools/train/export_gguf.py --base RUN/kazeia-kjv-q8_0.gguf \
        --mtp MTP_RUN/mtp.pt --out models/kazeia-kjv-q8_0.gguf
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reader  # noqa: E402
from gguf_writer import (ARR, BOOL, F32V, GGML_F32, GGML_Q4_0, GGML_Q8_0, I32,  # noqa: E402
                         STR, U32, GGUFWriter, dequantize)
from model import Block, Config, NextN, Qwen35  # noqa: E402
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


def block_params(p: str, b: Block) -> list[tuple[str, torch.Tensor]]:
    """(GGUF name, parameter) of one block, in the file's order (ssm_a holds A_log)."""
    out = [(p + "attn_norm.weight", b.attn_norm.weight),
           (p + "post_attention_norm.weight", b.post_norm.weight)]
    m = b.mixer
    if b.is_attn:
        out += [(p + "attn_q.weight", m.wq.weight), (p + "attn_k.weight", m.wk.weight),
                (p + "attn_v.weight", m.wv.weight), (p + "attn_output.weight", m.wo.weight),
                (p + "attn_q_norm.weight", m.q_norm), (p + "attn_k_norm.weight", m.k_norm)]
    else:
        out += [(p + "attn_qkv.weight", m.in_qkv.weight), (p + "attn_gate.weight", m.in_z.weight),
                (p + "ssm_conv1d.weight", m.conv), (p + "ssm_dt.bias", m.dt_bias),
                (p + "ssm_a", m.A_log), (p + "ssm_beta.weight", m.in_b.weight),
                (p + "ssm_alpha.weight", m.in_a.weight), (p + "ssm_norm.weight", m.norm),
                (p + "ssm_out.weight", m.out.weight)]
    return out + [(p + "ffn_gate.weight", b.ffn_gate.weight),
                  (p + "ffn_up.weight", b.ffn_up.weight),
                  (p + "ffn_down.weight", b.ffn_down.weight)]


def trunk_params(model: Qwen35) -> list[tuple[str, torch.Tensor]]:
    out = [("token_embd.weight", model.embed.weight), ("output_norm.weight", model.out_norm.weight)]
    for il, b in enumerate(model.blocks):
        out += block_params(f"blk.{il}.", b)
    return out


def nextn_params(il: int, n: NextN) -> list[tuple[str, torch.Tensor]]:
    """The MTP layer as block il, named like the reference's converter (spec/qwen35.md §4.5)."""
    p = f"blk.{il}."
    return block_params(p, n.block) + [(p + "nextn.eh_proj.weight", n.eh_proj.weight),
                                       (p + "nextn.enorm.weight", n.enorm.weight),
                                       (p + "nextn.hnorm.weight", n.hnorm.weight),
                                       (p + "nextn.shared_head_norm.weight", n.head_norm.weight)]


def kind_of(name: str, param: torch.Tensor) -> str:
    """'matrix' (quantizable), 'embd' (also the tied output head), 'f32' (vectors, conv)."""
    if name == "token_embd.weight":
        return "embd"
    return "f32" if param.dim() == 1 or name.endswith("ssm_conv1d.weight") else "matrix"


def file_values(name: str, param: torch.Tensor) -> np.ndarray:
    a = param.detach().to(torch.float32).numpy()
    return -np.exp(a) if name.endswith(".ssm_a") else a  # ssm_a = -exp(A_log)


def gguf_tensors(model: Qwen35) -> list[tuple[str, np.ndarray, str]]:
    """(name, array, kind) for every trunk tensor, in the file's order."""
    return [(n, file_values(n, p), kind_of(n, p)) for n, p in trunk_params(model)]


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
    with torch.no_grad():
        for n, p in trunk_params(m):
            kind = kind_of(n, p)
            if kind != "f32":
                p.copy_(torch.from_numpy(dequantize(file_values(n, p), tensor_type(kind, qtype))))
    return m


def load_gguf(path: str, dtype=torch.float32) -> tuple[Qwen35, NextN | None, Tokenizer]:
    """The trunk, the MTP layer (None without one) and the tokenizer of a qwen35 file written
    by this exporter, with the weights the engine reads (quantized matrices dequantized)."""
    g = gguf_reader.read(path)
    k = "qwen35."
    n_mtp = g.kv.get(k + "nextn_predict_layers", (U32, 0, None))[1]
    tok = Tokenizer(g.value("tokenizer.ggml.tokens"), g.value("tokenizer.ggml.merges"))
    cfg = Config(n_vocab=len(tok.tokens), n_embd=g.value(k + "embedding_length"),
                 n_layer=g.value(k + "block_count") - n_mtp,
                 n_ff=g.value(k + "feed_forward_length"),
                 full_attention_interval=g.value(k + "full_attention_interval"),
                 n_head=g.value(k + "attention.head_count"),
                 n_head_kv=g.value(k + "attention.head_count_kv"),
                 head_dim=g.value(k + "attention.key_length"),
                 n_rot=g.value(k + "rope.dimension_count"),
                 rope_base=g.value(k + "rope.freq_base"), n_k=g.value(k + "ssm.group_count"),
                 n_v=g.value(k + "ssm.time_step_rank"), d_k=g.value(k + "ssm.state_size"),
                 d_conv=g.value(k + "ssm.conv_kernel"),
                 eps=g.value(k + "attention.layer_norm_rms_epsilon"),
                 n_ctx_train=g.value(k + "context_length"))
    model = Qwen35(cfg).to(dtype)
    nextn = NextN(cfg).to(dtype) if n_mtp else None
    params = trunk_params(model) + (nextn_params(cfg.n_layer, nextn) if nextn else [])
    with torch.no_grad():
        for n, p in params:
            v = g.values(n).astype(np.float64)
            p.copy_(torch.from_numpy(np.log(-v) if n.endswith(".ssm_a") else v))
    model.eval()
    if nextn:
        nextn.eval()
    return model, nextn, tok


def add_mtp(base: str, nextn: NextN, path: str) -> None:
    """Writes `base` with the MTP layer appended as its last block: every key and every trunk
    tensor byte for byte as in `base`, block_count + 1, `nextn_predict_layers` = 1, the layer's
    matrices in the file's type (general.file_type) and its vectors in F32."""
    g = gguf_reader.read(base)
    k = g.value("general.architecture") + "."
    if k + "nextn_predict_layers" in g.kv:
        raise SystemExit(f"{base}: already has an MTP layer")
    qtype = {v: t for t, v in FILE_TYPE.items()}[g.value("general.file_type")]
    n_block = g.value(k + "block_count")
    w = GGUFWriter()
    for key, (t, v, elem) in g.kv.items():
        if t == ARR:
            w.add_array(key, elem, v)
        elif key == k + "block_count":
            w.add(key, t, n_block + 1)
            w.add(k + "nextn_predict_layers", U32, 1)
        else:
            w.add(key, t, v)
    for t in g.tensors:  # stored bytes, not requantized
        w.tensors.append((t.name, t.ne, t.type, t.data))
    for n, p in nextn_params(n_block, nextn):
        w.add_tensor(n, file_values(n, p), tensor_type(kind_of(n, p), qtype))
    w.write(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", help="train.py output folder")
    ap.add_argument("--type", choices=list(TYPES), default="q8_0")
    ap.add_argument("--out", required=True)
    ap.add_argument("--random", type=int, default=None, help="export an untrained model (seed)")
    ap.add_argument("--name", default="kazeia-kjv")
    ap.add_argument("--template", default=None, help="chat template file (default: ChatML)")
    ap.add_argument("--license", default="public-domain (training text: King James Bible)")
    ap.add_argument("--base", help="with --mtp: the GGUF file the MTP layer is added to")
    ap.add_argument("--mtp", help="train_mtp.py's mtp.pt: write --base plus this MTP layer")
    args = ap.parse_args()
    if args.mtp:
        if not args.base:
            ap.error("--mtp needs --base (the file whose trunk the layer was trained on)")
        ck = torch.load(args.mtp, map_location="cpu")
        nextn = NextN(Config(**ck["config"]))
        nextn.load_state_dict(ck["nextn"])
        add_mtp(args.base, nextn, args.out)
        print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes, {args.base} + MTP layer)")
        return
    if not args.run:
        ap.error("--run is required (or --mtp with --base)")
    model, tok = load_run(args.run, args.random)
    template = CHAT_TEMPLATE
    if args.template:
        with open(args.template, encoding="utf-8") as f:
            template = f.read()
    export(model, tok, args.type, args.out, args.name, template, args.license)
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes, {args.type})")


if __name__ == "__main__":
    main()
