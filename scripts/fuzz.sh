#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan; tests/fuzz) into build-fuzz (or
# $KAZEIA_FUZZ_BUILD) and runs each for SECONDS (default 30): the pre-tokenizer against its PCRE2
# oracle, the GGUF reader (seeds: the fixtures' tokenizer files), the JSON reader, the reply
# parser, state images (mutations of a valid image the target makes itself), the tokenizer and
# the chat renderer on the fixtures' real Qwen tokenizers, the C API on a fixture model, and the
# CLI's flag parser; seeds in tests/fuzz/corpus/NAME. New inputs are kept in the build folder's
# corpus-NAME; a crash, a leak or a violated property fails the script and leaves the input
# beside it.
# With --cpu, SECONDS are CPU seconds of each target's process rather than wall-clock seconds:
# the long campaigns (docs/reliability.md) then do the same work however busy the machine is; the
# target is stopped with SIGINT once it has spent them (libFuzzer then exits 72 with its stats).
# Targets run side by side, one per CPU (KAZEIA_FUZZ_JOBS to choose), each on one thread.
# Usage: scripts/fuzz.sh [--cpu] [SECONDS] [TARGET...]   (all nine targets by default)
set -euo pipefail
cd "$(dirname "$0")/.."
cpu_time=0
if [ "${1:-}" = --cpu ]; then cpu_time=1; shift; fi
seconds=${1:-30}
[ $# -gt 0 ] && shift
case $seconds in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a number, not '$seconds'" >&2; exit 2 ;; esac
all_targets="pretokenizer_fuzz fuzz_gguf json_fuzz reply_parser_fuzz state_image_fuzz \
  tokenizer_fuzz chat_render_fuzz c_api_fuzz cli_args_fuzz"
targets=${*:-$all_targets}
for t in $targets; do
  case " $all_targets " in *" $t "*) ;; *) echo "fuzz.sh: unknown target '$t'" >&2; exit 2 ;; esac
done
fixtures=${KAZEIA_FIXTURES:-../shared/fixtures}
build=${KAZEIA_FUZZ_BUILD:-build-fuzz}
jobs=${KAZEIA_FUZZ_JOBS:-$(nproc)}
case $jobs in '' | *[!0-9]* | 0) echo "fuzz.sh: KAZEIA_FUZZ_JOBS must be a positive number" >&2; exit 2 ;; esac

scripts/configure_fuzz.sh "$build"
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $targets

cpu_seconds_of() {  # PID: user + system CPU seconds so far
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print int(($12 + $13) / hz) }' \
    "/proc/$1/stat" 2> /dev/null || echo 0
}

run_one() {  # NAME SEED_DIR... [libFuzzer flags]
  local name=$1
  shift
  mkdir -p "$build/corpus-$name"
  local t0=$SECONDS log="$build/$name.log" status=0
  if [ "$cpu_time" = 1 ]; then
    (cd "$build" && exec "tests/$name" -print_final_stats=1 "corpus-$name" "$@") > "$log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2> /dev/null && [ "$(cpu_seconds_of "$pid")" -lt "$seconds" ]; do
      sleep 5
    done
    kill -INT "$pid" 2> /dev/null || :
    wait "$pid" || status=$?
    [ "$status" -eq 72 ] && status=0  # stopped by the SIGINT above
  else
    (cd "$build" && "tests/$name" -max_total_time="$seconds" -print_final_stats=1 \
      "corpus-$name" "$@") > "$log" 2>&1 || status=$?
  fi
  grep -aE "^stat::(number_of_executed_units|peak_rss_mb)" "$log" | sed "s/^/fuzz: $name /" || :
  grep -aE "^#[0-9]+.*cov: " "$log" | tail -1 | sed "s/^/fuzz: $name last: /" || :
  if [ "$status" -ne 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz: $name failed (exit $status); the log is $log, the input in $build" >&2
    return 1
  fi
  echo "fuzz: $name ran $((SECONDS - t0)) s, no crash"
}

failed=0
wait_one() {  # waits for a background target; returns 1 when none is left
  local status=0
  wait -n || status=$?
  [ "$status" -eq 127 ] && return 1  # no child left
  [ "$status" -eq 0 ] || failed=1
}
run() {  # NAME ...: run_one in the background once fewer than $jobs targets are running
  case " $targets " in *" $1 "*) ;; *) return 0 ;; esac
  while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait_one; done
  run_one "$@" &
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
while wait_one; do :; done
[ "$failed" = 0 ] || { echo "fuzz: a target failed (above)" >&2; exit 1; }
