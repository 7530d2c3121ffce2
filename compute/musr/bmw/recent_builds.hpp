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
#include <vector>

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

// Settings that live for the process, named by a small index (a table kind carries it): add()
// returns the index of an equal entry or appends one, at most Capacity.
template <class T, std::size_t Capacity = 64>
class SettingsList {
 public:
  // too_many() is called (it throws) when a new entry would exceed Capacity.
  template <class TooMany>
  int add(std::shared_ptr<const T> s, TooMany&& too_many) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < sets_.size(); ++i)
      if (*sets_[i] == *s) return static_cast<int>(i);
    if (sets_.size() >= Capacity) too_many();
    sets_.push_back(std::move(s));
    return static_cast<int>(sets_.size() - 1);
  }
  // The entry `id`, or nullptr.
  std::shared_ptr<const T> at(int id) {
    std::lock_guard lock(mutex_);
    if (id < 0 || static_cast<std::size_t>(id) >= sets_.size()) return nullptr;
    return sets_[static_cast<std::size_t>(id)];
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<const T>> sets_;
};

}  // namespace tomo::musr::bmw
