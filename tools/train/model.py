"""A small Qwen3.5 (architecture `qwen35`) in PyTorch, written from /work/shared/spec/qwen35.md.

Hybrid stack: Gated DeltaNet layers and gated full-attention layers (layer il is full attention
iff (il + 1) % full_attention_interval == 0), each followed by a SwiGLU FFN.
All RMSNorm weights are plain multiplicative weights (the GGUF convention), so the exporter
writes them unchanged. Value heads use the GGUF ("tiled") order: value head h uses key head
h % n_k.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    n_vocab: int = 2048
    n_embd: int = 192
    n_layer: int = 6
    n_ff: int = 512
    full_attention_interval: int = 3
    # gated attention
    n_head: int = 3
    n_head_kv: int = 1
    head_dim: int = 64
    n_rot: int = 16
    rope_base: float = 10000.0
    # gated DeltaNet
    n_k: int = 3
    n_v: int = 3
    d_k: int = 64  # = d_v
    d_conv: int = 4
    eps: float = 1e-6
    n_ctx_train: int = 256
    chunk: int = 64

    def is_attention(self, il: int) -> bool:
        return (il + 1) % self.full_attention_interval == 0

    def to_dict(self):
        return asdict(self)


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return rms_norm(x, self.weight, self.eps)


# --- Gated DeltaNet ----------------------------------------------------------------------------


def delta_rule_recurrent(q, k, v, beta, g, S=None):
    """Reference recurrence (spec §8.5). q, k: (B, H, T, dk) (q already scaled, both normalized),
    v: (B, H, T, dv), beta, g: (B, H, T). S: (B, H, dk, dv). Returns (o (B, H, T, dv), S)."""
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    if S is None:
        S = q.new_zeros(B, H, dk, dv)
    outs = []
    for t in range(T):
        S = S * g[:, :, t, None, None].exp()
        kt = k[:, :, t]
        pred = torch.einsum("bhij,bhi->bhj", S, kt)
        delta = beta[:, :, t, None] * (v[:, :, t] - pred)
        S = S + kt[..., :, None] * delta[..., None, :]
        outs.append(torch.einsum("bhij,bhi->bhj", S, q[:, :, t]))
    return torch.stack(outs, 2), S


def delta_rule_chunked(q, k, v, beta, g, chunk=64, S=None):
    """WY / UT-transform chunked form of the same recurrence (spec §8.7)."""
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    pad = (-T) % chunk
    if pad:
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))
        beta, g = (F.pad(x, (0, pad)) for x in (beta, g))
    N = (T + pad) // chunk
    q, k, v = (x.reshape(B, H, N, chunk, -1) for x in (q, k, v))
    beta, g = (x.reshape(B, H, N, chunk) for x in (beta, g))
    G = g.cumsum(-1)  # inclusive
    diff = G[..., :, None] - G[..., None, :]  # G_t - G_s
    ones = torch.ones(chunk, chunk, dtype=torch.bool, device=q.device)
    strict = torch.tril(ones, -1)
    incl = torch.tril(ones)
    decay_strict = diff.masked_fill(~strict, float("-inf")).exp()
    decay_incl = diff.masked_fill(~incl, float("-inf")).exp()
    A = beta[..., :, None] * decay_strict * (k @ k.transpose(-1, -2))
    eye = torch.eye(chunk, dtype=q.dtype, device=q.device)
    Tm = torch.linalg.solve_triangular(eye + A, eye.expand_as(A), upper=False, unitriangular=True)
    U = Tm @ (beta[..., None] * v)
    W = Tm @ ((beta * G.exp())[..., None] * k)
    attn_qk = decay_incl * (q @ k.transpose(-1, -2))
    if S is None:
        S = q.new_zeros(B, H, dk, dv)
    outs = []
    for n in range(N):
        vn = U[:, :, n] - W[:, :, n] @ S
        o = G[:, :, n, :, None].exp() * (q[:, :, n] @ S) + attn_qk[:, :, n] @ vn
        outs.append(o)
        Gl = G[:, :, n, -1]
        kw = k[:, :, n] * (Gl[..., None] - G[:, :, n]).exp()[..., None]
        S = Gl.exp()[..., None, None] * S + kw.transpose(-1, -2) @ vn
    o = torch.stack(outs, 2).reshape(B, H, N * chunk, dv)[:, :, :T]
    return o, S


class GatedDeltaNet(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.c = c
        self.key_dim = c.n_k * c.d_k
        self.value_dim = c.n_v * c.d_k
        self.conv_dim = 2 * self.key_dim + self.value_dim
        self.in_qkv = nn.Linear(c.n_embd, self.conv_dim, bias=False)  # attn_qkv
        self.in_z = nn.Linear(c.n_embd, self.value_dim, bias=False)  # attn_gate
        self.in_b = nn.Linear(c.n_embd, c.n_v, bias=False)  # ssm_beta
        self.in_a = nn.Linear(c.n_embd, c.n_v, bias=False)  # ssm_alpha
        self.conv = nn.Parameter(torch.empty(self.conv_dim, c.d_conv))  # ssm_conv1d
        nn.init.uniform_(self.conv, -1 / math.sqrt(c.d_conv), 1 / math.sqrt(c.d_conv))
        # A_log / dt_bias initialised like the HF reference; ssm_a = -exp(A_log) in the file.
        self.A_log = nn.Parameter(torch.log(torch.empty(c.n_v).uniform_(1, 16)))
        dt = torch.exp(torch.rand(c.n_v) * (math.log(0.1) - math.log(0.001)) + math.log(0.001))
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))
        self.norm = nn.Parameter(torch.ones(c.d_k))  # ssm_norm
        self.out = nn.Linear(self.value_dim, c.n_embd, bias=False)  # ssm_out

    def forward(self, x, recurrent=False):
        c = self.c
        B, T, _ = x.shape
        qkv = self.in_qkv(x)  # (B, T, conv_dim)
        # causal depthwise conv: tap d_conv-1 multiplies the current token
        u = F.conv1d(F.pad(qkv.transpose(1, 2), (c.d_conv - 1, 0)), self.conv[:, None, :],
                     groups=self.conv_dim)
        u = F.silu(u).transpose(1, 2)
        q, k, v = u.split([self.key_dim, self.key_dim, self.value_dim], -1)
        q = q.reshape(B, T, c.n_k, c.d_k)
        k = k.reshape(B, T, c.n_k, c.d_k)
        v = v.reshape(B, T, c.n_v, c.d_k)
        # L2 norm with eps as a lower bound on the norm
        q = q / q.norm(dim=-1, keepdim=True).clamp_min(c.eps)
        k = k / k.norm(dim=-1, keepdim=True).clamp_min(c.eps)
        if c.n_v != c.n_k:  # tiled: value head h uses key head h % n_k
            rep = c.n_v // c.n_k
            q = q.repeat(1, 1, rep, 1)
            k = k.repeat(1, 1, rep, 1)
        q = q * (1.0 / math.sqrt(c.d_k))
        beta = torch.sigmoid(self.in_b(x))  # (B, T, n_v)
        g = F.softplus(self.in_a(x) + self.dt_bias) * (-self.A_log.exp())
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        beta, g = beta.transpose(1, 2), g.transpose(1, 2)
        if recurrent:
            o, _ = delta_rule_recurrent(q, k, v, beta, g)
        else:
            o, _ = delta_rule_chunked(q, k, v, beta, g, c.chunk)
        o = o.transpose(1, 2)  # (B, T, n_v, d_v)
        z = self.in_z(x).reshape(B, T, c.n_v, c.d_k)
        y = rms_norm(o, self.norm, c.eps) * F.silu(z)
        return self.out(y.reshape(B, T, self.value_dim))


# --- gated attention ---------------------------------------------------------------------------


def rope_neox_partial(x, n_rot, base, pos):
    """x: (B, H, T, D); rotate pairs (x[j], x[j + n_rot/2]) for j < n_rot/2 (spec §7.3)."""
    half = n_rot // 2
    inv = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / n_rot)
    ang = (pos.to(torch.float64)[:, None] * inv[None, :]).to(x.dtype)  # (T, half)
    cos, sin = ang.cos(), ang.sin()
    x1, x2, rest = x[..., :half], x[..., half:n_rot], x[..., n_rot:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin, rest], -1)


class GatedAttention(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.c = c
        self.wq = nn.Linear(c.n_embd, 2 * c.n_head * c.head_dim, bias=False)  # [q | gate] per head
        self.wk = nn.Linear(c.n_embd, c.n_head_kv * c.head_dim, bias=False)
        self.wv = nn.Linear(c.n_embd, c.n_head_kv * c.head_dim, bias=False)
        self.wo = nn.Linear(c.n_head * c.head_dim, c.n_embd, bias=False)
        self.q_norm = nn.Parameter(torch.ones(c.head_dim))
        self.k_norm = nn.Parameter(torch.ones(c.head_dim))

    def forward(self, x):
        c = self.c
        B, T, _ = x.shape
        H, Hk, D = c.n_head, c.n_head_kv, c.head_dim
        qg = self.wq(x).reshape(B, T, H, 2 * D)
        q, gate = qg[..., :D], qg[..., D:]
        q = rms_norm(q, self.q_norm, c.eps).transpose(1, 2)
        k = rms_norm(self.wk(x).reshape(B, T, Hk, D), self.k_norm, c.eps).transpose(1, 2)
        v = self.wv(x).reshape(B, T, Hk, D).transpose(1, 2)
        pos = torch.arange(T)
        q = rope_neox_partial(q, c.n_rot, c.rope_base, pos)
        k = rope_neox_partial(k, c.n_rot, c.rope_base, pos)
        if Hk != H:  # head h uses KV head h // (H / Hk)
            k = k.repeat_interleave(H // Hk, 1)
            v = v.repeat_interleave(H // Hk, 1)
        att = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(D))
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        o = (att @ v).transpose(1, 2).reshape(B, T, H * D)
        return self.wo(o * torch.sigmoid(gate.reshape(B, T, H * D)))


class Block(nn.Module):
    def __init__(self, c: Config, is_attn: bool):
        super().__init__()
        self.attn_norm = RMSNorm(c.n_embd, c.eps)
        self.post_norm = RMSNorm(c.n_embd, c.eps)
        self.is_attn = is_attn
        self.mixer = GatedAttention(c) if self.is_attn else GatedDeltaNet(c)
        self.ffn_gate = nn.Linear(c.n_embd, c.n_ff, bias=False)
        self.ffn_up = nn.Linear(c.n_embd, c.n_ff, bias=False)
        self.ffn_down = nn.Linear(c.n_ff, c.n_embd, bias=False)

    def forward(self, x, recurrent=False):
        a = self.attn_norm(x)
        x = x + (self.mixer(a) if self.is_attn else self.mixer(a, recurrent))
        f = self.post_norm(x)
        return x + self.ffn_down(F.silu(self.ffn_gate(f)) * self.ffn_up(f))


class Qwen35(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.n_vocab, c.n_embd)  # tied with the output head
        self.blocks = nn.ModuleList(Block(c, c.is_attention(il)) for il in range(c.n_layer))
        self.out_norm = RMSNorm(c.n_embd, c.eps)
        self._init()

    def _init(self):
        std = 0.02
        nn.init.normal_(self.embed.weight, std=std)
        for name, p in self.named_parameters():
            if p.dim() == 2 and name.endswith(".weight") and "embed" not in name:
                nn.init.normal_(p, std=std)
                if name.endswith(("ffn_down.weight", "mixer.out.weight", "mixer.wo.weight")):
                    p.data.mul_(1 / math.sqrt(2 * self.c.n_layer))

    def hidden(self, ids, recurrent=False):
        """The final-normed hidden states (B, T, n_embd): what the LM head multiplies, and what
        the MTP layer reads."""
        x = self.embed(ids)
        for b in self.blocks:
            x = b(x, recurrent)
        return self.out_norm(x)

    def forward(self, ids, recurrent=False):
        return self.hidden(ids, recurrent) @ self.embed.weight.t()

    def n_params(self):
        return sum(p.numel() for p in self.parameters())


# --- multi-token prediction --------------------------------------------------------------------


class NextN(nn.Module):
    """The multi-token-prediction (MTP, "NextN") layer, spec §4.5-4.6: row i takes token x_i and
    the hidden state paired with it (the trunk's final-normed state at i-1, or during drafting
    the layer's own output of the previous step) and predicts x_{i+1}:
    z = eh_proj · [RMSNorm(embed(x_i))·enorm | RMSNorm(h)·hnorm], one gated full-attention block
    with its SwiGLU FFN, h_mtp = RMSNorm(·)·shared_head_norm, logits = h_mtp · embedᵀ. The
    embedding and the head are the trunk's tied token_embd (no nextn.embed_tokens or
    shared_head_head of its own, as in converted Qwen3.5 files)."""

    def __init__(self, c: Config):
        super().__init__()
        self.enorm = RMSNorm(c.n_embd, c.eps)
        self.hnorm = RMSNorm(c.n_embd, c.eps)
        self.eh_proj = nn.Linear(2 * c.n_embd, c.n_embd, bias=False)
        self.block = Block(c, is_attn=True)
        self.head_norm = RMSNorm(c.n_embd, c.eps)  # nextn.shared_head_norm
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
                if name.endswith(("ffn_down.weight", "mixer.wo.weight")):
                    p.data.mul_(1 / math.sqrt(2))

    def forward(self, embed: nn.Embedding, ids, h):
        """ids (B, T), h (B, T, n_embd) paired row by row. Returns (logits, h_mtp)."""
        z = self.eh_proj(torch.cat([self.enorm(embed(ids)), self.hnorm(h)], -1))
        h_mtp = self.head_norm(self.block(z))
        return h_mtp @ embed.weight.t(), h_mtp


def previous_hidden(h):
    """The trunk's hidden states shifted one position later (zeros first): row i holds the state
    of i-1, the pairing of the MTP layer's prompt rows."""
    return torch.cat([torch.zeros_like(h[:, :1]), h[:, :-1]], 1)
