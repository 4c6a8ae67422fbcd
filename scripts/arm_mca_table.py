#!/usr/bin/env python3
"""The table of docs/benchmarks.md, "ARM kernels: instruction counts (llvm-mca)".

usage: scripts/arm_mca_table.py REFERENCE_DIR [OUT_DIR]

Compiles our ARM matrix-product kernels (with build-aarch64's flags) and the reference
implementation's ARM ones (REFERENCE_DIR: a llama.cpp checkout; read, never copied) to AArch64
assembly with aarch64-linux-gnu-gcc, then measures one iteration of each kernel's inner loop
with scripts/arm_mca.py (llvm-mca, Neoverse N2 model) and prints a Markdown table per 32-element
block (one weight row x one token x 32 elements) and per token of Qwen3-0.6B's matrices, then
the ratios of ours to the reference kernel for the same job.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DOT = "-march=armv8.2-a+dotprod+fp16"
I8MM = "-march=armv8.2-a+dotprod+i8mm+fp16"
# Qwen3-0.6B's matrices (28 layers of q, k, v, o, gate, up, down; the tied output) in blocks.
BLOCKS_PER_TOKEN = (28 * (2 * 1024 * 2048 + 2 * 1024 * 1024 + 3 * 1024 * 3072) +
                    151936 * 1024) // 32


def compile_all(ref, out):
    ours = ["g++", f"-I{ROOT}/src", "-O3", "-DNDEBUG", "-fPIC", "-ffp-contract=off", "-std=c++20"]
    theirs = ["-O3", "-DNDEBUG", "-D_GNU_SOURCE", f"-I{ref}/ggml/include", f"-I{ref}/ggml/src",
              f"-I{ref}/ggml/src/ggml-cpu"]
    arm = f"{ref}/ggml/src/ggml-cpu/arch/arm"
    jobs = [
        (ours + [DOT], f"{ROOT}/src/kernels/arm/gemv_dotprod.cpp", "gemv_dotprod.s"),
        (ours + [I8MM], f"{ROOT}/src/kernels/arm/gemm_i8mm.cpp", "gemm_i8mm.s"),
        (ours + [I8MM], f"{ROOT}/src/kernels/arm/matmul_packed_i8mm.cpp", "packed.s"),
        (ours + [I8MM], f"{ROOT}/src/kernels/arm/matmul_packed_q4_k_i8mm.cpp", "packed_k.s"),
        (ours + [I8MM], f"{ROOT}/src/kernels/arm/matmul_packed_q6_k_i8mm.cpp", "packed_q6_k.s"),
        (["gcc", "-std=gnu11", DOT] + theirs, f"{arm}/quants.c", "ref_quants_dotprod.s"),
        (["gcc", "-std=gnu11", I8MM] + theirs, f"{arm}/quants.c", "ref_quants_i8mm.s"),
        (["g++", "-std=c++17", I8MM] + theirs, f"{arm}/repack.cpp", "ref_repack_i8mm.s"),
    ]
    for flags, src, asm in jobs:
        cmd = ["aarch64-linux-gnu-" + flags[0]] + flags[1:] + ["-S", "-o", f"{out}/{asm}", src]
        subprocess.run(cmd, check=True)


A = "kz::arm::(anonymous namespace)::"
Q4K = f"tile<{A}DotProd, {A}WeightsQ45K<kz::BlockQ4K, {A}Q4KAcc>, "
Q5K = f"tile<{A}DotProd, {A}WeightsQ45K<kz::BlockQ5K, {A}Q5KAcc>, "
Q6K = f"tile<{A}DotProd, {A}WeightsQ6K, "
# (kernel, assembly, function, nested-loop trips, outputs x blocks per iteration, loop index).
# Per iteration: the rows x tokens x 32-element blocks one iteration of the measured loop covers.
# K-quants: the loop over super-blocks with its 4-trip loop over 64-element chunks nested. Where
# GCC keeps more loops, trips is arm_mca.py's --nest instead: the super-block loop, then each loop
# inside it (--tree's indices) with its runs per run of the loop around it: ours Q6_K 2 halves x
# 4 groups of 32 (gemv: 2 halves x 2 pairs of groups); the reference's 8x8 Q5_K 4 sub-block
# pairs x (2 scale decodings, and 4 column pairs in gemm), its 8x8 Q6_K 2 halves x 4 sub-block
# pairs, its 2x2 Q6_K vec_dot 2 halves; 0 for an else block GCC placed after its loop.
KERNELS = [
    ("ours gemv_q4_0_q8_0__neon_dotprod", "gemv_dotprod.s", "gemv_q4_0_q8_0__neon_dotprod", 0, 1),
    ("ref ggml_vec_dot_q4_0_q8_0 (dotprod)", "ref_quants_dotprod.s", "ggml_vec_dot_q4_0_q8_0", 0,
     2),
    ("ours gemv_q4_0_q8_0__neon_i8mm (row-major)", "gemm_i8mm.s", f"dot_4x1<{A}WeightsQ4_0>", 0, 4),
    ("ours gemv_q4_0x4_q8_0__neon_i8mm (packed)", "packed.s", "gemv_q4_0x4_q8_0", 0, 4),
    ("ref ggml_gemv_q4_0_4x8_q8_0", "ref_repack_i8mm.s", "ggml_gemv_q4_0_4x8_q8_0", 0, 4),
    ("ours gemm_q4_0_q8_0_4x1__neon_dotprod", "gemv_dotprod.s", "gemm_q4_0_q8_0_4x1__neon_dotprod",
     0, 4),
    ("ours gemm_q4_0_q8_0_4x4__neon_i8mm (row-major)", "gemm_i8mm.s", f"gemm_bs<{A}WeightsQ4_0>", 0,
     16),
    ("ours gemm_q4_0x4_q8_0__neon_i8mm (packed)", "packed.s", "gemm_q4_0x4_q8_0", 0, 32),
    ("ref ggml_vec_dot_q4_0_q8_0 (i8mm, 2x2)", "ref_quants_i8mm.s", "ggml_vec_dot_q4_0_q8_0", 0, 4),
    ("ref ggml_gemm_q4_0_4x8_q8_0 (16 tokens)", "ref_repack_i8mm.s", "ggml_gemm_q4_0_4x8_q8_0", 0,
     64),
    ("ours gemv_q8_0_q8_0__neon_dotprod", "gemv_dotprod.s", "gemv_q8_0_q8_0__neon_dotprod", 0, 1),
    ("ref ggml_vec_dot_q8_0_q8_0 (dotprod)", "ref_quants_dotprod.s", "ggml_vec_dot_q8_0_q8_0", 0,
     2),
    ("ours gemv_q8_0_q8_0__neon_i8mm (row-major)", "gemm_i8mm.s", f"dot_4x1<{A}WeightsQ8_0>", 0, 4),
    ("ours gemv_q8_0x4_q8_0__neon_i8mm (packed)", "packed.s", "gemv_q8_0x4_q8_0", 0, 4),
    ("ref ggml_gemv_q8_0_4x8_q8_0", "ref_repack_i8mm.s", "ggml_gemv_q8_0_4x8_q8_0", 0, 4),
    ("ours gemm_q8_0_q8_0_4x1__neon_dotprod", "gemv_dotprod.s", "gemm_q8_0_q8_0_4x1__neon_dotprod",
     0, 4),
    ("ours gemm_q8_0_q8_0_4x4__neon_i8mm (row-major)", "gemm_i8mm.s", f"gemm_bs<{A}WeightsQ8_0>", 0,
     16),
    ("ours gemm_q8_0x4_q8_0__neon_i8mm (packed)", "packed.s", "gemm_q8_0x4_q8_0", 0, 32),
    ("ref ggml_vec_dot_q8_0_q8_0 (i8mm, 2x2)", "ref_quants_i8mm.s", "ggml_vec_dot_q8_0_q8_0", 0, 4),
    ("ref ggml_gemm_q8_0_4x8_q8_0", "ref_repack_i8mm.s", "ggml_gemm_q8_0_4x8_q8_0", 0, 16),
    ("ours gemv_q4_K_q8_K__neon_dotprod", "gemv_dotprod.s", Q4K + "1>", 0, 8),
    ("ref ggml_vec_dot_q4_K_q8_K (dotprod)", "ref_quants_dotprod.s", "ggml_vec_dot_q4_K_q8_K", 0,
     8),
    ("ours gemv_q4_Kx4_q8_K__neon_i8mm (packed)", "packed_k.s", f"Tiles<{A}Q4Quants>::tile<1>", 4,
     32),
    ("ref ggml_gemv_q4_K_8x8_q8_K", "ref_repack_i8mm.s", "ggml_gemv_q4_K_8x8_q8_K", "1,2=4,3=2",
     64),
    ("ours gemm_q4_K_q8_K_4x1__neon_dotprod", "gemv_dotprod.s", Q4K + "4>", 4, 32),
    ("ours gemm_q4_Kx4_q8_K__neon_i8mm (packed)", "packed_k.s", f"Tiles<{A}Q4Quants>::tile<8>", 4,
     256),
    ("ref ggml_gemm_q4_K_8x8_q8_K", "ref_repack_i8mm.s", "ggml_gemm_q4_K_8x8_q8_K", "2,3=4,4=2",
     256),
    ("ours gemv_q5_K_q8_K__neon_dotprod", "gemv_dotprod.s", Q5K + "1>", 0, 8),
    ("ref ggml_vec_dot_q5_K_q8_K (dotprod)", "ref_quants_dotprod.s", "ggml_vec_dot_q5_K_q8_K", 0,
     8),
    ("ours gemv_q5_Kx4_q8_K__neon_i8mm (packed)", "packed_k.s", f"Tiles<{A}Q5Quants>::tile<1>", 4,
     32),
    ("ref ggml_gemv_q5_K_8x8_q8_K", "ref_repack_i8mm.s", "ggml_gemv_q5_K_8x8_q8_K", "1,2=4,3=2",
     64),
    ("ours gemm_q5_K_q8_K_4x1__neon_dotprod", "gemv_dotprod.s", Q5K + "4>", 4, 32),
    ("ours gemm_q5_Kx4_q8_K__neon_i8mm (packed)", "packed_k.s", f"Tiles<{A}Q5Quants>::tile<8>", 4,
     256),
    ("ref ggml_gemm_q5_K_8x8_q8_K", "ref_repack_i8mm.s", "ggml_gemm_q5_K_8x8_q8_K",
     "2,3=4,4=2,5=4", 256),
    ("ours gemv_q6_K_q8_K__neon_dotprod", "gemv_dotprod.s", Q6K + "1>", 0, 8),
    ("ref ggml_vec_dot_q6_K_q8_K (dotprod)", "ref_quants_dotprod.s", "ggml_vec_dot_q6_K_q8_K", 0,
     8),
    ("ours gemv_q6_Kx4_q8_K__neon_i8mm (packed)", "packed_q6_k.s", "gemv_q6_Kx4_q8_K__neon_i8mm",
     "1,2=2,3=2", 32),
    ("ref ggml_gemv_q6_K_8x8_q8_K", "ref_repack_i8mm.s", "ggml_gemv_q6_K_8x8_q8_K", "1,2=2,3=4",
     64),
    ("ours gemm_q6_K_q8_K_4x1__neon_dotprod", "gemv_dotprod.s", Q6K + "4>", 0, 32),
    ("ours gemm_q6_Kx4_q8_K__neon_i8mm (packed)", "packed_q6_k.s", f"{A}Tiles::tile<8>",
     "0,1=2,2=4", 256),
    ("ref ggml_vec_dot_q6_K_q8_K (i8mm, 2x2)", "ref_quants_i8mm.s", "ggml_vec_dot_q6_K_q8_K",
     "2,3=2", 32),
    ("ref ggml_gemm_q6_K_8x8_q8_K", "ref_repack_i8mm.s", "ggml_gemm_q6_K_8x8_q8_K", "2,3=2,4=4",
     256),
]
# (job, level, our kernel, the reference's for the same job and level), as KERNELS names them.
RATIOS = [
    ("Q4_0 decode", "dotprod", "gemv_q4_0_q8_0__neon_dotprod", "ggml_vec_dot_q4_0_q8_0 (dotprod)"),
    ("Q4_0 decode", "i8mm", "gemv_q4_0x4_q8_0__neon_i8mm (packed)", "ggml_gemv_q4_0_4x8_q8_0"),
    ("Q4_0 decode", "i8mm", "gemv_q4_0_q8_0__neon_i8mm (row-major)", "ggml_gemv_q4_0_4x8_q8_0"),
    ("Q8_0 decode", "dotprod", "gemv_q8_0_q8_0__neon_dotprod", "ggml_vec_dot_q8_0_q8_0 (dotprod)"),
    ("Q8_0 decode", "i8mm", "gemv_q8_0x4_q8_0__neon_i8mm (packed)", "ggml_gemv_q8_0_4x8_q8_0"),
    ("Q4_K decode", "dotprod", "gemv_q4_K_q8_K__neon_dotprod", "ggml_vec_dot_q4_K_q8_K (dotprod)"),
    ("Q4_K decode", "i8mm", "gemv_q4_Kx4_q8_K__neon_i8mm (packed)", "ggml_gemv_q4_K_8x8_q8_K"),
    ("Q5_K decode", "dotprod", "gemv_q5_K_q8_K__neon_dotprod", "ggml_vec_dot_q5_K_q8_K (dotprod)"),
    ("Q5_K decode", "i8mm", "gemv_q5_Kx4_q8_K__neon_i8mm (packed)", "ggml_gemv_q5_K_8x8_q8_K"),
    ("Q6_K decode", "dotprod", "gemv_q6_K_q8_K__neon_dotprod", "ggml_vec_dot_q6_K_q8_K (dotprod)"),
    ("Q6_K decode", "i8mm", "gemv_q6_Kx4_q8_K__neon_i8mm (packed)", "ggml_gemv_q6_K_8x8_q8_K"),
    ("Q4_0 prefill", "dotprod", "gemm_q4_0_q8_0_4x1__neon_dotprod",
     "ggml_vec_dot_q4_0_q8_0 (dotprod)"),
    ("Q4_0 prefill", "i8mm", "gemm_q4_0x4_q8_0__neon_i8mm (packed)",
     "ggml_gemm_q4_0_4x8_q8_0 (16 tokens)"),
    ("Q4_0 prefill", "i8mm", "gemm_q4_0_q8_0_4x4__neon_i8mm (row-major)",
     "ggml_gemm_q4_0_4x8_q8_0 (16 tokens)"),
    ("Q8_0 prefill", "i8mm", "gemm_q8_0x4_q8_0__neon_i8mm (packed)", "ggml_gemm_q8_0_4x8_q8_0"),
    ("Q4_K prefill", "dotprod", "gemm_q4_K_q8_K_4x1__neon_dotprod",
     "ggml_vec_dot_q4_K_q8_K (dotprod)"),
    ("Q4_K prefill", "i8mm", "gemm_q4_Kx4_q8_K__neon_i8mm (packed)", "ggml_gemm_q4_K_8x8_q8_K"),
    ("Q5_K prefill", "dotprod", "gemm_q5_K_q8_K_4x1__neon_dotprod",
     "ggml_vec_dot_q5_K_q8_K (dotprod)"),
    ("Q5_K prefill", "i8mm", "gemm_q5_Kx4_q8_K__neon_i8mm (packed)", "ggml_gemm_q5_K_8x8_q8_K"),
    ("Q6_K prefill", "dotprod", "gemm_q6_K_q8_K_4x1__neon_dotprod",
     "ggml_vec_dot_q6_K_q8_K (dotprod)"),
    ("Q6_K prefill", "i8mm", "gemm_q6_Kx4_q8_K__neon_i8mm (packed)", "ggml_gemm_q6_K_8x8_q8_K"),
]


def measure(out, kernel):
    _, asm, function, trips, _ = kernel[:5]
    cmd = [sys.executable, f"{HERE}/arm_mca.py", f"{out}/{asm}", function]
    if isinstance(trips, str):
        cmd += ["--nest", trips]
    elif trips:
        cmd += ["--trips", str(trips)]
    if len(kernel) > 5:
        cmd += ["--loop", str(kernel[5])]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = re.search(r"(\d+) instructions/iteration, (\d+) sdot/smmla, ([\d.]+) cycles", text)
    return int(m.group(1)), int(m.group(2)), float(m.group(3))


def main():
    ref = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/arm_mca"
    os.makedirs(out, exist_ok=True)
    compile_all(ref, out)
    print("| kernel | rows x tokens x blocks / iteration | instructions / iteration | sdot + smmla "
          "| cycles / iteration | instructions / block | cycles / block | instructions / token |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    per_block = {}  # name without "ours " / "ref ": the table's (instructions, cycles) per block
    for k in KERNELS:
        n, dots, cycles = measure(out, k)
        units = k[4]
        per_block[k[0].split(" ", 1)[1]] = (round(n / units, 2), round(cycles / units, 2))
        print(f"| {k[0]} | {units} | {n} | {dots} | {cycles:.1f} | {n / units:.2f} | "
              f"{cycles / units:.2f} | {n / units * BLOCKS_PER_TOKEN / 1e6:.0f} M |")
    print("\n| job | level | ours | reference | instructions | cycles |")
    print("|---|---|---|---|---:|---:|")
    for job, level, ours, ref in RATIOS:
        (n0, c0), (n1, c1) = per_block[ours], per_block[ref]
        print(f"| {job} | {level} | {ours} | {ref.split(' (')[0]} | {n0 / n1:.2f} | "
              f"{c0 / c1:.2f} |")


if __name__ == "__main__":
    main()
