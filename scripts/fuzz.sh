#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan; tests/fuzz) into build-fuzz (or
# $KAZEIA_FUZZ_BUILD) and runs each for SECONDS (default 30): the pre-tokenizer against its PCRE2
# oracle, the GGUF reader (seeds: the fixtures' tokenizer files), the JSON reader, the reply
# parser, state images (mutations of a valid image the target makes itself), the tokenizer and
# the chat renderer on the fixtures' real Qwen tokenizers, the C API on a fixture model, and the
# CLI's flag parser; seeds in tests/fuzz/corpus/NAME. New inputs are kept in the build folder's
# corpus-NAME; a crash, a leak or a violated property fails the script and leaves the input
# beside it.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
fixtures=${KAZEIA_FIXTURES:-../shared/fixtures}
build=${KAZEIA_FUZZ_BUILD:-build-fuzz}

scripts/configure_fuzz.sh "$build"
cmake --build "$build" -j "$(nproc)" --target pretokenizer_fuzz fuzz_gguf json_fuzz \
  reply_parser_fuzz state_image_fuzz tokenizer_fuzz chat_render_fuzz c_api_fuzz cli_args_fuzz

run() {  # NAME SEED_DIR... [libFuzzer flags]
  local name=$1
  shift
  mkdir -p "$build/corpus-$name"
  local t0=$SECONDS log="$build/$name.log" status=0
  (cd "$build" && "tests/$name" -max_total_time="$seconds" -print_final_stats=1 \
    "corpus-$name" "$@") > "$log" 2>&1 || status=$?
  grep -aE "^stat::(number_of_executed_units|peak_rss_mb)" "$log" | sed "s/^/fuzz: $name /" || :
  if [ "$status" -ne 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz: $name failed (exit $status); the log is $log, the input in $build" >&2
    exit 1
  fi
  echo "fuzz: $name ran $((SECONDS - t0)) s, no crash"
}
run pretokenizer_fuzz ../tests/fuzz/corpus/pretokenizer
gguf_seeds=$(realpath -e "$fixtures/vocab")  # a missing folder fails here, not silently below
run fuzz_gguf "$gguf_seeds" -max_len=65536
run json_fuzz ../tests/fuzz/corpus/json
run reply_parser_fuzz ../tests/fuzz/corpus/reply_parser
run state_image_fuzz -max_len=65536
run tokenizer_fuzz ../tests/fuzz/corpus/tokenizer
run chat_render_fuzz ../tests/fuzz/corpus/chat_render
run c_api_fuzz ../tests/fuzz/corpus/c_api
run cli_args_fuzz ../tests/fuzz/corpus/cli_args
