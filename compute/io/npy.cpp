// .npy reading and writing. Written here rather than taken from a library: Debian has no
// maintained C++ .npy package (cnpy is unpackaged and reads without size checks), and the
// format is a 10-byte preamble plus a Python-literal dict of three keys.
#include "compute/io/npy.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/memory.hpp"
#include "compute/io/atomic_file.hpp"

namespace tomo {
namespace {

struct TypeInfo {
  NpyType type;
  const char* descr;
  std::size_t size;
};
constexpr std::array<TypeInfo, 13> kTypes{{{NpyType::f4, "<f4", 4},  {NpyType::f8, "<f8", 8},
                                           {NpyType::c8, "<c8", 8},  {NpyType::c16, "<c16", 16},
                                           {NpyType::u1, "|u1", 1},  {NpyType::u2, "<u2", 2},
                                           {NpyType::u4, "<u4", 4},  {NpyType::u8, "<u8", 8},
                                           {NpyType::i1, "|i1", 1},  {NpyType::i2, "<i2", 2},
                                           {NpyType::i4, "<i4", 4},  {NpyType::i8, "<i8", 8},
                                           {NpyType::b1, "|b1", 1}}};

const TypeInfo& info(NpyType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return i;
  throw Error("npy: unknown type");
}

std::optional<NpyType> type_of(std::string_view descr) {
  for (const auto& i : kTypes) {
    if (descr == i.descr) return i.type;
    // One-byte types may be written with '<' or '=' instead of '|'; '=' is native (little here).
    std::string_view d = i.descr;
    if (descr.size() == d.size() && (descr[0] == '<' || descr[0] == '=' || descr[0] == '|') &&
        (d[0] == '<' || i.size == 1) && descr.substr(1) == d.substr(1))
      return i.type;
  }
  return std::nullopt;
}

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& why) {
  throw InputError(path.string() + ": not a readable .npy file: " + why);
}

// The value text after 'key': in the header dict, up to the next top-level comma or brace.
std::string_view value_of(std::string_view dict, std::string_view key, const std::filesystem::path& path) {
  std::string quoted = "'";
  quoted.append(key).append("'");
  std::size_t at = dict.find(quoted);
  if (at == std::string_view::npos) {
    quoted = "\"";
    quoted.append(key).append("\"");
    at = dict.find(quoted);
  }
  if (at == std::string_view::npos) bad(path, "header has no '" + std::string(key) + "'");
  std::size_t colon = dict.find(':', at + quoted.size());
  if (colon == std::string_view::npos) bad(path, "header key without value");
  std::string_view rest = dict.substr(colon + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.empty() && rest.front() == '(') {
    const std::size_t close = rest.find(')');
    if (close == std::string_view::npos) bad(path, "unterminated shape tuple");
    return rest.substr(0, close + 1);
  }
  const std::size_t end = rest.find_first_of(",}");
  return rest.substr(0, end);
}

std::vector<std::size_t> parse_shape(std::string_view tuple, const std::filesystem::path& path) {
  if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')') bad(path, "shape is not a tuple");
  std::vector<std::size_t> shape;
  std::string_view body = tuple.substr(1, tuple.size() - 2);
  while (!body.empty()) {
    while (!body.empty() && (body.front() == ' ' || body.front() == ',')) body.remove_prefix(1);
    if (body.empty()) break;
    std::size_t v = 0, n = 0;
    while (n < body.size() && body[n] >= '0' && body[n] <= '9') {
      if (v > (std::numeric_limits<std::size_t>::max() - 9) / 10) bad(path, "shape entry too large");
      v = v * 10 + static_cast<std::size_t>(body[n] - '0');
      ++n;
    }
    if (n == 0) bad(path, "shape entry is not a non-negative integer");
    if (n < body.size() && body[n] == 'L') ++n;  // Python 2 longs
    shape.push_back(v);
    if (shape.size() > 32) bad(path, "more than 32 dimensions");
    body.remove_prefix(n);
  }
  return shape;
}

std::string unquote(std::string_view v, const std::filesystem::path& path) {
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (v.size() < 2 || (v.front() != '\'' && v.front() != '"') || v.back() != v.front())
    bad(path, "descr is not a string");
  return std::string(v.substr(1, v.size() - 2));
}

// Flat index of C-order element `i` within an array stored in Fortran order.
std::size_t fortran_index(std::size_t i, const std::vector<std::size_t>& shape) {
  std::size_t f = 0, stride = 1;
  std::vector<std::size_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    f += idx[d] * stride;
    stride *= shape[d];
  }
  return f;
}

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

