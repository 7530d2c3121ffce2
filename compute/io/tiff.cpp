// TIFF reading and writing through libtiff (see tiff.hpp).
#include "compute/io/tiff.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/input_file.hpp"

namespace tomo::io {
namespace {

constexpr std::uintmax_t kMaxTiffBytes = 64 * kGiB;
constexpr int kMaxSide = 65536, kMaxPages = 100000;

// libtiff's messages go to the reader that asked, not to stderr: the first error is kept.
int keep_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* message = static_cast<std::string*>(user);
  if (message->empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, ap);
    *message = (module && *module ? std::string(module) + ": " : std::string()) + text;
  }
  return 1;
}
int ignore_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

struct OptionsFree {
  void operator()(TIFFOpenOptions* o) const { TIFFOpenOptionsFree(o); }
};

TiffHandle open(const std::filesystem::path& path, const char* mode, std::string& message) {
  std::unique_ptr<TIFFOpenOptions, OptionsFree> options(TIFFOpenOptionsAlloc());
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), keep_error, &message);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), ignore_warning, nullptr);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options.get(), static_cast<tmsize_t>(1) << 31);
  return TiffHandle(TIFFOpenExt(path.c_str(), mode, options.get()));
}

template <class T>
float sample_at(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<float>(v);
}

// Converts `count` samples of the page's format to float.
using Convert = float (*)(const unsigned char*);
Convert converter(int format, int bits) {
  if (format == SAMPLEFORMAT_UINT) {
    if (bits == 8) return sample_at<std::uint8_t>;
    if (bits == 16) return sample_at<std::uint16_t>;
    if (bits == 32) return sample_at<std::uint32_t>;
  } else if (format == SAMPLEFORMAT_INT) {
    if (bits == 8) return sample_at<std::int8_t>;
    if (bits == 16) return sample_at<std::int16_t>;
    if (bits == 32) return sample_at<std::int32_t>;
  } else if (format == SAMPLEFORMAT_IEEEFP) {
    if (bits == 32) return sample_at<float>;
    if (bits == 64) return sample_at<double>;
  }
  return nullptr;
}

class PageReader {
 public:
  PageReader(TIFF* t, const std::string& where, std::string& message) : t_(t), where_(where), message_(message) {}

  // Reads the current page into `out` (rows × cols floats); a tile buffer larger than
  // `max_buffer` bytes (what the file can decode to) is refused before it is allocated.
  void read(int rows, int cols, Convert convert, int bytes, std::uintmax_t max_buffer, float* out) {
    if (TIFFIsTiled(t_)) {
      std::uint32_t tw = 0, th = 0;
      TIFFGetField(t_, TIFFTAG_TILEWIDTH, &tw);
      TIFFGetField(t_, TIFFTAG_TILELENGTH, &th);
      if (tw < 1 || th < 1 || tw > kMaxSide || th > kMaxSide) fail("a tile size outside 1..65536");
      if (std::uintmax_t(tw) * th * bytes > max_buffer)
        fail(str_cat("tiles of ", tw, " x ", th, " samples (", byte_count(std::uintmax_t(tw) * th * bytes),
                     ") are more than the file can hold"));
      std::vector<unsigned char> tile(static_cast<std::size_t>(tw) * th * bytes);
      for (std::uint32_t y0 = 0; y0 < static_cast<std::uint32_t>(rows); y0 += th)
        for (std::uint32_t x0 = 0; x0 < static_cast<std::uint32_t>(cols); x0 += tw) {
          if (TIFFReadTile(t_, tile.data(), x0, y0, 0, 0) < 0) fail("a tile cannot be decoded");
          for (std::uint32_t y = y0; y < std::min<std::uint32_t>(y0 + th, rows); ++y)
            for (std::uint32_t x = x0; x < std::min<std::uint32_t>(x0 + tw, cols); ++x)
              out[static_cast<std::size_t>(y) * cols + x] =
                  convert(tile.data() + (static_cast<std::size_t>(y - y0) * tw + (x - x0)) * bytes);
        }
      return;
    }
    const tmsize_t line = TIFFScanlineSize(t_);
    if (line < static_cast<tmsize_t>(cols) * bytes) fail("scanlines shorter than the image width");
    std::vector<unsigned char> buf(static_cast<std::size_t>(line));
    for (int y = 0; y < rows; ++y) {
      if (TIFFReadScanline(t_, buf.data(), static_cast<std::uint32_t>(y), 0) < 0)
        fail(str_cat("row ", y, " cannot be decoded"));
      for (int x = 0; x < cols; ++x) out[static_cast<std::size_t>(y) * cols + x] = convert(buf.data() + x * bytes);
    }
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where_ + ": " + what + (message_.empty() ? "" : " (" + message_ + ")"));
  }

 private:
  TIFF* t_;
  std::string where_;
  std::string& message_;
};

}  // namespace

