// Pieces of `kazeia bench`: statistics over repetitions, the memory-bandwidth probe and the
// multi-turn conversation replay.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/engine.h"
#include "text/json.h"

namespace kz::cli {

struct Stat {
  double mean = 0, sd = 0;
};

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

inline Stat stat_of(const std::vector<double>& v) {
  Stat s;
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= double(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(s.sd / double(v.size() - 1)) : 0.0;
  return s;
}

// The read bandwidth of this machine: the best of 5 passes over a buffer far larger than the
// caches, in bytes per second. The buffer is made once and stays resident (bytes()), so that
// a peak RSS measured while probing can leave it out exactly.
class BandwidthProbe {
 public:
  BandwidthProbe();
  double measure(int n_threads) const;
  size_t bytes() const { return buf_.size() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> buf_;  // 256 MiB
};

struct ChatReplayResult {
  std::vector<int64_t> prompt_tokens;    // per turn
  std::vector<double> ttft_reuse_s;      // per turn, with prefix reuse
  std::vector<double> ttft_recompute_s;  // per turn, recomputing the whole history
  // per turn, the tokens the reuse run computed, as a prompt of their own in an empty session
  std::vector<double> ttft_alone_s;
  // per turn, the same tokens after the same cached prefix, in a session that holds just that
  // prefix (computed first, untimed) and has its checkpoint buffers: their prefill at their
  // depth, without the reuse path's checkpoint restore and message-boundary checkpoints
  std::vector<double> ttft_at_depth_s;
  std::vector<int64_t> cached_tokens;  // per turn, with reuse
};

// Replays a conversation of `turns` user messages of about `tokens_per_turn` tokens each (with
// short generated answers), once with prefix reuse and once recomputing every turn; and the
// new tokens of each turn alone, at position 0 and at their depth: the bounds that reuse
// approaches.
// `sp` chooses the devices and threads; its context size is set here.
ChatReplayResult replay_chat(const std::string& model_path, int turns, int tokens_per_turn,
                             SessionParams sp);

// One model's -r replays, reported per turn as medians over the replays (and the median of each
// replay's own ratios: the load of a shared machine falls on both sides): a Markdown table, or
// one JSON row per turn (test "chat") for bench -o json.
struct ChatBench {
  std::string model;  // the file's name
  int turns = 0, tokens_per_turn = 0;
  std::vector<ChatReplayResult> runs;
};
void print_chat_table(const ChatBench& c);
std::vector<Json> chat_json_rows(const ChatBench& c);

// kazeia bench --spec: plain greedy decoding and speculative decoding side by side, alternating,
// `reps` runs each of n_gen tokens after a prompt of n_prompt tokens (end-of-turn ignored).
// Replay drafts the plain run's own tokens (full acceptance): the cost of verification itself.
struct SpeculativeBenchResult {
  Stat plain_tok_s, spec_tok_s;  // decode speed
  SpeculativeStats stats;        // summed over the speculative runs
  double pass_cost = 0;  // median time of a verification pass / median time of a plain token
};
SpeculativeBenchResult bench_speculative(const std::string& model_path, SessionParams sp,
                                         SpeculativeParams spec, int n_prompt, int n_gen, int reps);

// One model's --spec result: a row of a Markdown table (after print_speculative_header), or a
// JSON row (test "spec") for bench -o json.
struct SpeculativeBench {
  std::string model, source;  // the file's name; --spec
  int draft = 0, n_prompt = 0, n_gen = 0;
  SpeculativeBenchResult result;
};
void print_speculative_header(const SpeculativeBench& s);
void print_speculative_row(const SpeculativeBench& s);
Json speculative_json_row(const SpeculativeBench& s);

// kazeia bench --configs: A = CPU only, B = `device` for everything (with the op filter),
// C = prefill on `device`, decode on the CPU; each in a child process (its own peak RSS), with
// `args` (the bench's own flags) and the configuration's flags after them.
struct BenchConfigArgs {
  std::string configs;    // "A,B,C"
  std::string device;     // the accelerator of B and C
  std::string op_filter;  // empty: auto
  std::vector<std::string> args;
};
int run_bench_configs(const BenchConfigArgs& a);

}  // namespace kz::cli
