// The Interfile header parser: `key := value` lines, keys compared as CASToR does (lower case,
// every blank removed, a leading `!` dropped), `;` starting a comment, lines without `:=`
// (section titles such as CASToR's "!GENERAL IMAGE DATA") ignored, parsing stopped at
// `!END OF INTERFILE :=`. Keys it does not know are ignored, as STIR and CASToR do.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/interfile.hpp"

namespace tomo {
namespace {

// The largest image over all frames, as for NIfTI: 2^29 voxels (2 GiB as float).
constexpr std::uint64_t kMaxVoxels = std::uint64_t{1} << 29;

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "!Matrix Size [1]" → "matrixsize[1]".
std::string normal_key(std::string_view raw) {
  std::string k;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!k.empty() && k.front() == '!') k.erase(k.begin());
  return k;
}

struct Entry {
  std::string key;    // as written, for messages
  std::string value;  // trimmed
};

class Keys {
 public:
  Keys(std::string_view text, const std::string& name) : name_(name) { parse(text); }

  const Entry* find(std::initializer_list<const char*> aliases) const {
    for (const char* a : aliases)
      if (auto it = map_.find(a); it != map_.end()) return &it->second;
    return nullptr;
  }
  std::string text(std::initializer_list<const char*> aliases) const {
    const Entry* e = find(aliases);
    return e ? e->value : std::string();
  }
  std::optional<double> number(std::initializer_list<const char*> aliases) const {
    const Entry* e = find(aliases);
    if (!e) return std::nullopt;
    double v = 0;
    const char* b = e->value.data();
    const char* end = b + e->value.size();
    if (b != end && *b == '+') ++b;
    const auto [p, ec] = std::from_chars(b, end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v))
      throw InputError(name_ + ": key '" + e->key + "' has value '" + e->value + "', not a finite number");
    return v;
  }
  std::optional<long long> integer(std::initializer_list<const char*> aliases, long long lo, long long hi) const {
    const Entry* e = find(aliases);
    if (!e) return std::nullopt;
    if (!e->value.empty() && e->value.front() == '{')
      throw InputError(name_ + ": key '" + e->key + "' lists several values ('" + e->value +
                       "'): projection data, not an image");
    long long v = 0;
    const auto [p, ec] = std::from_chars(e->value.data(), e->value.data() + e->value.size(), v);
    if (ec != std::errc() || p != e->value.data() + e->value.size() || v < lo || v > hi)
      throw InputError(name_ + ": key '" + e->key + "' has value '" + e->value + "', expected a whole number in " +
                       std::to_string(lo) + ".." + std::to_string(hi));
    return v;
  }
  // A number where one parses, else the fallback: CASToR ignores a "quantification units"
  // that holds a unit ("kBq/cc") rather than a factor.
  double number_or(const char* key, double fallback) const {
    const Entry* e = find({key});
    if (!e) return fallback;
    double v = 0;
    const auto [p, ec] = std::from_chars(e->value.data(), e->value.data() + e->value.size(), v);
    return ec == std::errc() && p == e->value.data() + e->value.size() && std::isfinite(v) && v != 0 ? v : fallback;
  }
  const std::string& comment_quantity() const { return quantity_; }

 private:
  void parse(std::string_view text) {
    if (text.find('\0') != std::string_view::npos) throw InputError(name_ + ": binary data, not an Interfile header");
    bool first = true;
    std::size_t line_no = 0;
    while (!text.empty()) {
      const std::size_t eol = text.find('\n');
      std::string_view line = text.substr(0, eol);
      text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
      ++line_no;
      if (const std::size_t semi = line.find(';'); semi != std::string_view::npos) {
        const std::string comment = trim(line.substr(semi + 1));
        constexpr std::string_view kTag = "tomoraster quantity:";
        if (comment.rfind(kTag, 0) == 0) quantity_ = trim(std::string_view(comment).substr(kTag.size()));
        line = line.substr(0, semi);
      }
      const std::size_t sep = line.find(":=");
      if (sep == std::string_view::npos) continue;
      const std::string key = normal_key(line.substr(0, sep));
      if (first) {
        if (key != "interfile")
          throw InputError(name_ + ": line " + std::to_string(line_no) + " is '" + trim(line) +
                           "'; an Interfile header starts with '!INTERFILE :='");
        first = false;
        continue;
      }
      if (key == "endofinterfile") return;
      map_[key] = Entry{trim(line.substr(0, sep)), trim(line.substr(sep + 2))};
    }
    if (first) throw InputError(name_ + ": no '!INTERFILE :=' line; not an Interfile header");
  }

