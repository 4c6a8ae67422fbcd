#!/usr/bin/env bash
# compare_quantize.sh [--record]
#
# Compares `kazeia quantize` with the reference quantizer (llama-quantize, built beside the
# repository by ../shared/tools/build-reference.sh) for every mix kazeia offers:
#   1. small float models (the fixtures' F32 files, mkmodel's tiny presets in F16 and BF16):
#      both tools quantize for real; the per-tensor types and the bytes of every tensor must be
#      equal, and the whole files too;
#   2. real shapes (mkmodel qwen3-0.6b, qwen35-0.8b, qwen35-4b in F16): both tools' --dry-run,
#      the per-tensor types must be equal.
# --record also writes the reference's tables of step 2 to tests/data/quantize/PRESET.tsv, which
# tests/quant/recipe_test.cpp replays without the reference.
#
# Environment: KAZEIA (default build/kazeia), REFERENCE (default ../reference/llama.cpp/build/bin),
# WORK (scratch folder for the models, default a temporary one; the real shapes take ~12 GB),
# PRESETS (default "qwen3-0.6b qwen35-0.8b qwen35-4b"), THREADS (default 2).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KAZEIA=${KAZEIA:-$ROOT/build/kazeia}
REFERENCE=${REFERENCE:-$ROOT/../reference/llama.cpp/build/bin}
PRESETS=${PRESETS:-qwen3-0.6b qwen35-0.8b qwen35-4b}
THREADS=${THREADS:-2}
RECORD=0
[ "${1:-}" = --record ] && RECORD=1 && shift
[ $# -eq 0 ] || { echo "usage: $0 [--record]" >&2; exit 2; }

die() { echo "compare_quantize.sh: error: $*" >&2; exit 1; }
[ -x "$KAZEIA" ] || die "no kazeia binary at $KAZEIA (set KAZEIA)"
[ -x "$REFERENCE/llama-quantize" ] || die "no llama-quantize in $REFERENCE (run ../shared/tools/build-reference.sh)"
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
FIXTURES=$ROOT/../shared/fixtures/models

MIXES="Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K_S Q3_K_M Q3_K_L Q4_K_S Q4_K_M Q5_K_S Q5_K_M Q6_K
       IQ4_NL IQ4_XS F16 BF16 lmq4"
# The reference's flags and type for a mix (lmq4 is Q4_0 with both embedding types forced).
ref_flags() { [ "$1" != lmq4 ] || echo "--token-embedding-type q4_0 --output-tensor-type q4_0"; }
ref_type() { if [ "$1" = lmq4 ]; then echo Q4_0; else echo "$1"; fi; }

# gguf_table FILE: "name type nbytes sha1" per tensor, from the file itself (no dependencies).
gguf_table() {
  python3 - "$1" <<'EOF'
import hashlib, struct, sys
BLOCK = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
         10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210),
         20: (32, 18), 23: (256, 136), 30: (1, 2)}
NAMES = {0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 6: "q5_0", 7: "q5_1", 8: "q8_0", 10: "q2_k",
         11: "q3_k", 12: "q4_k", 13: "q5_k", 14: "q6_k", 20: "iq4_nl", 23: "iq4_xs", 30: "bf16"}
data = open(sys.argv[1], "rb").read()
pos = 0
def take(fmt):
    global pos
    v = struct.unpack_from("<" + fmt, data, pos); pos += struct.calcsize("<" + fmt); return v[0]
def string():
    global pos
    n = take("Q"); s = data[pos:pos + n].decode(); pos += n; return s
SCALAR = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}
def value(t):
    if t == 8: return string()
    if t == 9:
        et, n = take("I"), take("Q"); return [value(et) for _ in range(n)]
    return take(SCALAR[t])
assert data[:4] == b"GGUF"; pos = 4
take("I"); n_tensors, n_kv = take("q"), take("q")
align = 32
for _ in range(n_kv):
    k = string(); v = value(take("I"))
    if k == "general.alignment": align = v
infos = []
for _ in range(n_tensors):
    name = string(); ne = [take("q") for _ in range(take("I"))]; t = take("i"); off = take("Q")
    infos.append((name, ne, t, off))
base = (pos + align - 1) // align * align
for name, ne, t, off in infos:
    bs, bb = BLOCK[t]; n = ne[0] // bs * bb
    for d in ne[1:]: n *= d
    print(name, NAMES[t], n, hashlib.sha1(data[base + off:base + off + n]).hexdigest())
EOF
}

# ref_types LOG: "name type" per tensor from llama-quantize --dry-run's log.
ref_types() {
  sed -n 's/^\[ *[0-9]*\/ *[0-9]*\] *\([^ ]*\) *- \[.*\], type = *\([a-zA-Z0-9_]*\), size = .*/\1 \2 &/p' "$1" |
    awk '{ t = $2; if (match($0, /\(([a-zA-Z0-9_]+)\)$/)) t = substr($0, RSTART + 1, RLENGTH - 2); print $1, tolower(t) }'
}

failures=0
report() { echo "$1"; [ "${1#ok}" != "$1" ] || failures=$((failures + 1)); }

