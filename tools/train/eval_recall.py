#!/usr/bin/python3
"""Recall accuracy of a chat model through the engine (libkazeia's C API, kazeia.h, via ctypes).

Held-out dialogues (chat_data.py: names, pet names, cities and phrasings never trained on) are
played turn by turn as the app does: the whole history each turn, the model's own answers
appended, greedy decoding. Turn 1 gives the first name and the age; the turns until the last
are small talk or other facts; the last turn (3, 5 or 10) asks for the name and the age (the
acceptance scenario) or, with --ask any, for one to three facts given so far. An answer counts
as correct when it contains every asked value (as whole words). With --ask never the question
is about a fact never given, and the answer counts when it says so. Each dialogue runs in two
sessions, prefix reuse on and off; their answers must be identical at every turn. Missed
name-and-age answers are counted by why they missed (miss_kind).

    /usr/bin/python3 tools/train/eval_recall.py --lib build/bindings/libkazeia.so \
        --model models/kazeia-chat-q8_0.gguf --turns 3 5 10 --n 100
"""
from __future__ import annotations

import argparse
import ctypes as C
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chat_data import FACTS, Generator  # noqa: E402
from chat_eighth import EIGHTH  # noqa: E402
from chat_fifth import FIFTH  # noqa: E402
from chat_fourth import FOURTH  # noqa: E402
from chat_fresh import FRESH, blind_generator  # noqa: E402
from chat_ninth import NINTH  # noqa: E402
from chat_seventh import SEVENTH  # noqa: E402
from chat_sixth import SIXTH  # noqa: E402
from chat_third import THIRD  # noqa: E402

# The blind held-out splits in the order they were written: each is checked against those before.
BLIND = [("fresh", FRESH), ("third", THIRD), ("fourth", FOURTH), ("fifth", FIFTH),
         ("sixth", SIXTH), ("seventh", SEVENTH), ("eighth", EIGHTH), ("ninth", NINTH)]


SESSION_FIELDS = [("struct_size", C.c_size_t), ("n_ctx", C.c_int64), ("n_threads", C.c_int32),
                  ("k_type", C.c_char_p), ("v_type", C.c_char_p), ("backend", C.c_char_p),
                  ("checkpoint_interval", C.c_int64), ("checkpoint_budget_bytes", C.c_uint64),
                  ("op_filter", C.c_char_p), ("cache_dir", C.c_char_p),
                  ("prefill_device", C.c_char_p), ("decode_device", C.c_char_p),
                  ("prefill_min_tokens", C.c_int64), ("repack", C.c_char_p)]


class Message(C.Structure):
    _fields_ = [("role", C.c_char_p), ("content", C.c_char_p), ("reasoning_content", C.c_char_p)]


def structs(api_version: int):
    """kz_session_params, kz_generate_params and kz_generate_result as kazeia.h defines them for
    `api_version` (each version appends fields; a struct returned by value must have the
    library's size)."""
    session = list(SESSION_FIELDS)
    params = [("struct_size", C.c_size_t), ("temperature", C.c_float), ("top_k", C.c_int32),
              ("top_p", C.c_float), ("min_p", C.c_float), ("repeat_penalty", C.c_float),
              ("repeat_last_n", C.c_int32), ("presence_penalty", C.c_float),
              ("seed", C.c_uint64), ("max_tokens", C.c_int32),
              ("stop", C.POINTER(C.c_char_p)), ("n_stop", C.c_size_t),
              ("enable_thinking", C.c_int32), ("add_generation_prompt", C.c_int32),
              ("reuse_prefix", C.c_int32)]
    result = [("struct_size", C.c_size_t), ("text", C.c_char_p), ("text_len", C.c_size_t),
              ("tokens", C.POINTER(C.c_int32)), ("n_tokens", C.c_size_t),
              ("stop_reason", C.c_int), ("prompt_tokens", C.c_int64),
              ("cached_tokens", C.c_int64), ("prefill_tokens", C.c_int64),
              ("generated_tokens", C.c_int64), ("ttft_s", C.c_double),
              ("prefill_s", C.c_double), ("decode_s", C.c_double)]
    if api_version >= 2:
        params += [("tools", C.c_char_p), ("speculative", C.c_char_p), ("max_draft", C.c_int32)]
        result += [("content", C.c_char_p), ("reasoning", C.c_char_p),
                   ("tool_calls", C.c_void_p), ("n_tool_calls", C.c_size_t),
                   ("tool_call_malformed", C.c_int32), ("spec_passes", C.c_int64),
                   ("spec_drafted", C.c_int64), ("spec_accepted", C.c_int64)]
    if api_version >= 3:
        session += [("context_overflow", C.c_int32)]
        result += [("dropped_messages", C.c_int64)]
    if api_version >= 4:
        session += [("device_layers", C.c_int64)]
    return tuple(type(name, (C.Structure,), {"_fields_": fields}) for name, fields in
                 (("SessionParams", session), ("GenerateParams", params),
                  ("GenerateResult", result)))


