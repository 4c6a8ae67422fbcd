// Soak: a long conversation through the Session API, as an app holds one for hours. Each call
// passes the whole history; between calls the history grows, is edited at an earlier message,
// loses its last turns, or is answered again, and the session's state is saved and restored now
// and then. The history outgrows the context, so the oldest turns are dropped
// (ContextOverflow::DropOldestTurns). It samples memory 100 times and checks that after the
// warm-up the heap in use and the RSS (after free heap pages are returned to the system) grow by
// less than 1 % over their warm-up peaks, that checkpoint memory stays within its budget, and that
// prefix reuse holds (a regenerated answer recomputes one token). Nothing depends on timing: the
// times printed are for the reader. docs/reliability.md, "Soak", has the figures.
//
// kazeia_soak MODEL [--tokens N] [--warmup N] [--threads N] [--ctx N] [--budget BYTES]
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "api/engine.h"
#include "base/error.h"
#include "base/timer.h"
#include "testing/sanitizers.h"

namespace kz {
namespace {

constexpr bool kAsan = testing::kAddressSanitizer;

struct Options {
  std::string model;
  int64_t tokens = 100000;
  int64_t warmup = -1;  // tokens; -1: a fifth of them
  int threads = 1;
  int64_t ctx = 512;
  uint64_t budget = 256 << 10;
};

Options parse(int argc, char** argv) {
  if (argc < 2)
    fail("usage: kazeia_soak MODEL [--tokens N] [--warmup N] [--threads N] [--ctx N] [--budget B]");
  Options o;
  o.model = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long value = std::atoll(argv[i + 1]);
    if (value <= 0) fail("invalid value '", argv[i + 1], "' for ", flag);
    if (flag == "--tokens")
      o.tokens = value;
    else if (flag == "--warmup")
      o.warmup = value;
    else if (flag == "--threads")
      o.threads = int(value);
    else if (flag == "--ctx")
      o.ctx = value;
    else if (flag == "--budget")
      o.budget = uint64_t(value);
    else
      fail("unknown flag '", flag, "'");
  }
  if (o.warmup < 0) o.warmup = o.tokens / 5;
  return o;
}

// Resident bytes (/proc/self/statm). Sampled after malloc_trim, which returns glibc's free heap
// pages: what the process holds, not what the allocator keeps from earlier peaks.
uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

// Bytes the allocator has handed out and not taken back: flat when nothing leaks, whatever the
// RSS does (0 under ASan, whose allocator glibc does not see).
uint64_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

double mib(uint64_t bytes) {
  return double(bytes) / (1 << 20);
}

// The user's side: short messages in the chat model's languages, picked at random.
const char* const kPhrases[] = {
    "Bonjour, je m'appelle Marie et j'ai 34 ans.",
    "Hello, my name is Tom and I am 27.",
    "Il fait beau aujourd'hui.",
    "I live in Lyon.",
    "Tu te rappelles mon prénom ?",
    "What is my age?",
    "J'ai un chat qui s'appelle Pixel.",
    "My favourite number is 7.",
    "Où est-ce que j'habite ?",
    "Do you remember my pet?",
};

// The soak's messages carry a role and a text only.
bool same_roles_and_texts(const std::vector<ChatMessage>& a, const std::vector<ChatMessage>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.role == y.role && x.content == y.content;
  });
}

// A measure's peak during the warm-up and after it.
struct Peaks {
  uint64_t warm = 0, after = 0, last = 0;
  void add(uint64_t value, bool after_warmup) {
    last = value;
    uint64_t& peak = after_warmup ? after : warm;
    peak = std::max(peak, value);
  }
  double growth() const { return warm > 0 ? 100.0 * (double(after) - double(warm)) / warm : 0; }
};

enum class Move { Append, Regenerate, EditEarlier, DropLast, SaveAndLoad };

Move pick_move(std::mt19937& rng) {
  const int r = int(rng() % 100);
  if (r < 60) return Move::Append;
  if (r < 75) return Move::Regenerate;
  if (r < 85) return Move::EditEarlier;
  if (r < 95) return Move::DropLast;
  return Move::SaveAndLoad;
}

