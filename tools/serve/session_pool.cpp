#include "serve/session_pool.h"

#include <algorithm>

namespace kz::serve {

size_t choose_slot(std::span<const SlotView> free_slots, std::span<const int32_t> prompt) {
  size_t best = 0, best_prefix = 0;
  for (size_t i = 0; i < free_slots.size(); ++i) {
    const auto& held = free_slots[i].tokens;
    const size_t n = std::min(held.size(), prompt.size());
    const size_t prefix =
        size_t(std::mismatch(held.begin(), held.begin() + n, prompt.begin()).first - held.begin());
    const bool longer = prefix > best_prefix;
    const bool tie_older =
        prefix == best_prefix && free_slots[i].last_used < free_slots[best].last_used;
    if (i == 0 || longer || tie_older) {
      best = i;
      best_prefix = prefix;
    }
  }
  return best;
}

SessionPool::SessionPool(std::vector<std::unique_ptr<Session>> sessions, size_t queue_capacity,
                         std::chrono::milliseconds queue_timeout)
    : queue_capacity_(queue_capacity), queue_timeout_(queue_timeout) {
  for (auto& s : sessions) slots_.push_back(Slot{std::move(s)});
}

SessionPool::Lease::~Lease() {
  if (pool_) pool_->release(slot_);
}

Session& SessionPool::Lease::session() const {
  return *pool_->slots_[slot_].session;
}

size_t SessionPool::free_count() const {
  return size_t(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; }));
}

size_t SessionPool::take_best_free(std::span<const int32_t> prompt) {
  std::vector<SlotView> views;
  std::vector<size_t> index;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].busy) continue;
    views.push_back({slots_[i].session->tokens(), slots_[i].last_used});
    index.push_back(i);
  }
  const size_t slot = index[choose_slot(views, prompt)];
  slots_[slot].busy = true;
  slots_[slot].last_used = ++use_counter_;
  return slot;
}

SessionPool::Lease SessionPool::acquire(std::span<const int32_t> prompt,
                                        const std::function<bool()>& client_gone) {
  std::unique_lock lock(mutex_);
  if (stopping_) throw ServerBusy("The server is shutting down.");
  // Waiting requests are served first, in order.
  if (waiting_.empty() && free_count() > 0) return Lease(*this, take_best_free(prompt));
  if (waiting_.size() >= queue_capacity_)
    throw ServerBusy("The server is busy: all " + std::to_string(slots_.size()) +
                     " sessions are in use and the wait queue is full; retry later.");
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  const auto deadline = std::chrono::steady_clock::now() + queue_timeout_;
  const auto served = [&] { return stopping_ || (waiting_.front() == ticket && free_count() > 0); };
  // A client that leaves is noticed within one check interval, so that /health counts only
  // live waiters and its place goes to the next (issue 41).
  bool gone = false, timed_out = false;
  while (!served()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    const auto until = client_gone ? std::min(deadline, now + kGoneCheckInterval) : deadline;
    if (freed_.wait_until(lock, until, served)) break;
    if (client_gone && client_gone()) {
      gone = true;
      break;
    }
  }
  if (gone || timed_out || stopping_) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
    freed_.notify_all();  // the next in line may be first now
    if (gone) throw ClientGone("The client closed its connection while its request waited.");
    throw ServerBusy(stopping_
                         ? "The server is shutting down."
                         : "The server is busy: no session became free in time; retry later.");
  }
  waiting_.pop_front();
  const size_t slot = take_best_free(prompt);
  freed_.notify_all();  // another session may be free for the next in line
  return Lease(*this, slot);
}

void SessionPool::release(size_t slot) {
  {
    std::lock_guard lock(mutex_);
    slots_[slot].busy = false;
  }
  freed_.notify_all();
}

SessionPool::Stats SessionPool::stats() const {
  std::lock_guard lock(mutex_);
  return {slots_.size(), slots_.size() - free_count(), waiting_.size()};
}

void SessionPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (Slot& s : slots_)
      if (s.busy) s.session->cancel();
  }
  freed_.notify_all();
}

}  // namespace kz::serve
