#!/usr/bin/env python3
"""Instruction counts and llvm-mca cycle estimates of ARM matrix-product inner loops.

usage: scripts/arm_mca.py ASM_FILE FUNCTION_SUBSTRING [--mcpu CPU]
           [--trips N] [--all | --loop K] | --tree | --nest K,J=N,...

Reads a GCC/Clang AArch64 assembly file (-S output), finds the function whose symbol contains
FUNCTION_SUBSTRING, and prints each innermost loop (a label and the last backward branch to it)
with its instruction count, its sdot / smmla count and llvm-mca's cycles per iteration for
-mcpu (default neoverse-n2); without --all only the loop with the most sdot + smmla. With
--trips N, loops with nested loops count too, each nested loop as N runs of its body (its
cycles: N times llvm-mca's estimate for it alone, added to the outer body's); --loop K picks
the K-th loop of --all's list instead of the one with the most sdot + smmla. What one
iteration covers (rows x tokens x 32-element blocks) depends on the kernel: docs/benchmarks.md
lists it per kernel. LLVM_MCA names the llvm-mca binary (default llvm-mca-16: LLVM 14's knows
no Neoverse N2 model and falls back to Cortex-A57's).

--trips N fits one level of nested loops with one trip count (a loop nested deeper counts once per
run of the loop around it); for a nest of loops with different trip counts (a super-block's halves,
chunks and scale decodings, as GCC leaves them rolled), --tree lists every loop of the function with
its index, nesting and the instructions outside its nested loops, and --nest K,J=N,... measures one
iteration of loop K with each loop J inside it run N times per iteration of the loop directly around
J (N read from the source; 0 for a "loop" that is an else block GCC placed after the loop, branching
back into it, which --tree marks as starting inside another loop and ending past it). Each loop's
lines count once per iteration: of an if / else, the branch GCC placed inside them; a block skipped
on some iterations, as if always run.
"""
import os
import re
import subprocess
import sys


def demangle(symbols):
    out = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True)
    return out.stdout.splitlines()


def normalized(lines):
    """Inline assembly as plain lines: "3:ldr ..." -> "3:" and "ldr ..."; ".inst 0x... //
    smmla ..." (an instruction the assembler may not know, by its encoding) -> "smmla ..."."""
    out = []
    for l in lines:
        m = re.match(r"^\s*(\d+):(.*)$", l)
        if m:
            out.append(m.group(1) + ":")
            l = m.group(2)
        m = re.match(r"^\s*\.inst\s+\S+\s*//\s*(.+)$", l)
        out.append(m.group(1) if m else l)
    return out


def function_lines(path, name):
    """The lines of the first function whose demangled symbol contains name."""
    lines = open(path).read().splitlines()
    heads = [i for i, l in enumerate(lines) if re.match(r"^[A-Za-z_][\w.$]*:", l)]
    names = demangle([lines[i].split(":")[0] for i in heads])
    start = next((i for i, n in zip(heads, names) if name in n), None)
    if start is None:
        sys.exit(f"{name}: not found in {path}")
    for i in range(start + 1, len(lines)):
        if lines[i].strip().startswith(".size"):
            return normalized(lines[start:i])
    sys.exit(f"{name}: no .size after it in {path}")


def is_insn(l):
    s = l.strip()
    return s and not s.endswith(":") and not s.startswith((".", "//", "#", "@"))


def loops(body):
    """(first, last) line of every loop: a label and the last backward branch to it (GCC's .L
    labels and inline assembly's numeric ones, "1:" ... "b.ne 1b")."""
    found = {}
    labels = {}
    for j, l in enumerate(body):
        s = l.strip()
        m = re.match(r"^(\.L\w+|\d+):", s)
        if m:
            labels.setdefault(m.group(1), []).append(j)
            continue
        m = re.match(r"^(b\.\w+|b\w\w|cbn?z|tbn?z|b)\s+(?:.*,\s*)?(\.L\w+|\d+b)\s*$", s)
        if not m:
            continue
        target = m.group(2)
        if target.endswith("b"):  # the nearest numeric label before the branch
            before = [i for i in labels.get(target[:-1], []) if i < j]
            if before:
                found[before[-1]] = j
        elif target in labels and labels[target][0] < j:
            found[labels[target][0]] = j
    return sorted(found.items())


def inner(spans, span):
    return [(c, d) for c, d in spans if span[0] <= c and d <= span[1] and (c, d) != span]


def mca(insns, mcpu, iterations=100):
    out = subprocess.run(
        [os.environ.get("LLVM_MCA", "llvm-mca-16"), "-mtriple=aarch64", f"-mcpu={mcpu}",
         f"-iterations={iterations}"],
        input="\n".join(insns) + "\n", capture_output=True, text=True).stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))
    return cycles / iterations


def is_dot(insn):
    return re.match(r"(sdot|smmla)\b", insn)


def own_insns(body, span, nested):
    return [l.strip() for i, l in enumerate(body[span[0]:span[1] + 1], span[0])
            if is_insn(l) and not any(c <= i <= d for c, d in nested)]