class Engine:
    def __init__(self, lib: str, model: str, threads: int):
        self.lib = C.CDLL(lib)
        L = self.lib
        SessionParams, self.GenerateParams, self.GenerateResult = structs(L.kz_api_version())
        L.kz_session_params_default.restype = SessionParams
        L.kz_generate_params_default.restype = self.GenerateParams
        err = C.c_char_p()
        self.engine = C.c_void_p()
        if L.kz_engine_load(model.encode(), C.byref(self.engine), C.byref(err)) != 0:
            raise RuntimeError(err.value.decode())
        self.sp = L.kz_session_params_default()
        self.sp.n_ctx = 2048
        self.sp.n_threads = threads

    def session(self):
        s, err = C.c_void_p(), C.c_char_p()
        if self.lib.kz_session_new(self.engine, C.byref(self.sp), C.byref(s), C.byref(err)) != 0:
            raise RuntimeError(err.value.decode())
        return s

    def generate(self, session, messages: list[dict], reuse: bool, thinking: bool):
        arr = (Message * len(messages))(*[Message(m["role"].encode(), m["content"].encode(), None)
                                          for m in messages])
        gp = self.lib.kz_generate_params_default()
        gp.temperature = 0.0
        gp.max_tokens = 64
        gp.enable_thinking = int(thinking)
        gp.reuse_prefix = int(reuse)
        res = self.GenerateResult()
        res.struct_size = C.sizeof(self.GenerateResult)
        err = C.c_char_p()
        if self.lib.kz_generate(session, arr, len(messages), C.byref(gp), None, None,
                                C.byref(res), C.byref(err)) != 0:
            raise RuntimeError(err.value.decode())
        text = res.text.decode()
        cached = res.cached_tokens
        self.lib.kz_result_free(C.byref(res))
        return text, cached


# how the answers say that a fact was never given (chat_data.Generator.answer)
NEVER_GIVEN = ("Tu ne m'as pas encore dit", "You haven't told me")


def content(text: str) -> str:
    """The answer without the (empty) reasoning block."""
    return text.split("</think>")[-1].strip()


def values(facts: dict, asked: list[str]) -> list[str]:
    return [facts[f][1] if f == "pet" else facts[f] for f in asked]


def whole_word(value: str) -> re.Pattern:
    """`value` as a whole word: not inside a longer name or number ("34" is not in "134")."""
    return re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)")


def contains(answer: str, value: str) -> bool:
    return whole_word(value).search(answer) is not None


def plan_for(g: Generator, turns: int, ask: str) -> list:
    r = g.rng
    rest = [f for f in FACTS if f not in ("name", "age")]
    r.shuffle(rest)
    if ask == "never":
        rest = rest[1:]  # keeps one fact untold
    plan, told = [("tell", ["name", "age"])], ["name", "age"]
    for _ in range(turns - 2):
        if rest and r.random() < 0.5:
            f = rest.pop()
            plan.append(("tell", [f]))
            told.append(f)
        else:
            plan.append(("chat",))
    if ask == "name-age":
        asked = ["name", "age"]
    elif ask == "never":  # a fact never given: the answer must say so
        asked = [r.choice([f for f in FACTS if f not in told])]
    else:
        asked = r.sample(told, min(len(told), r.choice([1, 2, 3])))
    plan.append(("ask", asked))
    return plan


def generator(seed: int, split: str, composed_talk: float = 0.0,
              name_callers: bool = False, name_nouns: bool = False) -> Generator:
    """heldout: held-out names, cities and phrasings; names: held-out names and cities with the
    training phrasings; train: everything from the training lists (fresh dialogues); fresh: the
    second held-out split (chat_fresh); third .. ninth: the later ones (chat_third, ...).
    composed_talk, name_callers and name_nouns: the training data's options (train.py), for
    names and train."""
    if split == "heldout":
        return Generator(seed, True)
    for i, (name, blind) in enumerate(BLIND):
        if split == name:
            return blind_generator(blind, seed, tuple(b for _, b in BLIND[:i]))
    t = Generator(seed, False, composed_talk=composed_talk, name_callers=name_callers,
                  name_nouns=name_nouns)
    if split == "train":
        return t
    g = Generator(seed, True)
    g.phr, g.small_talk, g.composed_talk = t.phr, t.small_talk, t.composed_talk
    return g


