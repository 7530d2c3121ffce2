// CASToR list-mode (.cdh + .cdf) reader and writer, and the reader chosen by extension (list_io.hpp).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/safir/castor_geometry.hpp"
#include "compute/safir/list_io.hpp"

namespace tomo::safir {

namespace {

constexpr std::size_t kMaxHeader = 1 << 16;
constexpr std::uintmax_t kMaxData = 16 * io::kGiB;  // 12+ bytes an event: 10^9 events
// The optional float32 fields of a CASToR PET list-mode event, in file order.
constexpr const char* kFlags[] = {"attenuation correction flag", "scatter correction flag", "random correction flag",
                                  "normalization correction flag", "tof information flag"};
constexpr const char* kFieldNames[] = {"attenuation correction factor", "scatter rate", "random rate",
                                       "normalization factor"};

std::string lower_trim(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::map<std::string, std::string> read_header(const std::filesystem::path& cdh) {
  const std::string name = cdh.string();
  io::check_input_file(cdh, kMaxHeader, "CASToR header");
  std::ifstream in(cdh, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find('\0') != std::string::npos) throw InputError(name + ": binary data, not a CASToR text header");
  std::map<std::string, std::string> kv;
  std::istringstream ls(text);
  for (std::string line; std::getline(ls, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || trim(line).empty() || trim(line)[0] == '#') continue;
    kv[lower_trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
  }
  return kv;
}

}  // namespace

CastorCorrections castor_corrections(std::span<const double> multiplicative, std::span<const double> additive,
                                     double duration_s) {
  CastorCorrections c;
  for (double m : multiplicative) {
    if (!(m > 0) || !std::isfinite(m)) throw Error(str_cat("CASToR corrections: a multiplicative term ", m, " is not > 0"));
    c.normalisation.push_back(static_cast<float>(1.0 / m));
  }
  if (!additive.empty() && !(duration_s > 0))
    throw Error(str_cat("CASToR corrections: rates need a duration > 0 s, got ", duration_s));
  for (double a : additive) c.random.push_back(static_cast<float>(a / duration_s));
  return c;
}

void write_castor(const std::filesystem::path& cdh, const ListMode& lm, const Scanner& sc,
                  const CastorCorrections& corrections) {
  // The fields in CASToR's file order (kFlags), each with the values of every event.
  const std::vector<float>* fields[] = {&corrections.attenuation, &corrections.scatter, &corrections.random,
                                        &corrections.normalisation};
  for (const auto* f : fields)
    if (!f->empty() && f->size() != lm.events.size())
      throw Error(str_cat("CASToR list-mode: a correction field of ", f->size(), " values for ", lm.events.size(),
                          " events"));
  std::filesystem::path cdf = cdh;
  cdf.replace_extension(".cdf");
  write_file_atomic(cdf, [&](std::ostream& os) {
    for (std::size_t i = 0; i < lm.events.size(); ++i) {
      const std::uint32_t t =
          lm.time_s.empty() ? 0u : static_cast<std::uint32_t>(std::floor(lm.time_s[i] * 1000.0));
      os.write(reinterpret_cast<const char*>(&t), 4);
      for (const auto* f : fields)
        if (!f->empty()) os.write(reinterpret_cast<const char*>(f->data() + i), 4);
      const std::uint32_t ids[2] = {lm.events[i].a, lm.events[i].b};
      os.write(reinterpret_cast<const char*>(ids), sizeof ids);
    }
  });
  std::ostringstream h;
  h << "Scanner name: " << castor_scanner_name(sc) << "\n"
    << "Data filename: " << cdf.filename().string() << "\n"
    << "Number of events: " << lm.events.size() << "\n"
    << "Number of delayed events: " << lm.delayed << "\n"
    << "Data mode: list-mode\nData type: PET\nStart time (s): 0\n"
    << "Duration (s): " << lm.duration_s << "\n";
  const char* names[] = {"Attenuation correction flag", "Scatter correction flag", "Random correction flag",
                         "Normalization correction flag"};
  for (std::size_t k = 0; k < 4; ++k)
    if (!fields[k]->empty()) h << names[k] << ": 1\n";
  write_text_atomic(cdh, h.str());
}

ListMode read_castor(const std::filesystem::path& cdh, const Scanner& sc, CastorCorrections* corrections) {
  const std::string name = cdh.string();
  const auto kv = read_header(cdh);
  auto need = [&](const char* key) -> const std::string& {
    const auto it = kv.find(key);
    if (it == kv.end()) throw InputError(str_cat(name, ": CASToR header has no '", key, "' line"));
    return it->second;
  };
  if (lower_trim(need("data mode")) != "list-mode")
    throw InputError(str_cat(name, ": Data mode is '", need("data mode"), "'; only list-mode is read"));
  if (lower_trim(need("data type")) != "pet") throw InputError(str_cat(name, ": Data type is '", need("data type"), "', not PET"));
  auto number = [&](const char* key, double lo, double hi) {
    const std::string& v = need(key);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(x) || x < lo || x > hi)
      throw InputError(str_cat(name, ": '", key, ": ", v, "' is not a number in [", lo, ", ", hi, "]"));
    return x;
  };
  const double count_d = number("number of events", 0, 4e9);
  if (count_d != std::floor(count_d)) throw InputError(name + ": Number of events is not a whole number");
  if (kv.count("maximum number of lines per event") && number("maximum number of lines per event", 1, 1e6) != 1)
    throw InputError(name + ": events with several lines (compression) are not supported");
  std::size_t extra = 0;
  std::array<int, 5> slot{-1, -1, -1, -1, -1};  // the float field of each flag in an event, or -1
  for (std::size_t k = 0; k < 5; ++k)
    if (kv.count(kFlags[k]) && number(kFlags[k], 0, 1) == 1) slot[k] = int(extra++);
  const std::size_t record = 12 + 4 * extra;
  std::filesystem::path cdf = cdh.parent_path() / need("data filename");
  const std::string dname = cdf.string();
  const auto size = io::check_input_file(cdf, kMaxData, "CASToR data file of " + name);
  const auto count = static_cast<std::uint64_t>(count_d);
  if (size != count * record)
    throw InputError(str_cat(dname, ": ", size, " bytes, but ", name, " says ", count, " events of ", record, " bytes (",
                             count * record, ")"));
  std::ifstream in(cdf, std::ios::binary);
  std::vector<char> raw(static_cast<std::size_t>(size));
  if (size && !in.read(raw.data(), static_cast<std::streamsize>(size))) throw InputError(dname + ": read failed");
  ListMode lm;
  lm.events.resize(count);
  lm.time_s.resize(count);
  const std::uint32_t n = sc.crystal_count();
  std::uint32_t last = 0;
  std::vector<float>* out[4] = {nullptr, nullptr, nullptr, nullptr};
  if (corrections) {
    *corrections = {};
    out[0] = &corrections->attenuation, out[1] = &corrections->scatter, out[2] = &corrections->random,
    out[3] = &corrections->normalisation;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint32_t t, a, b;
    const char* r = raw.data() + i * record;
    std::memcpy(&t, r, 4);
    std::memcpy(&a, r + 4 + 4 * extra, 4);
    std::memcpy(&b, r + 8 + 4 * extra, 4);
    if (a >= n || b >= n)
      throw InputError(str_cat(dname, ": event ", i, " has crystal id ", std::max(a, b), ", the scanner has ", n,
                               " crystals (ring · crystals + detector)"));
    if (t < last) throw InputError(str_cat(dname, ": event ", i, " goes back in time (", t, " ms after ", last, " ms)"));
    last = t;
    lm.events[i] = {a, b};
    lm.time_s[i] = t * 1e-3;
    if (!corrections) continue;
    for (std::size_t k = 0; k < 4; ++k) {  // attenuation, scatter, random, normalization (not TOF)
      if (slot[k] < 0) continue;
      float v;
      std::memcpy(&v, r + 4 + 4 * slot[k], 4);
      const bool factor = k == 0 || k == 3;  // ACF and NCF divide the model: > 0; rates ≥ 0
      if (!std::isfinite(v) || (factor ? !(v > 0) : v < 0))
        throw InputError(str_cat(dname, ": event ", i, " has ", kFieldNames[k], " ", v, "; it must be finite and ",
                                 factor ? "> 0" : ">= 0"));
      out[k]->push_back(v);
    }
  }
  lm.duration_s = kv.count("duration (s)") ? number("duration (s)", 0, 1e9) : (count ? last * 1e-3 + 1e-3 : 0.0);
  if (kv.count("number of delayed events")) lm.delayed = static_cast<std::uint64_t>(number("number of delayed events", 0, 1e12));
  return lm;
}

ListMode read_list_mode(const std::filesystem::path& path, const Scanner& sc) {
  return path.extension() == ".cdh" ? read_castor(path, sc) : read_clm_safir(path, sc);
}

}  // namespace tomo::safir
