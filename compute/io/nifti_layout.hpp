// The NIfTI-1 header as bytes (nifti1.h, struct nifti_1_header): field offsets, datatype codes
// and a byte buffer read in either byte order. Shared by the reader and the writer only.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tomo::nifti_layout {

// Field offsets in the NIfTI-1 header (nifti1.h, struct nifti_1_header).
constexpr std::size_t kHeaderSize = 348;
constexpr std::size_t kVoxOffset = 352;  // header + 4-byte extension flag
constexpr std::size_t kOffSizeofHdr = 0, kOffDim = 40, kOffDatatype = 70, kOffBitpix = 72, kOffPixdim = 76,
                      kOffVoxOffset = 108, kOffSclSlope = 112, kOffSclInter = 116, kOffXyztUnits = 123,
                      kOffCalMax = 124, kOffCalMin = 128,
                      kOffDescrip = 148, kOffQformCode = 252, kOffSformCode = 254, kOffQuatern = 256,
                      kOffQoffset = 268, kOffSrow = 280, kOffMagic = 344;

enum Datatype : std::int16_t {
  kUint8 = 2, kInt16 = 4, kInt32 = 8, kFloat32 = 16, kFloat64 = 64, kInt8 = 256, kUint16 = 512, kUint32 = 768
};

template <class T>
T byteswap_value(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

// A header as bytes in host order when writing; `swap` when the file has the other order.
struct HeaderBytes {
  std::array<unsigned char, kVoxOffset> b{};
  bool swap = false;

  template <class T>
  void put(std::size_t off, T v) { std::memcpy(b.data() + off, &v, sizeof(T)); }
  template <class T>
  T get(std::size_t off) const {
    T v;
    std::memcpy(&v, b.data() + off, sizeof(T));
    return swap ? byteswap_value(v) : v;
  }
};

}  // namespace tomo::nifti_layout