def miss_kind(facts: dict, first_reply: str, answer: str) -> str:
    """Why a name-and-age answer missed: the name not acknowledged as written at turn 1
    ("unheard"), another fact's value given as the name ("other fact"), the name copied wrongly
    ("near copy"), or the age alone wrong ("age")."""
    if contains(answer, facts["name"]):
        return "age"
    if not contains(first_reply, facts["name"]):
        return "unheard"
    others = values(facts, [f for f in FACTS if f not in ("name", "age")])
    return "other fact" if any(contains(answer, v) for v in others) else "near copy"


def run(engine: Engine, turns: int, n: int, ask: str, thinking: bool, verbose: bool,
        g: Generator):
    correct = same = 0
    kinds: dict = {}
    by_lang = {"fr": [0, 0], "en": [0, 0]}  # [correct, played]
    for i in range(n):
        d = g.dialogue(turns, plan=plan_for(g, turns, ask))
        d["messages"] = [m for m in d["messages"] if m["role"] != "system"]
        users = [m["content"] for m in d["messages"] if m["role"] == "user"]
        on, off = engine.session(), engine.session()
        h_on, h_off, identical = [], [], True
        for u in users:
            h_on.append({"role": "user", "content": u})
            h_off.append({"role": "user", "content": u})
            a_on, _ = engine.generate(on, h_on, True, thinking)
            a_off, _ = engine.generate(off, h_off, False, thinking)
            identical &= a_on == a_off
            h_on.append({"role": "assistant", "content": a_on})
            h_off.append({"role": "assistant", "content": a_off})
        engine.lib.kz_session_free(on)
        engine.lib.kz_session_free(off)
        answer = content(h_on[-1]["content"])
        if ask == "never":
            ok = any(s in answer for s in NEVER_GIVEN)
        else:
            ok = all(contains(answer, v) for v in values(d["facts"], d["plan"][-1][1]))
        correct += ok
        same += identical
        by_lang[d["lang"]][0] += ok
        by_lang[d["lang"]][1] += 1
        if not ok and ask == "name-age":
            kind = miss_kind(d["facts"], content(h_on[1]["content"]), answer)
            kinds[kind] = kinds.get(kind, 0) + 1
        if verbose and (not ok or i < 2):
            print(f"  [{'ok' if ok else 'MISS'}] {users[0]!r} ... {users[-1]!r} -> {answer!r}")
            if not ok:  # the whole dialogue: where the history went wrong
                for m in h_on:
                    print(f"      {m['role']}: {content(m['content'])}")
    return correct, same, kinds, by_lang


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/bindings/libkazeia.so")
    ap.add_argument("--model", required=True)
    ap.add_argument("--turns", type=int, nargs="+", default=[3, 5, 10])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--ask", choices=["name-age", "any", "never"], default="name-age",
                    help="the last question: name and age, 1-3 facts given so far, or a fact "
                         "never given (correct when the answer says it was not given)")
    ap.add_argument("--no-think", action="store_true", help="enable_thinking = false")
    ap.add_argument("--split", choices=["heldout", "names", "train"] + [n for n, _ in BLIND],
                    default="heldout",
                    help="what is held out: names and phrasings, names only, nothing; fresh, "
                         "third .. ninth: the later held-out splits' names and phrasings "
                         "(chat_fresh.py, chat_third.py, ...)")
    ap.add_argument("--composed-talk", type=float, default=0.0,
                    help="names and train splits: as train.py's option of that name")
    ap.add_argument("--name-callers", action="store_true",
                    help="names and train splits: as train.py's option of that name")
    ap.add_argument("--name-nouns", action="store_true",
                    help="names and train splits: as train.py's option of that name")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the first two dialogues and every missed one (whole)")
    args = ap.parse_args()
    engine = Engine(args.lib, args.model, args.threads)
    for t in args.turns:
        g = generator(args.seed + t, args.split, args.composed_talk, args.name_callers,
                      args.name_nouns)
        c, s, kinds, by_lang = run(engine, t, args.n, args.ask, not args.no_think, args.verbose,
                                   g)
        misses = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        langs = ", ".join(f"{lang} {ok}/{played}" for lang, (ok, played) in by_lang.items())
        print(f"{os.path.basename(args.model)} {args.split} ask={args.ask} turn {t}: "
              f"recall {c}/{args.n} "
              f"= {100 * c / args.n:.1f} %, reuse on/off identical {s}/{args.n}; {langs}"
              + (f"; misses {misses}" if misses else ""), flush=True)


if __name__ == "__main__":
    main()
