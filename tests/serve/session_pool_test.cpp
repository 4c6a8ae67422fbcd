// Which session a request continues, and the bounded wait queue (no sockets).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "serve/session_pool.h"
#include "testing/reference_logits.h"

namespace kz::serve {
namespace {

using Tokens = std::vector<int32_t>;

size_t choose(const std::vector<std::pair<Tokens, uint64_t>>& slots, const Tokens& prompt) {
  std::vector<SlotView> views;
  for (const auto& [tokens, used] : slots) views.push_back({tokens, used});
  return choose_slot(views, prompt);
}

TEST(ServeSessionChoice, LongestCommonPrefixWins) {
  const Tokens prompt = {1, 2, 3, 4, 5, 6};
  // Held: a different conversation, a shorter turn of this one, this one's previous turn plus its
  // answer (which the new prompt rewrites from token 5 on).
  EXPECT_EQ(choose({{{9, 9, 9}, 1}, {{1, 2}, 2}, {{1, 2, 3, 4, 7, 8}, 3}}, prompt), 2u);
  EXPECT_EQ(choose({{{1, 2, 3, 4, 5, 6, 7}, 1}, {{1, 2, 3}, 2}}, prompt), 0u);
}

TEST(ServeSessionChoice, TiesGoToTheLeastRecentlyUsed) {
  const Tokens prompt = {1, 2, 3};
  EXPECT_EQ(choose({{{7}, 5}, {{}, 2}, {{8, 8}, 9}}, prompt), 1u);  // no shared prefix anywhere
  EXPECT_EQ(choose({{{1, 5}, 5}, {{1, 6}, 3}}, prompt), 1u);        // one token each
}

class ServeSessionPool : public ::testing::Test {
 protected:
  static std::unique_ptr<SessionPool> pool(size_t sessions, size_t queue,
                                           std::chrono::milliseconds timeout) {
    static const auto engine = Engine::load(kz::testing::model_path("qwen3-tiny-q8_0"));
    SessionParams sp;
    sp.n_ctx = 64;
    sp.n_threads = 1;
    std::vector<std::unique_ptr<Session>> s;
    for (size_t i = 0; i < sessions; ++i) s.push_back(std::make_unique<Session>(engine, sp));
    return std::make_unique<SessionPool>(std::move(s), queue, timeout);
  }
  static GenerateParams greedy(int max_tokens) {
    GenerateParams p;
    p.sampling.temperature = 0;
    p.max_tokens = max_tokens;
    return p;
  }
};

TEST_F(ServeSessionPool, ARequestContinuesTheSessionHoldingItsPrefix) {
  auto p = pool(2, 0, std::chrono::milliseconds(0));
  const Tokens a = {10, 11, 12, 13}, b = {20, 21, 22, 23};
  size_t slot_a, slot_b;
  {
    SessionPool::Lease la = p->acquire(a);
    SessionPool::Lease lb = p->acquire(b);
    slot_a = la.slot();
    slot_b = lb.slot();
    EXPECT_NE(slot_a, slot_b);
    la.session().generate_tokens(a, greedy(2));
    lb.session().generate_tokens(b, greedy(2));
  }
  // Each conversation grows; each goes back to its own session and reuses what it computed.
  for (const auto& [prompt, slot] : {std::pair{b, slot_b}, std::pair{a, slot_a}}) {
    Tokens longer = prompt;
    longer.push_back(30);
    SessionPool::Lease l = p->acquire(longer);
    EXPECT_EQ(l.slot(), slot);
    EXPECT_EQ(l.session().generate_tokens(longer, greedy(1)).cached_tokens, int64_t(prompt.size()));
  }
}

TEST_F(ServeSessionPool, FullQueueIsRefusedAtOnce) {
  auto p = pool(1, 0, std::chrono::hours(1));
  SessionPool::Lease held = p->acquire(Tokens{1});
  EXPECT_THROW(p->acquire(Tokens{1}), ServerBusy);
  EXPECT_EQ(p->stats().busy, 1u);
  EXPECT_EQ(p->stats().waiting, 0u);
}

TEST_F(ServeSessionPool, WaitTimesOut) {
  auto p = pool(1, 1, std::chrono::milliseconds(10));
  SessionPool::Lease held = p->acquire(Tokens{1});
  EXPECT_THROW(p->acquire(Tokens{1}), ServerBusy);
  EXPECT_EQ(p->stats().waiting, 0u);  // the timed-out request left the queue
}

TEST_F(ServeSessionPool, WaitersAreServedInOrderWhenASessionFrees) {
  auto p = pool(1, 2, std::chrono::hours(1));
  std::optional<SessionPool::Lease> held(p->acquire(Tokens{1}));
  std::vector<int> order;
  std::mutex order_mutex;
  auto waiter = [&](int id) {
    SessionPool::Lease l = p->acquire(Tokens{1});
    std::lock_guard lock(order_mutex);
    order.push_back(id);
  };
  std::thread first(waiter, 1);
  while (p->stats().waiting < 1) std::this_thread::yield();
  std::thread second(waiter, 2);
  while (p->stats().waiting < 2) std::this_thread::yield();
  EXPECT_THROW(p->acquire(Tokens{1}), ServerBusy);  // the queue holds two
  held.reset();
  first.join();
  second.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(p->stats().busy, 0u);
}

TEST_F(ServeSessionPool, ShutdownWakesWaitersAndRefusesNewRequests) {
  auto p = pool(1, 1, std::chrono::hours(1));
  SessionPool::Lease held = p->acquire(Tokens{1});
  std::atomic<bool> refused{false};
  std::thread waiter([&] {
    try {
      p->acquire(Tokens{1});
    } catch (const ServerBusy&) {
      refused = true;
    }
  });
  while (p->stats().waiting < 1) std::this_thread::yield();
  p->shutdown();
  waiter.join();
  EXPECT_TRUE(refused);
  EXPECT_THROW(p->acquire(Tokens{1}), ServerBusy);
}

// A waiter whose client left gives up its place: the one behind it is first when a session frees.
TEST_F(ServeSessionPool, AWaiterWhoseClientLeftLeavesTheQueue) {
  auto p = pool(1, 2, std::chrono::hours(1));
  std::optional<SessionPool::Lease> held(p->acquire(Tokens{1}));
  std::atomic<bool> gone{false}, left{false};
  std::thread leaving([&] {
    try {
      p->acquire(Tokens{1}, [&] { return gone.load(); });
    } catch (const ClientGone&) {
      left = true;
    }
  });
  while (p->stats().waiting < 1) std::this_thread::yield();
  std::atomic<bool> served{false};
  std::thread staying([&] {
    SessionPool::Lease l = p->acquire(Tokens{1}, [] { return false; });
    served = true;
  });
  while (p->stats().waiting < 2) std::this_thread::yield();
  gone = true;
  leaving.join();  // the session is still held: only its client's leaving ends this wait
  EXPECT_TRUE(left);
  EXPECT_EQ(p->stats().waiting, 1u);
  EXPECT_FALSE(served);
  held.reset();
  staying.join();
  EXPECT_TRUE(served);
  EXPECT_EQ(p->stats().waiting, 0u);
}

}  // namespace
}  // namespace kz::serve