def tree(body, spans):
    """--tree: the indices --nest takes, with what a trip count is worked out from."""
    for k, span in enumerate(spans):
        nested = inner(spans, span)
        own = own_insns(body, span, nested)
        depth = sum(1 for o in spans if o != span and o[0] <= span[0] and span[1] <= o[1])
        into = [j for j, o in enumerate(spans) if o[0] < span[0] <= o[1] < span[1]]
        extra = f"; starts inside loop {', '.join(map(str, into))}, ends past it" if into else ""
        print(f"{k}: {'  ' * depth}{body[span[0]].strip()} lines {span[0]}-{span[1]}: {len(own)} "
              f"instructions ({sum(1 for i in own if is_dot(i))} sdot/smmla) outside nested loops, "
              f"closed by {body[span[1]].strip()!r}{extra}")


def nest(body, spans, k, trips, mcpu):
    """(instructions, sdot + smmla, cycles, shape) of one iteration of loop k, each loop j nested
    in it run trips[j] times per iteration of the loop directly around it (cycles likewise: the
    sum of llvm-mca's estimates of each loop's own instructions times its runs)."""
    nested = inner(spans, spans[k])
    own = own_insns(body, spans[k], nested)
    n, dots, cycles = len(own), sum(1 for i in own if is_dot(i)), mca(own, mcpu)
    shape = f"{n} ({dots})"
    for j, span in enumerate(spans):
        if span not in nested or any(o != span and o[0] <= span[0] and span[1] <= o[1]
                                     for o in nested):
            continue  # not directly inside loop k
        if j not in trips:
            sys.exit(f"loop {j} (inside loop {k}): no trip count in --nest (see --tree)")
        if trips[j]:
            jn, jdots, jcycles, jshape = nest(body, spans, j, trips, mcpu)
            n, dots = n + trips[j] * jn, dots + trips[j] * jdots
            cycles += trips[j] * jcycles
            shape += f" + {trips[j]} x " + (f"({jshape})" if "+" in jshape else jshape)
    return n, dots, cycles, shape


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    mcpu = "neoverse-n2"
    if "--mcpu" in sys.argv:
        mcpu = sys.argv[sys.argv.index("--mcpu") + 1]
        args.remove(mcpu)
    trips = 0  # --trips N: nested loops run N times per iteration of the loop measured
    if "--trips" in sys.argv:
        trips = int(sys.argv[sys.argv.index("--trips") + 1])
        args.remove(str(trips))
    if "--loop" in sys.argv:
        args.remove(sys.argv[sys.argv.index("--loop") + 1])
    spec = None  # --nest K,J=N,...
    if "--nest" in sys.argv:
        spec = sys.argv[sys.argv.index("--nest") + 1]
        args.remove(spec)
    path, name = args
    body = function_lines(path, name)
    spans = loops(body)
    if "--tree" in sys.argv:
        return tree(body, spans)
    if spec:
        k, *rest = spec.split(",")
        k, trips = int(k), {int(j): int(n) for j, n in (r.split("=") for r in rest)}
        inside = {j for j, span in enumerate(spans) if span in inner(spans, spans[k])}
        if set(trips) - inside:
            sys.exit(f"--nest: loops {sorted(set(trips) - inside)} are not inside loop {k}")
        n, dots, cycles, shape = nest(body, spans, k, trips, mcpu)
        return print(f"{name}: {n} instructions/iteration, {dots} sdot/smmla, "
                     f"{cycles:.2f} cycles/iteration ({mcpu}; {shape})")
    rows = []
    for span in spans:
        nested = inner(spans, span)
        if nested and not trips:
            continue
        own = own_insns(body, span, nested)
        nested_insns = [[l.strip() for l in body[c:d + 1] if is_insn(l)] for c, d in nested
                        if not any((c, d) != o and o[0] <= c and d <= o[1] for o in nested)]
        all_insns = own + [i for n in nested_insns for i in n]
        dots = sum(1 for i in own if re.match(r"(sdot|smmla|usmmla)\b", i))
        dots += trips * sum(1 for n in nested_insns for i in n if re.match(r"(sdot|smmla)\b", i))
        count = len(own) + trips * sum(len(n) for n in nested_insns)
        cycles = mca(own, mcpu) + trips * sum(mca(n, mcpu) for n in nested_insns)
        own_dots = sum(1 for i in own if re.match(r"(sdot|smmla)\b", i))
        shape = f"{len(own)} ({own_dots} sdot/smmla) + {trips} x " + "+".join(
            f"{len(n)} ({sum(1 for i in n if re.match(r'(sdot|smmla)', i))})" for n in nested_insns)
        rows.append((dots, count, cycles, shape if nested_insns else ""))
    if "--loop" in sys.argv:  # the K-th loop of --all's list (in the order of the assembly)
        rows = [rows[int(sys.argv[sys.argv.index("--loop") + 1])]]
    elif "--all" not in sys.argv:
        rows = [max(rows, key=lambda r: (r[0], r[1]))]
    for dots, n, cycles, shape in rows:
        extra = f"; {shape}" if shape else ""
        print(f"{name}: {n} instructions/iteration, {dots} sdot/smmla, "
              f"{cycles:.2f} cycles/iteration ({mcpu}{extra})")


if __name__ == "__main__":
    main()