  std::string name_;
  std::map<std::string, Entry> map_;
  std::string quantity_;
};

// `!number format` and `!number of bytes per pixel` (STIR: "float", "signed integer",
// "unsigned integer"; CASToR: "short float" for 4 bytes, "long float" for 8).
InterfileType number_type(const Keys& k, const std::string& name, int& bytes) {
  const std::string format = lower(k.text({"numberformat"}));
  const auto b = k.integer({"numberofbytesperpixel"}, 1, 8);
  const std::string where = name + ": '!number format := " + k.text({"numberformat"}) + "'";
  if (format == "float" || format == "short float" || format == "long float") {
    const int want = format == "short float" ? 4 : format == "long float" ? 8 : static_cast<int>(b.value_or(4));
    if (b && *b != want)
      throw InputError(where + " with " + std::to_string(*b) + " bytes per pixel; floats of " + std::to_string(want) +
                       " bytes are read");
    if (want != 4 && want != 8) throw InputError(where + " with " + std::to_string(want) + " bytes per pixel; 4 or 8 are read");
    bytes = want;
    return want == 4 ? InterfileType::f32 : InterfileType::f64;
  }
  if (format == "signed integer" || format == "unsigned integer") {
    if (!b) throw InputError(where + " without '!number of bytes per pixel'");
    const bool sign = format[0] == 's';
    bytes = static_cast<int>(*b);
    switch (bytes) {
      case 1: return sign ? InterfileType::i8 : InterfileType::u8;
      case 2: return sign ? InterfileType::i16 : InterfileType::u16;
      case 4: return sign ? InterfileType::i32 : InterfileType::u32;
      default: throw InputError(where + " with " + std::to_string(bytes) + " bytes per pixel; 1, 2 or 4 are read");
    }
  }
  if (format.empty()) throw InputError(name + ": no '!number format' key");
  throw InputError(where + " is not read (float, short float, long float, signed integer, unsigned integer are)");
}

}  // namespace

