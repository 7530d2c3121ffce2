// The last few results a native function's table builder computed, keyed by its arguments: the
// tables of one point (C and S, and their derivatives) come from one computation, so the second
// table asked for is taken from here. An entry built with fewer derivative bits than asked for is
// rebuilt with the union of both.
#pragma once
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

namespace tomo::musr::bmw {

// Value has a member `unsigned bits` (the derivatives it holds).
template <class Key, class Value, std::size_t Capacity = 8>
class RecentBuilds {
 public:
  // The entry for `key` holding at least `bits`, or build(bits) (under the lock: concurrent
  // callers of one point wait for one build).
  template <class Build>
  std::shared_ptr<const Value> get(const Key& key, unsigned bits, Build&& build) {
    std::lock_guard lock(mutex_);
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->first == key) {
        if ((bits & ~it->second->bits) != 0) {
          bits |= it->second->bits;
          cache_.erase(it);
          break;
        }
        cache_.splice(cache_.begin(), cache_, it);
        return cache_.front().second;
      }
    auto p = std::make_shared<const Value>(build(bits));
    cache_.emplace_front(key, p);
    if (cache_.size() > Capacity) cache_.pop_back();
    return p;
  }

 private:
  std::mutex mutex_;
  std::list<std::pair<Key, std::shared_ptr<const Value>>> cache_;
};

}  // namespace tomo::musr::bmw
