// The pre-tokenizer on 1 MiB of mixed text (English, French, Chinese, Arabic, code, emoji,
// numbers), qwen2 and qwen35: the hand-written matcher (text/pretokenizer.h) and, when the tests
// are built, the PCRE2 JIT regexes it replaced (tests/testing/pcre2_pretokenizer.h, the tests'
// oracle). Bytes/s of input; `pieces` must be the same for both.
#include <benchmark/benchmark.h>

#include <string>

#include "text/pretokenizer.h"
#ifdef KAZEIA_BENCH_PCRE2
#include "testing/pcre2_pretokenizer.h"
#endif

namespace kz::bench {
namespace {

const std::string& mixed_text() {
  static const std::string text = [] {
    const char* const parts[] = {
        "The quick brown fox jumps over the lazy dog. It's 2024 and we'll see what they've "
        "done.\n",
        "Le cœur a ses raisons que la raison ne connaît point. L'été dernier, j'ai visité "
        "Paris.\n",
        "人工智能正在改变我们的生活方式。今天天气很好，我们去公园散步吧！\n",
        "مرحبا بالعالم! الذكاء الاصطناعي يغيّر حياتنا اليومية، العدد ١٢٣٤٥.\n",
        "for (int i = 0; i < n; ++i) {\n    sum += a[i] * b[i];  // dot product\n}\n\n",
        "Great job! 🎉👍🏽 Let's celebrate 🥳❤️ with friends 👨‍👩‍👧.\n",
        "Invoice #48213: 3 items × $19.99 = $59.97 (tax 8.25%) due 2024-06-30.\n",
    };
    std::string t;
    for (size_t i = 0; t.size() < (size_t{1} << 20); ++i) t += parts[i % std::size(parts)];
    return t;
  }();
  return text;
}

PreTokenizerKind kind_of(const benchmark::State& st) {
  return st.range(0) ? PreTokenizerKind::kQwen35 : PreTokenizerKind::kQwen2;
}

template <typename Splitter>
void split_mixed_text(benchmark::State& st, const Splitter& splitter) {
  const std::string& text = mixed_text();
  size_t pieces = 0;
  for (auto _ : st) {
    const std::vector<size_t> ends = splitter.split(text);
    pieces = ends.size();
    benchmark::DoNotOptimize(ends.data());
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(text.size()));
  st.counters["pieces"] = double(pieces);
}

void BM_PreTokenizer(benchmark::State& st) {
  split_mixed_text(st, PreTokenizer(kind_of(st)));
}
BENCHMARK(BM_PreTokenizer)->Arg(0)->Arg(1)->ArgName("qwen35")->Unit(benchmark::kMillisecond);

#ifdef KAZEIA_BENCH_PCRE2
void BM_PreTokenizerPcre2(benchmark::State& st) {
  split_mixed_text(st, testing::pcre2_pretokenizer(kind_of(st)));
}
BENCHMARK(BM_PreTokenizerPcre2)->Arg(0)->Arg(1)->ArgName("qwen35")->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace kz::bench