InterfileHeader parse_interfile_header(std::string_view text, const std::string& name,
                                       const std::filesystem::path& folder) {
  const Keys k(text, name);
  InterfileHeader h;
  h.version_of_keys = k.text({"versionofkeys"});
  h.originating_system = k.text({"originatingsystem"});
  const std::string q = k.comment_quantity();
  if (const std::size_t open = q.rfind(" ["); !q.empty() && q.back() == ']' && open != std::string::npos)
    h.quantity = q.substr(0, open), h.unit = q.substr(open + 2, q.size() - open - 3);
  else
    h.quantity = q;

  // STIR's projection data (.hs) say "!PET data type := Emission"; CASToR images say nothing.
  if (const std::string t = lower(k.text({"petdatatype"})); !t.empty() && t != "image")
    throw InputError(name + ": '!PET data type := " + k.text({"petdatatype"}) + "' is projection data, not an image");

  const std::string file = k.text({"nameofdatafile"});
  if (file.empty()) throw InputError(name + ": no '!name of data file' key");
  const std::filesystem::path p(file);
  h.data_file = p.is_absolute() ? p : folder / p;

  h.type = number_type(k, name, h.bytes);
  const std::string order = lower(k.text({"imagedatabyteorder"}));
  if (order == "littleendian") h.big_endian = false;
  else if (order == "bigendian" || order.empty()) h.big_endian = true;
  else throw InputError(name + ": 'imagedata byte order := " + k.text({"imagedatabyteorder"}) +
                        "' is neither LITTLEENDIAN nor BIGENDIAN");

  const long long ndim = k.integer({"numberofdimensions"}, 1, 7).value_or(3);
  if (ndim > 3) {
    for (long long d = 4; d <= ndim; ++d) {
      const std::string key = "matrixsize[" + std::to_string(d) + "]";
      if (k.integer({key.c_str()}, 1, 1 << 30).value_or(1) != 1)
        throw InputError(name + ": 'number of dimensions := " + std::to_string(ndim) +
                         "' with more than one element along axis " + std::to_string(d) +
                         "; images of up to 3 dimensions are read (frames by 'number of time frames')");
    }
  }
  static const char* kAxis[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const std::string i = "[" + std::to_string(a + 1) + "]";
    const std::string size = "matrixsize" + i, label = "matrixaxislabel" + i, scale = "scalingfactor(mm/pixel)" + i,
                      scale2 = "scalefactor(mm/pixel)" + i, off = "firstpixeloffset(mm)" + i,
                      off2 = "origin(mm)" + i, off3 = "offset" + i;
    const auto n = k.integer({size.c_str()}, 1, 1 << 30);
    if (!n && a < ndim) throw InputError(name + ": no '!matrix size " + i + "' key");
    h.dims[a] = static_cast<int>(n.value_or(1));
    if (const std::string l = lower(k.text({label.c_str()})); !l.empty() && l != kAxis[a])
      throw InputError(name + ": 'matrix axis label " + i + " := " + k.text({label.c_str()}) + "'; images with axes x, y, z are read");
    const double v = k.number({scale.c_str(), scale2.c_str()}).value_or(1.0);
    if (!(v > 0)) throw InputError(name + ": 'scaling factor (mm/pixel) " + i + "' must be > 0, got " + std::to_string(v));
    h.voxel_mm[a] = v;
    // STIR: the centre of the first voxel; CASToR writes the shift of the image's centre under
    // the same key. Without it CASToR centres the image on the scanner; STIR puts voxel index 0
    // of x and y (the first voxel being index -floor(n/2)) on the axis, and its projectors centre
    // the planes axially.
    const double centred = -0.5 * (h.dims[a] - 1) * v;
    const auto o = k.number({off.c_str(), off2.c_str(), off3.c_str()});
    const bool castor = lower(h.version_of_keys).rfind("castor", 0) == 0;
    const double fallback = castor || a == 2 ? centred : -(h.dims[a] / 2) * v;
    h.origin_mm[a] = !o ? fallback : castor ? *o + centred : *o;
  }

  h.frames = static_cast<int>(k.integer({"numberoftimeframes", "numberofframegroups"}, 1, 1 << 20).value_or(1));
  const std::uint64_t per_frame = static_cast<std::uint64_t>(h.dims[0]) * h.dims[1] * h.dims[2];
  if (per_frame * static_cast<std::uint64_t>(h.frames) > kMaxVoxels)
    throw InputError(name + ": declares " + std::to_string(h.dims[0]) + "x" + std::to_string(h.dims[1]) + "x" +
                     std::to_string(h.dims[2]) + " voxels in " + std::to_string(h.frames) + " frame(s), more than the " +
                     std::to_string(kMaxVoxels) + " an image may have");
  const std::uint64_t frame_bytes = per_frame * static_cast<std::uint64_t>(h.bytes);

  // Data offset: "data offset in bytes[i]" per frame (STIR), one "data offset in bytes"
  // (CASToR, Interfile 3.3) or "data starting block" (2048-byte blocks).
  std::uint64_t base = 0;
  if (const auto b = k.integer({"dataoffsetinbytes", "dataoffsetinbytes[1]"}, 0, 1LL << 42)) base = static_cast<std::uint64_t>(*b);
  else if (const auto s = k.integer({"datastartingblock"}, 0, 1LL << 31)) base = static_cast<std::uint64_t>(*s) * 2048;
  // CASToR's "data rescale slope" and "quantification units" multiply; STIR writes "image
  // scaling factor[i]" and repeats it as "quantification units", so that one wins where given.
  const double global = k.number({"datarescaleslope", "rescaleslope"}).value_or(1.0) *
                        k.number_or("quantificationunits", 1.0);
  h.intercept = k.number({"datarescaleintercept", "rescaleintercept", "datarescaleoffset"}).value_or(0.0);
  for (int f = 0; f < h.frames; ++f) {
    const std::string i = "[" + std::to_string(f + 1) + "]";
    const std::string off = "dataoffsetinbytes" + i, scale = "imagescalingfactor" + i;
    const auto o = f == 0 ? std::optional<long long>{} : k.integer({off.c_str()}, 0, 1LL << 42);
    h.frame_offset.push_back(o ? static_cast<std::uint64_t>(*o) : base + f * frame_bytes);
    const auto s = k.number({scale.c_str()});
    h.frame_scale.push_back(s ? *s : global);
  }
  const std::string duration = "imageduration(sec)[1]";
  h.frame_s = k.number({duration.c_str(), "imageduration(sec)"}).value_or(0.0);
  return h;
}

}  // namespace tomo