TiffStack read_tiff_stack(const std::filesystem::path& path) {
  const std::uintmax_t file_bytes = check_input_file(path, kMaxTiffBytes, "TIFF file");
  std::string message;
  TiffHandle t = open(path, "rm", message);  // "m": no memory mapping, reads stay bounded by the file
  if (!t) throw InputError("TIFF file '" + path.string() + "': not a TIFF libtiff can read" +
                           (message.empty() ? "" : " (" + message + ")"));
  // Decoded data beyond what any codec could expand the file to is refused before allocation.
  const std::uintmax_t max_decoded = 2048 * file_bytes + 64 * kMiB;
  TiffStack s;
  std::uintmax_t decoded = 0, stored = 0;  // all pages' samples; those of uncompressed pages
  do {
    const std::string where = str_cat("TIFF file '", path.string(), "', page ", s.pages);
    PageReader page(t.get(), where, message);
    std::uint32_t w = 0, h = 0;
    std::uint16_t spp = 1, bits = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE;
    if (!TIFFGetField(t.get(), TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(t.get(), TIFFTAG_IMAGELENGTH, &h))
      page.fail("no image size");
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_COMPRESSION, &compression);
    if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide)
      page.fail(str_cat("an image of ", w, " x ", h, " is outside 1..", kMaxSide, " on a side"));
    if (spp != 1) page.fail(str_cat(spp, " samples per pixel; projections are greyscale (1 sample)"));
    const Convert convert = converter(format, bits);
    if (!convert)
      page.fail(str_cat("sample format ", format, " with ", bits,
                        " bits is not one of 8/16/32-bit integers or 32/64-bit floats"));
    if (s.pages == 0) {
      s.rows = static_cast<int>(h);
      s.cols = static_cast<int>(w);
    } else if (static_cast<int>(h) != s.rows || static_cast<int>(w) != s.cols) {
      page.fail(str_cat("is ", w, " x ", h, " but page 0 is ", s.cols, " x ", s.rows, " (columns x rows)"));
    }
    if (s.pages >= kMaxPages) page.fail(str_cat("more than ", kMaxPages, " pages"));
    const std::size_t image = static_cast<std::size_t>(w) * h;
    decoded += image * (bits / 8);
    if (decoded > max_decoded)
      page.fail(str_cat("the pages declare ", byte_count(decoded), " of samples, more than a file of ",
                        byte_count(file_bytes), " can hold"));
    // Uncompressed samples are stored as they are: they cannot exceed the file itself.
    const bool raw = compression == COMPRESSION_NONE;
    if (raw) stored += image * (bits / 8);
    if (stored > file_bytes)
      page.fail(str_cat("the uncompressed pages declare ", byte_count(stored), " of samples, more than the file's ",
                        byte_count(file_bytes)));
    s.pixels.resize(s.pixels.size() + image);
    page.read(s.rows, s.cols, convert, bits / 8, raw ? file_bytes : max_decoded,
              s.pixels.data() + static_cast<std::size_t>(s.pages) * image);
    for (std::size_t i = 0; i < image; ++i) {
      const float v = s.pixels[static_cast<std::size_t>(s.pages) * image + i];
      if (!std::isfinite(v)) page.fail(str_cat("row ", i / w, ", column ", i % w, " is not finite (", v, ")"));
    }
    ++s.pages;
  } while (TIFFReadDirectory(t.get()));
  if (!message.empty() && s.pages == 0) throw InputError("TIFF file '" + path.string() + "': " + message);
  return s;
}

void write_tiff_stack(const std::filesystem::path& path, std::span<const float> pixels, int pages, int rows, int cols,
                      TiffSample sample) {
  const std::size_t image = static_cast<std::size_t>(rows) * cols;
  if (pages < 1 || rows < 1 || cols < 1 || pixels.size() != image * pages)
    throw Error(str_cat("write_tiff_stack: ", pixels.size(), " values for ", pages, " pages of ", rows, " x ", cols));
  const std::filesystem::path tmp = path.string() + ".partial";
  std::string message;
  {
    TiffHandle t = open(tmp, "w", message);
    if (!t) throw Error("cannot write " + tmp.string() + (message.empty() ? "" : ": " + message));
    const bool f32 = sample == TiffSample::float32;
    std::vector<std::uint16_t> line16(static_cast<std::size_t>(cols));
    for (int p = 0; p < pages; ++p) {
      TIFFSetField(t.get(), TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(cols));
      TIFFSetField(t.get(), TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(rows));
      TIFFSetField(t.get(), TIFFTAG_SAMPLESPERPIXEL, 1);
      TIFFSetField(t.get(), TIFFTAG_BITSPERSAMPLE, f32 ? 32 : 16);
      TIFFSetField(t.get(), TIFFTAG_SAMPLEFORMAT, f32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
      TIFFSetField(t.get(), TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
      TIFFSetField(t.get(), TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
      TIFFSetField(t.get(), TIFFTAG_ROWSPERSTRIP, static_cast<std::uint32_t>(rows));
      if (pages > 1) {
        TIFFSetField(t.get(), TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        TIFFSetField(t.get(), TIFFTAG_PAGENUMBER, static_cast<std::uint16_t>(p), static_cast<std::uint16_t>(pages));
      }
      for (int y = 0; y < rows; ++y) {
        const float* src = pixels.data() + p * image + static_cast<std::size_t>(y) * cols;
        void* line = const_cast<float*>(src);
        if (!f32) {
          for (int x = 0; x < cols; ++x)
            line16[x] = static_cast<std::uint16_t>(std::clamp(std::lround(src[x]), 0L, 65535L));
          line = line16.data();
        }
        if (TIFFWriteScanline(t.get(), line, static_cast<std::uint32_t>(y), 0) < 0)
          throw Error("cannot write " + tmp.string() + (message.empty() ? "" : ": " + message));
      }
      if (!TIFFWriteDirectory(t.get())) throw Error("cannot write " + tmp.string() + ": " + message);
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace tomo::io