# --- 1. small models: real quantization, bytes compared --------------------------------------
small=("$FIXTURES/qwen3-tiny-f32.gguf" "$FIXTURES/qwen35-tiny-f32.gguf")
for preset in qwen3-tiny qwen35-tiny; do
  for type in f16 bf16; do
    f=$WORK/$preset-$type.gguf
    [ -s "$f" ] || "$KAZEIA" mkmodel --preset "$preset" --type "$type" -o "$f" 2>/dev/null
    small+=("$f")
  done
done
for in in "${small[@]}"; do
  for mix in $MIXES; do
    ref=$WORK/ref.gguf ours=$WORK/ours.gguf
    # shellcheck disable=SC2046
    "$REFERENCE/llama-quantize" $(ref_flags "$mix") "$in" "$ref" "$(ref_type "$mix")" "$THREADS" \
      > "$WORK/ref.log" 2>&1 ||
      { report "FAIL $(basename "$in") $mix: llama-quantize failed (see $WORK/ref.log)"; continue; }
    "$KAZEIA" quantize -t "$THREADS" "$in" "$ours" "$mix" 2> "$WORK/ours.log" ||
      { report "FAIL $(basename "$in") $mix: kazeia quantize failed: $(tail -n1 "$WORK/ours.log")"; continue; }
    if diff <(gguf_table "$ref" | sort) <(gguf_table "$ours" | sort) > "$WORK/diff.txt"; then
      if cmp -s "$ref" "$ours"; then report "ok   $(basename "$in") $mix: identical files"
      else report "ok   $(basename "$in") $mix: identical tensors, files differ outside them"; fi
    else
      report "FAIL $(basename "$in") $mix: tensors differ (< reference, > kazeia):"
      grep '^[<>]' "$WORK/diff.txt" | head -n 8
    fi
  done
done

# --- 2. real shapes: type tables from both tools' dry runs -------------------------------------
commit=$(git -C "$REFERENCE/../.." rev-parse --short HEAD 2>/dev/null || echo unknown)
for preset in $PRESETS; do
  in=$WORK/$preset-f16.gguf
  [ -s "$in" ] || nice -n 19 "$KAZEIA" mkmodel --preset "$preset" --type f16 -o "$in" 2>/dev/null
  arch=$("$KAZEIA" inspect --no-tensors "$in" | awk '$1 == "general.architecture" { gsub(/"/, "", $3); print $3 }')
  meta() { "$KAZEIA" inspect --no-tensors "$in" | awk -v k="$arch.$1" '$1 == k { print $3 }'; }
  table=$WORK/$preset.tsv
  "$KAZEIA" quantize --dry-run "$in" Q8_0 > "$WORK/plan.txt"
  # name shape input, in the reference's order (that of kazeia's table)
  awk 'NR > 1 && $3 == "->" { s = $0; sub(/^[^{]*\{/, "", s); sub(/\}.*/, "", s); gsub(/, /, "x", s); print $1, s, $2 }' \
    "$WORK/plan.txt" > "$table.rows"
  header="tensor shape input"
  for mix in $MIXES; do
    # shellcheck disable=SC2046
    "$REFERENCE/llama-quantize" --dry-run $(ref_flags "$mix") "$in" "$(ref_type "$mix")" \
      > "$WORK/ref.log" 2>&1 ||
      { report "FAIL $preset $mix: llama-quantize --dry-run failed (see $WORK/ref.log)"; continue; }
    ref_types "$WORK/ref.log" > "$WORK/ref.types"
    "$KAZEIA" quantize --dry-run "$in" "$mix" | awk 'NR > 1 && $3 == "->" { print $1, $4 }' > "$WORK/ours.types"
    if diff <(sort "$WORK/ref.types") <(sort "$WORK/ours.types") > "$WORK/diff.txt"; then
      report "ok   $preset $mix: same type for all $(wc -l < "$WORK/ours.types") tensors"
    else
      report "FAIL $preset $mix: types differ (< reference, > kazeia):"
      grep '^[<>]' "$WORK/diff.txt" | head -n 8
    fi
    header="$header $mix"
    awk 'NR == FNR { t[$1] = $2; next } { print $0, t[$1] }' "$WORK/ref.types" "$table.rows" > "$table.tmp"
    mv "$table.tmp" "$table.rows"
  done
  if [ "$RECORD" = 1 ]; then
    out=$ROOT/tests/data/quantize/$preset.tsv
    mkdir -p "$(dirname "$out")"
    {
      echo "# The reference quantizer's type for each tensor and mix, recorded by"
      echo "# scripts/compare_quantize.sh --record: llama-quantize --dry-run IN TYPE (lmq4: Q4_0 with"
      echo "# --token-embedding-type q4_0 --output-tensor-type q4_0), llama.cpp $commit, on"
      echo "# IN = kazeia mkmodel --preset $preset --type f16. Replayed by tests/quant/recipe_test.cpp."
      echo "model $(meta block_count) $(meta attention.head_count) $(meta attention.head_count_kv)"
      echo "$header"
      cat "$table.rows"
    } > "$out"
    echo "recorded $out"
  fi
done

echo "compare_quantize.sh: $failures failure(s)"
[ "$failures" = 0 ]
