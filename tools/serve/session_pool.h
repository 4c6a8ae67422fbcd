// The server's sessions (--parallel N) and its bounded wait queue. Each session keeps the tokens of
// its last conversation; a request goes to the free session sharing the longest prefix with its
// prompt, so a client that resends a growing history continues where its previous call ended.
// Requests that find every session busy wait in FIFO order, at most `queue_capacity` of them and
// for at most `queue_timeout`; beyond that they are refused (ServerBusy, HTTP 503).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <vector>

#include "api/engine.h"

namespace kz::serve {

// What the choice sees of a free session.
struct SlotView {
  std::span<const int32_t> tokens;  // what the session holds
  uint64_t last_used = 0;           // a counter: larger is more recent
};

// The index in `free_slots` of the session to continue: the longest common prefix with `prompt`,
// ties (no shared prefix at all, in particular) going to the least recently used, which keeps the
// other conversations' caches. free_slots must not be empty.
size_t choose_slot(std::span<const SlotView> free_slots, std::span<const int32_t> prompt);

class ServerBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The client of a waiting request closed its connection: the request left the queue.
class ClientGone : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SessionPool {
 public:
  SessionPool(std::vector<std::unique_ptr<Session>> sessions, size_t queue_capacity,
              std::chrono::milliseconds queue_timeout);

  // Holds one session; gives it back when destroyed.
  class Lease {
   public:
    Lease(SessionPool& pool, size_t slot) : pool_(&pool), slot_(slot) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), slot_(other.slot_) {
      other.pool_ = nullptr;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Session& session() const;
    size_t slot() const { return slot_; }

   private:
    SessionPool* pool_;
    size_t slot_;
  };

  // A free session for this prompt, waiting in the queue if none is; throws ServerBusy when the
  // queue is full, the wait times out or the pool is shutting down. While it waits it asks
  // `client_gone` every kGoneCheckInterval and leaves the queue (ClientGone) when it says so.
  Lease acquire(std::span<const int32_t> prompt,
                const std::function<bool()>& client_gone = nullptr);
  static constexpr std::chrono::milliseconds kGoneCheckInterval{50};

  struct Stats {
    size_t sessions = 0, busy = 0, waiting = 0;
  };
  Stats stats() const;

  // Refuses new requests, wakes the waiting ones (ServerBusy) and cancels running generations.
  void shutdown();

 private:
  struct Slot {
    std::unique_ptr<Session> session;
    bool busy = false;
    uint64_t last_used = 0;
  };

  void release(size_t slot);
  size_t take_best_free(std::span<const int32_t> prompt);  // mutex_ held
  size_t free_count() const;                               // mutex_ held

  std::vector<Slot> slots_;
  const size_t queue_capacity_;
  const std::chrono::milliseconds queue_timeout_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::deque<uint64_t> waiting_;  // tickets, oldest first
  uint64_t next_ticket_ = 0;
  uint64_t use_counter_ = 0;
  bool stopping_ = false;
};

}  // namespace kz::serve
