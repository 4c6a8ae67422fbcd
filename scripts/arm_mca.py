#!/usr/bin/env python3
"""Instruction counts and llvm-mca cycle estimates of ARM matrix-product inner loops.

usage: scripts/arm_mca.py ASM_FILE FUNCTION_SUBSTRING [--mcpu CPU] [--trips N] [--all | --loop K]

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
    path, name = args
    body = function_lines(path, name)
    spans = loops(body)
    rows = []
    for span in spans:
        nested = inner(spans, span)
        if nested and not trips:
            continue
        own = [l.strip() for i, l in enumerate(body[span[0]:span[1] + 1], span[0])
               if is_insn(l) and not any(c <= i <= d for c, d in nested)]
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
