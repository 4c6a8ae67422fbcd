#!/usr/bin/env bash
# bench_compare.sh [options] MODEL...
#
# Benchmarks kazeia and the reference implementation (llama-bench, built beside the repository by
# ../shared/tools/build-reference.sh) on the very same GGUF files, alternating: each round runs
# both engines on every model, the order of the two swapped from one round to the next, so that
# a machine's changing load falls on both. Prints a Markdown table: per model and test, each
# engine's median t/s over the rounds (each round's figure is itself the mean of -r runs) and
# the median of the per-round ratios kazeia / reference, with the machine's ISA flags, the date
# and both commits, ready for docs/benchmarks.md.
#
# Options (defaults in brackets): -p N prompt tokens [512; 0 skips pp], -n N generated tokens
# [128; 0 skips tg], -d LIST depths [0], -r N runs per engine and round [3], --rounds N [3],
# -t N threads [2], -ctk TYPE / -ctv TYPE K/V cache types [f16].
# Environment: KAZEIA [build/kazeia], REFERENCE [../reference/llama.cpp/build/bin].
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KAZEIA=${KAZEIA:-$ROOT/build/kazeia}
REFERENCE=${REFERENCE:-$ROOT/../reference/llama.cpp/build/bin}
die() { echo "bench_compare.sh: error: $*" >&2; exit 1; }

prompt=512 gen=128 depths=0 reps=3 rounds=3 threads=2 ctk=f16 ctv=f16 models=()
while [ $# -gt 0 ]; do
  case $1 in
    -p) prompt=$2; shift 2 ;;
    -n) gen=$2; shift 2 ;;
    -d) depths=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -t) threads=$2; shift 2 ;;
    -ctk) ctk=$2; shift 2 ;;
    -ctv) ctv=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) models+=("$1"); shift ;;
  esac
done
[ ${#models[@]} -gt 0 ] || die "no model given (see --help)"
for v in "$prompt" "$gen" "$reps" "$rounds" "$threads"; do
  [[ $v =~ ^[0-9]+$ ]] || die "not a count: $v"
done
[[ $depths =~ ^[0-9]+(,[0-9]+)*$ ]] || die "not a depth list: $depths"
[ -x "$KAZEIA" ] || die "no kazeia binary at $KAZEIA (set KAZEIA)"
[ -x "$REFERENCE/llama-bench" ] || die "no llama-bench in $REFERENCE (run ../shared/tools/build-reference.sh)"
for m in "${models[@]}"; do [ -r "$m" ] || die "cannot read model $m"; done

runs=$(mktemp)
trap 'rm -f "$runs"' EXIT

# Each line of $runs: round engine model test t/s. Tests are named as kazeia names them:
# pp512, tg128, "pp512 @ d4096" (spaces written as _ here).
run_kazeia() {  # ROUND MODEL
  "$KAZEIA" bench -m "$2" -p "$prompt" -n "$gen" -d "$depths" -r "$reps" -t "$threads" \
    -ctk "$ctk" -ctv "$ctv" -o csv 2>/dev/null |
    awk -F, -v round="$1" -v model="$(basename "$2")" \
      'NR > 1 { gsub(/ /, "_", $7); print round, "kazeia", model, $7, $8 }' >> "$runs"
}
run_reference() {  # ROUND MODEL
  local args=(-m "$2" -r "$reps" -t "$threads" -d "$depths" -ctk "$ctk" -ctv "$ctv" -o csv)
  # One llama-bench call per test kind: given -p and -n together it also runs their mix.
  local kinds=()
  [ "$prompt" -gt 0 ] && kinds+=("-p $prompt -n 0")
  [ "$gen" -gt 0 ] && kinds+=("-p 0 -n $gen")
  for kind in "${kinds[@]}"; do
    # shellcheck disable=SC2086  # $kind is two flags and their values
    "$REFERENCE/llama-bench" "${args[@]}" $kind 2>/dev/null |
      python3 -c '
import csv, sys
round_, model = sys.argv[1], sys.argv[2]
for row in csv.DictReader(sys.stdin):
    p, n, d = int(row["n_prompt"]), int(row["n_gen"]), int(row["n_depth"])
    test = ("pp%d" % p if p else "tg%d" % n) + ("_@_d%d" % d if d else "")
    print(round_, "reference", model, test, row["avg_ts"])' "$1" "$(basename "$2")" >> "$runs"
  done
}

for ((round = 1; round <= rounds; ++round)); do
  for m in "${models[@]}"; do
    echo "round $round/$rounds: $(basename "$m")" >&2
    if ((round % 2)); then run_kazeia $round "$m"; run_reference $round "$m"
    else run_reference $round "$m"; run_kazeia $round "$m"; fi
  done
done

flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
  grep -E '^(avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512_vnni|avx_vnni|avx512_bf16|amx_tile|amx_int8|amx_bf16|asimd|asimddp|i8mm)$' |
  tr '\n' ' ')
ref_commit=$(git -C "$REFERENCE/../.." rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "bench_compare.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), kazeia $(git -C "$ROOT" rev-parse --short HEAD)," \
  "reference $ref_commit; $(nproc) CPUs ($flags), $threads threads, -r $reps, $rounds rounds," \
  "K/V $ctk/$ctv, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$runs" <<'EOF'
import statistics, sys
from collections import defaultdict
ts = defaultdict(dict)  # (model, test) -> {(engine, round): t/s}
for line in open(sys.argv[1]):
    round_, engine, model, test, value = line.split()
    ts[(model, test.replace("_", " "))][(engine, int(round_))] = float(value)
print("| model | test | kazeia t/s | reference t/s | kazeia / reference | per round |")
print("|---|---|---:|---:|---:|---|")
for (model, test), v in ts.items():
    rounds = sorted({r for _, r in v})
    k = [v[("kazeia", r)] for r in rounds if ("kazeia", r) in v]
    ref = [v[("reference", r)] for r in rounds if ("reference", r) in v]
    ratios = [v[("kazeia", r)] / v[("reference", r)] for r in rounds
              if ("kazeia", r) in v and ("reference", r) in v]
    med = lambda xs: "%.2f" % statistics.median(xs) if xs else "-"
    ratio = "%.2fx" % statistics.median(ratios) if ratios else "-"
    print("| %s | %s | %s | %s | %s | %s |" % (model, test, med(k), med(ref), ratio,
          " ".join("%.2f" % r for r in ratios)))
EOF