double element(const NpyArray& a, std::size_t flat) {
  const std::byte* p = a.bytes.data() + flat * info(a.type).size;
  switch (a.type) {
    case NpyType::f4: return load<float>(p);
    case NpyType::f8: return load<double>(p);
    case NpyType::u1: return load<std::uint8_t>(p);
    case NpyType::u2: return load<std::uint16_t>(p);
    case NpyType::u4: return load<std::uint32_t>(p);
    case NpyType::u8: return static_cast<double>(load<std::uint64_t>(p));
    case NpyType::i1: return load<std::int8_t>(p);
    case NpyType::i2: return load<std::int16_t>(p);
    case NpyType::i4: return load<std::int32_t>(p);
    case NpyType::i8: return static_cast<double>(load<std::int64_t>(p));
    case NpyType::b1: return load<std::uint8_t>(p) ? 1.0 : 0.0;
    case NpyType::c8:
    case NpyType::c16: break;
  }
  throw InputError("npy: complex data where real values are expected");
}

// "what (file 'x.npy'): ... at index [i, j, k]" for the C-order element `flat`.
std::string where(const NpyArray& a, const std::string& what, std::size_t flat) {
  std::vector<std::size_t> idx(a.shape.size());
  for (std::size_t d = a.shape.size(); d-- > 0;) {
    idx[d] = a.shape[d] ? flat % a.shape[d] : 0;
    flat = a.shape[d] ? flat / a.shape[d] : 0;
  }
  std::string s = what;
  if (!a.source.empty()) s.append(" (file '").append(a.source).append("')");
  s.append(": the value at index [");
  for (std::size_t d = 0; d < idx.size(); ++d) s.append(d ? ", " : "").append(std::to_string(idx[d]));
  return s.append("]");
}

template <class T>
std::vector<T> convert(const NpyArray& a, const std::string& what) {
  if (a.type == NpyType::c8 || a.type == NpyType::c16)
    throw InputError(what + ": complex array (" + npy_descr(a.type) + ") where real values are expected");
  const std::size_t n = a.count();
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = element(a, a.fortran_order ? fortran_index(i, a.shape) : i);
    if (!std::isfinite(v) || std::fabs(v) > static_cast<double>(std::numeric_limits<T>::max()))
      throw InputError(where(a, what, i) + " is " + std::to_string(v) +
                       (std::isfinite(v) ? ", beyond the range of float" : "; values must be finite"));
    out[i] = static_cast<T>(v);
  }
  return out;
}

void write_any(const std::filesystem::path& path, NpyType type, const void* data, std::span<const std::size_t> shape) {
  std::string dict = "{'descr': '";
  dict.append(npy_descr(type)).append("', 'fortran_order': False, 'shape': (");
  std::size_t n = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) dict.append(", ");
    dict.append(std::to_string(shape[i]));
    n *= shape[i];
  }
  dict.append(shape.size() == 1 ? ",)" : ")");
  dict.append(", }");
  // Preamble (10 bytes) + dict + padding + '\n' is a multiple of 64.
  const std::size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - 10 - dict.size() - 1, ' ');
  dict.push_back('\n');
  const auto header_len = static_cast<std::uint16_t>(dict.size());
  const std::size_t bytes = n * info(type).size;
  write_file_atomic(path, [&](std::ostream& os) {
    os.write("\x93NUMPY\x01\x00", 8);
    const char len[2] = {static_cast<char>(header_len & 0xff), static_cast<char>(header_len >> 8)};
    os.write(len, 2);
    os.write(dict.data(), static_cast<std::streamsize>(dict.size()));
    os.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  });
}

std::size_t product(std::span<const std::size_t> shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

template <class T>
void write_checked(const std::filesystem::path& path, NpyType type, std::span<const T> data,
                   std::span<const std::size_t> shape) {
  if (product(shape) != data.size())
    throw Error("write_npy " + path.string() + ": " + std::to_string(data.size()) + " values for the shape given");
  write_any(path, type, data.data(), shape);
}

}  // namespace

std::size_t npy_item_size(NpyType type) { return info(type).size; }
const char* npy_descr(NpyType type) { return info(type).descr; }

std::size_t NpyArray::count() const { return product(shape); }
std::vector<float> NpyArray::to_float(const std::string& what) const { return convert<float>(*this, what); }
std::vector<double> NpyArray::to_double(const std::string& what) const { return convert<double>(*this, what); }

std::vector<std::complex<float>> NpyArray::to_complex_float(const std::string& what) const {
  const std::size_t n = count();
  std::vector<std::complex<float>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t f = fortran_order ? fortran_index(i, shape) : i;
    std::complex<double> v;
    if (type == NpyType::c8) {
      const auto c = load<std::complex<float>>(bytes.data() + f * 8);
      v = {c.real(), c.imag()};
    } else if (type == NpyType::c16) {
      v = load<std::complex<double>>(bytes.data() + f * 16);
    } else {
      v = element(*this, f);
    }
    if (!std::isfinite(v.real()) || !std::isfinite(v.imag()) ||
        std::fabs(v.real()) > std::numeric_limits<float>::max() ||
        std::fabs(v.imag()) > std::numeric_limits<float>::max())
      throw InputError(where(*this, what, i) + " is not finite (or beyond the range of float)");
    out[i] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
  }
  return out;
}