int run(const Options& o) {
  const auto engine = Engine::load(o.model);
  SessionParams sp;
  sp.n_ctx = o.ctx;
  sp.n_threads = o.threads;
  sp.checkpoint_budget_bytes = o.budget;
  sp.checkpoint_interval = 64;
  sp.context_overflow = ContextOverflow::DropOldestTurns;
  Session session(engine, sp);

  GenerateParams gp;
  gp.max_tokens = 48;
  gp.sampling.temperature = 0.8f;
  std::mt19937 rng(1234);
  const size_t kMaxHistory = 64;  // the app keeps a bounded history; the engine drops more
  std::vector<ChatMessage> history = {{"system", "Tu es un assistant bref.", ""}};
  std::vector<ChatMessage> last_call;  // the history of the last generate call

  int64_t generated = 0, calls = 0, dropped_calls = 0, failures = 0, longest_prefill = 0;
  int64_t moves[5] = {};
  const int64_t sample_every = std::max<int64_t>(o.tokens / 100, 1);
  int64_t next_sample = sample_every, samples = 0;
  Peaks rss, heap;  // trimmed RSS and heap in use: during the warm-up and after it
  uint64_t raw_rss = 0, max_checkpoints = 0;
  Timer timer;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "soak: FAILED after %lld calls: %s\n", (long long)calls, what.c_str());
      ++failures;
    }
  };
  auto answer = [&](uint64_t seed) {
    gp.sampling.seed = seed;
    GenerateResult r = session.generate(history, gp);
    last_call = history;
    ++calls;
    generated += int64_t(r.tokens.size());
    dropped_calls += r.dropped_messages > 0;
    longest_prefill = std::max(longest_prefill, r.prefill_tokens);
    max_checkpoints = std::max(max_checkpoints, session.checkpoint_bytes());
    check(session.checkpoint_bytes() <= o.budget,
          cat("checkpoints hold ", session.checkpoint_bytes(), " bytes, over the budget"));
    return r;
  };

  std::printf("soak: %s, %lld tokens, context %lld, checkpoint budget %llu bytes, %d thread(s)\n",
              o.model.c_str(), (long long)o.tokens, (long long)o.ctx, (unsigned long long)o.budget,
              o.threads);
  while (generated < o.tokens && failures == 0) {
    const bool answered = history.back().role == "assistant";
    Move move = answered ? pick_move(rng) : Move::Append;
    if (history.size() < 6 && move != Move::Append) move = Move::Append;
    ++moves[int(move)];
    switch (move) {
      case Move::Append: {
        if (answered || history.size() == 1)
          history.push_back({"user", kPhrases[rng() % std::size(kPhrases)], ""});
        const GenerateResult r = answer(rng());
        history.push_back({"assistant", r.text, ""});
        break;
      }
      case Move::Regenerate: {  // the last answer again: all but one prompt token is reused
        history.pop_back();
        const bool same = same_roles_and_texts(history, last_call);
        const GenerateResult r = answer(rng());
        if (same)
          check(r.cached_tokens == r.prompt_tokens - 1,
                cat("a regenerated answer reused ", r.cached_tokens, " of ", r.prompt_tokens,
                    " tokens"));
        history.push_back({"assistant", r.text, ""});
        break;
      }
      case Move::EditEarlier: {  // a user message changed: the rest is thrown away
        size_t at = 1 + rng() % (history.size() - 1);
        while (history[at].role != "user") --at;
        history[at].content = kPhrases[rng() % std::size(kPhrases)];
        history.resize(at + 1);
        const GenerateResult r = answer(rng());
        history.push_back({"assistant", r.text, ""});
        break;
      }
      case Move::DropLast:  // the last two turns undone; the next move answers again
        history.resize(history.size() - 4);
        if (history.back().role == "assistant") history.pop_back();
        break;
      case Move::SaveAndLoad: {
        const std::vector<uint8_t> image = session.save_state();
        const size_t held = session.tokens().size();
        session.load_state(image);
        check(session.tokens().size() == held, "a restored state holds other tokens");
        break;
      }
    }
    if (history.size() > kMaxHistory) history.erase(history.begin() + 1, history.begin() + 3);
    if (generated < next_sample) continue;
    next_sample += sample_every;
    const bool warm = generated >= o.warmup;
    const uint64_t raw = resident_bytes();
    raw_rss = std::max(raw_rss, raw);
    malloc_trim(0);
    rss.add(resident_bytes(), warm);
    heap.add(heap_in_use(), warm);
    if (++samples % 10 == 0) {
      std::printf(
          "soak: %7lld tokens, %6lld calls, RSS %.2f MiB (%.2f MiB before trimming), heap in use "
          "%.2f MiB, longest prefill %lld, checkpoints %llu bytes, %.1f s\n",
          (long long)generated, (long long)calls, mib(rss.last), mib(raw), mib(heap.last),
          (long long)longest_prefill, (unsigned long long)session.checkpoint_bytes(),
          timer.seconds());
      std::fflush(stdout);
    }
  }
  std::printf(
      "soak: done: %lld tokens in %lld calls (%lld appended, %lld regenerated, %lld edited, %lld "
      "drops of the last turns, %lld state round trips; %lld calls dropped old turns to fit), "
      "%.1f s\n",
      (long long)generated, (long long)calls, (long long)moves[0], (long long)moves[1],
      (long long)moves[2], (long long)moves[3], (long long)moves[4], (long long)dropped_calls,
      timer.seconds());
  std::printf(
      "soak: peaks during the warm-up (first %lld tokens) and after: RSS %.2f -> %.2f MiB "
      "(%+.3f %%), heap in use %.3f -> %.3f MiB (%+.3f %%); raw RSS peak %.2f MiB; checkpoints "
      "at most %llu of %llu bytes\n",
      (long long)o.warmup, mib(rss.warm), mib(rss.after), rss.growth(), mib(heap.warm),
      mib(heap.after), heap.growth(), mib(raw_rss), (unsigned long long)max_checkpoints,
      (unsigned long long)o.budget);
  check(dropped_calls > 0, "the history never outgrew the context");
  if (o.warmup >= o.tokens) {
    std::printf("soak: no growth check: the run is not longer than its warm-up\n");
  } else {
    check(heap.growth() < 1.0, cat("the heap in use grew by ", heap.growth(), " % after warm-up"));
    // ASan's quarantine keeps freed memory resident by design: its leak checker is the check.
    if (kAsan)
      std::printf("soak: under ASan, the RSS growth is reported, not checked\n");
    else
      check(rss.growth() < 1.0, cat("RSS grew by ", rss.growth(), " % after the warm-up"));
  }
  if (failures) return 1;
  std::printf("soak: passed\n");
  return 0;
}

}  // namespace
}  // namespace kz

int main(int argc, char** argv) {
  try {
    return kz::run(kz::parse(argc, argv));
  } catch (const kz::Error& e) {
    std::fprintf(stderr, "soak: %s\n", e.what());
    return 1;
  }
}
