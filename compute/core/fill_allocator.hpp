// Storage for large arrays that their maker fills in full right after allocating them (a device
// download, a parallel loop over every element): std::vector<T, FillAllocator<T>> (FillVector)
// leaves the elements of vector(n) and resize(n) as allocated, instead of zero-filling them on
// one thread first, and puts arrays of 2 MiB or more on 2 MiB boundaries with transparent huge
// pages asked for (madvise; the kernel's THP mode "madvise" is common), so that the first touch
// of such an array faults once per 2 MiB instead of once per 4 KiB. Elements given a value
// (vector(n, v), push_back, assign, an initializer list) are built as in any vector.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tomo {

template <class T>
class FillAllocator {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "FillAllocator leaves elements unbuilt: plain data only");

 public:
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t(2) << 20;

  FillAllocator() = default;
  template <class U>
  FillAllocator(const FillAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T))));
    void* p = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
    if (!p) throw std::bad_alloc();
    (void)madvise(p, (bytes + kHugePage - 1) / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint only
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) ::operator delete(p, std::align_val_t(alignof(T)));
    else std::free(p);
  }

  // vector(n) and resize(n): the element keeps the allocation's bytes (an implicit-lifetime
  // type: the storage holds one already); any other construction as usual.
  template <class U>
  void construct(U*) noexcept {}
  template <class U, class... Args>
    requires(sizeof...(Args) > 0)
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const FillAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using FillVector = std::vector<T, FillAllocator<T>>;

// Faults in every page of [p, p + bytes) from all of OpenMP's threads (the bytes become
// zeros): a fresh array's first touch on one thread is bound by the kernel's page faults.
inline void touch_pages(void* p, std::size_t bytes) {
  auto* c = static_cast<volatile char*>(p);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(bytes); i += 4096) c[i] = 0;
}

}  // namespace tomo