// The largest .npy read whole (projection stacks, counts): the memory check follows the header.
constexpr std::uintmax_t kMaxNpyBytes = 32 * io::kGiB;

NpyArray read_npy(const std::filesystem::path& path) {
  // The size from the file system, not from seeking: a directory or a device opens too.
  const std::uint64_t file_size = io::check_input_file(path, kMaxNpyBytes, "npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open");
  char pre[12] = {};
  if (file_size < 10 || !in.read(pre, 10)) bad(path, "shorter than the 10-byte preamble");
  if (std::memcmp(pre, "\x93NUMPY", 6) != 0) bad(path, "no \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(pre[6]);
  if (major < 1 || major > 3) bad(path, "unsupported format version " + std::to_string(major));
  std::uint64_t header_len = static_cast<unsigned char>(pre[8]) | (static_cast<unsigned char>(pre[9]) << 8);
  std::uint64_t preamble = 10;
  if (major >= 2) {
    if (file_size < 12 || !in.read(pre + 10, 2)) bad(path, "truncated preamble");
    header_len |= (static_cast<std::uint64_t>(static_cast<unsigned char>(pre[10])) << 16) |
                  (static_cast<std::uint64_t>(static_cast<unsigned char>(pre[11])) << 24);
    preamble = 12;
  }
  if (header_len > 1u << 20 || preamble + header_len > file_size) bad(path, "header longer than the file");
  std::string dict(header_len, '\0');
  in.read(dict.data(), static_cast<std::streamsize>(header_len));
  NpyArray a;
  a.source = path.string();
  const std::string descr = unquote(value_of(dict, "descr", path), path);
  const auto type = type_of(descr);
  if (!type) bad(path, "dtype '" + descr + "' is not supported (little-endian numeric types only)");
  a.type = *type;
  std::string_view fo = value_of(dict, "fortran_order", path);
  while (!fo.empty() && fo.back() == ' ') fo.remove_suffix(1);
  if (fo != "False" && fo != "True") bad(path, "fortran_order is neither True nor False");
  a.fortran_order = fo == "True";
  a.shape = parse_shape(value_of(dict, "shape", path), path);
  // The payload size in 128-bit arithmetic: a hostile shape must not wrap around.
  unsigned __int128 bytes = info(a.type).size;
  for (std::size_t d : a.shape) {
    bytes *= d;
    if (bytes > file_size) break;
  }
  const std::uint64_t payload = file_size - preamble - header_len;
  if (bytes != payload)
    bad(path, "the shape needs " + std::to_string(static_cast<std::uint64_t>(std::min<unsigned __int128>(bytes, ~0ull))) +
                  " bytes of data, the file holds " + std::to_string(payload));
  if (static_cast<double>(payload) > host_memory_available())
    bad(path, "its " + format_bytes(static_cast<double>(payload)) + " of data do not fit in the " +
                  format_bytes(host_memory_available()) + " of host memory available");
  a.bytes.resize(static_cast<std::size_t>(payload));
  if (!in.read(reinterpret_cast<char*>(a.bytes.data()), static_cast<std::streamsize>(payload)))
    bad(path, "read failed");
  return a;
}

void require_npy_shape(const NpyArray& a, std::span<const std::size_t> expect, const std::string& what) {
  auto text = [](auto&& s) {
    std::string t = "(";
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (i) t.append(", ");
      t.append(s[i] == 0 ? std::string("any") : std::to_string(s[i]));
    }
    return t.append(")");
  };
  bool ok = a.shape.size() == expect.size();
  for (std::size_t i = 0; ok && i < expect.size(); ++i) ok = expect[i] == 0 || expect[i] == a.shape[i];
  if (!ok) {
    std::string msg = what;
    msg.append(": shape ").append(text(a.shape)).append(" where ").append(text(expect)).append(" is expected");
    throw InputError(msg);
  }
}

void write_npy(const std::filesystem::path& p, std::span<const float> d, std::span<const std::size_t> s) {
  write_checked(p, NpyType::f4, d, s);
}
void write_npy(const std::filesystem::path& p, std::span<const double> d, std::span<const std::size_t> s) {
  write_checked(p, NpyType::f8, d, s);
}
void write_npy(const std::filesystem::path& p, std::span<const std::complex<float>> d,
               std::span<const std::size_t> s) {
  write_checked(p, NpyType::c8, d, s);
}
void write_npy(const std::filesystem::path& p, std::span<const std::uint16_t> d, std::span<const std::size_t> s) {
  write_checked(p, NpyType::u2, d, s);
}
void write_npy(const std::filesystem::path& p, std::span<const std::int32_t> d, std::span<const std::size_t> s) {
  write_checked(p, NpyType::i4, d, s);
}
void write_npy_bytes(const std::filesystem::path& p, NpyType type, const void* data, std::span<const std::size_t> s) {
  write_any(p, type, data, s);
}

}  // namespace tomo
