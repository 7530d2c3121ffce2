// Seeds of the μSR data formats other than PSI-BIN (MUD, PSI-MDU, ROOT, NeXus; their entries are in
// entries.hpp): small files laid out as the formats' documentation describes.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/entries.hpp"
#include "tests/fuzz/hdf4_seed.hpp"

#ifdef TOMO_HAVE_HDF5
#include <hdf5.h>
#endif

namespace tomo::fuzz {

namespace musr_seed {

using Bytes = std::vector<std::uint8_t>;

inline void u32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
inline void str(Bytes& b, const std::string& s) {
  b.push_back(static_cast<std::uint8_t>(s.size()));
  b.push_back(static_cast<std::uint8_t>(s.size() >> 8));
  b.insert(b.end(), s.begin(), s.end());
}
// One MUD section: the 12-byte core, then `body`.
inline Bytes section(std::uint32_t id, std::uint32_t instance, const Bytes& body) {
  Bytes b;
  u32(b, static_cast<std::uint32_t>(12 + body.size()));
  u32(b, id);
  u32(b, instance);
  b.insert(b.end(), body.begin(), body.end());
  return b;
}
// A group section (count, member bytes, index) followed by its members.
inline Bytes group(std::uint32_t instance, const std::vector<std::pair<std::uint32_t, Bytes>>& members) {
  Bytes body, after, index;
  u32(body, static_cast<std::uint32_t>(members.size()));
  std::uint32_t offset = 0;
  for (const auto& [id, m] : members) {
    u32(index, offset);
    u32(index, id);
    u32(index, 0);
    offset += static_cast<std::uint32_t>(m.size());
    after.insert(after.end(), m.begin(), m.end());
  }
  u32(body, offset);
  body.insert(body.end(), index.begin(), index.end());
  Bytes b = section(0x01010003, instance, body);
  b.insert(b.end(), after.begin(), after.end());
  return b;
}

// A two-histogram TRIUMF run of 64 bins: histogram 1 packed (zero run, 1-byte and 2-byte runs),
// histogram 2 with fixed 4-byte bins.
inline Bytes mud_run() {
  Bytes desc;
  for (std::uint32_t v : {1u, 7u, 0u, 0u, 0u}) u32(desc, v);
  for (const char* s : {"seed run", "TRIUMF", "M20", "TD-muSR", "LAMPF", "", "sample", "", "MIDAS", "", "10.0(0.1)K", "100(1)G"}) str(desc, s);
  auto header = [](std::uint32_t bytes_per_bin) {
    Bytes h;
    for (std::uint32_t v : {0x02010002u, 0u, 64u, bytes_per_bin, 781250u, 0u, 5u, 8u, 63u, 1u, 4u, 0u}) u32(h, v);
    str(h, "F");
    return h;
  };
  Bytes packed;
  u32(packed, 0);
  for (std::uint8_t v : {5, 0, 0, 50, 0, 1}) packed.push_back(v);  // 5 zeros, then 50 one-byte bins
  for (int i = 0; i < 50; ++i) packed.push_back(static_cast<std::uint8_t>(i + 1));
  for (std::uint8_t v : {9, 0, 2}) packed.push_back(v);  // 9 two-byte bins
  for (int i = 0; i < 9; ++i) {
    packed.push_back(0x10);
    packed.push_back(0x01);
  }
  const std::uint32_t n = static_cast<std::uint32_t>(packed.size() - 4);
  for (int i = 0; i < 4; ++i) packed[i] = static_cast<std::uint8_t>(n >> (8 * i));
  Bytes fixed;
  u32(fixed, 256);
  for (std::uint32_t i = 0; i < 64; ++i) u32(fixed, 1000 - i);
  const Bytes hists = group(0x02010002, {{0x01020002, section(0x01020002, 1, header(0))},
                                          {0x01020003, section(0x01020003, 1, packed)},
                                          {0x01020002, section(0x01020002, 2, header(4))},
                                          {0x01020003, section(0x01020003, 2, fixed)}});
  Bytes file = group(0x02010000, {{0x01020001, section(0x01020001, 1, desc)}, {0x01010003, hists}});
  const Bytes eof = section(0x01010004, 0, {});
  file.insert(file.end(), eof.begin(), eof.end());
  return file;
}

// ROOT's big-endian object streaming, enough for a MusrRoot seed: objects behind pointers
// carry a byte count and a class tag (the class name the first time, then a reference to the
// tag's offset displaced by the key's length).
class RootObjects {
 public:
  explicit RootObjects(std::uint32_t key_bytes) : key_bytes_(key_bytes) {}
  Bytes b;
  void be16(std::uint16_t v) {
    b.push_back(static_cast<std::uint8_t>(v >> 8));
    b.push_back(static_cast<std::uint8_t>(v));
  }
  void be32(std::uint32_t v) {
    for (int i = 3; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void tstring(const std::string& s) {
    b.push_back(static_cast<std::uint8_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
  // A byte count, then `body`.
  template <class F>
  void counted(F&& body) {
    const std::size_t at = b.size();
    be32(0);
    body();
    const std::uint32_t n = static_cast<std::uint32_t>(b.size() - at - 4) | 0x40000000u;
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(n >> (8 * (3 - i)));
  }
  template <class F>
  void versioned(std::uint16_t v, F&& body) {
    counted([&] {
      be16(v);
      body();
    });
  }
  void tobject() {
    be16(1);
    be32(0);
    be32(0x03000000);
  }
  void tnamed(const std::string& name) {
    versioned(1, [&] {
      tobject();
      tstring(name);
      tstring("");
    });
  }
  template <class F>
  void pointer(const std::string& cls, F&& body) {
    counted([&] {
      for (const auto& [c, off] : classes_)
        if (c == cls) {
          be32(0x80000000u | off);
          body();
          return;
        }
      classes_.emplace_back(cls, static_cast<std::uint32_t>(b.size()) + key_bytes_ + 2);
      be32(0xFFFFFFFFu);
      b.insert(b.end(), cls.begin(), cls.end());
      b.push_back(0);
      body();
    });
  }
  template <class F>
  void list(F&& entries) {
    pointer("TList", [&] {
      versioned(5, [&] {
        tobject();
        tstring("");
        const std::size_t count_at = b.size();
        be32(0);
        const std::uint32_t n = entries();
        for (int i = 0; i < 4; ++i) b[count_at + i] = static_cast<std::uint8_t>(n >> (8 * (3 - i)));
      });
    });
  }
  template <class F>
  void folder(const std::string& name, F&& entries) {
    versioned(1, [&] {
      tnamed(name);
      list(entries);
      b.push_back(0);  // fIsOwner
    });
  }

 private:
  std::uint32_t key_bytes_;
  std::vector<std::pair<std::string, std::uint32_t>> classes_;
};

// A MusrRoot run of two 12-bin histograms, its objects stored uncompressed.
inline Bytes root_run() {
  const auto key_bytes = [](const std::string& name) { return static_cast<std::uint32_t>(18 + 8 + 8 + 1 + name.size() + 1); };
  RootObjects header(key_bytes("RunHeader"));
  header.folder("RunHeader", [&] {
    auto array = [&](const std::string& name, const std::vector<std::string>& entries) {
      header.pointer("TObjArray", [&] {
        header.versioned(3, [&] {
          header.tobject();
          header.tstring(name);
          header.be32(static_cast<std::uint32_t>(entries.size()));
          header.be32(0);
          for (const auto& e : entries)
            header.pointer("TObjString", [&] {
              header.versioned(1, [&] {
                header.tobject();
                header.tstring(e);
              });
            });
        });
      });
      header.tstring("");  // list option
    };
    array("RunInfo", {"006 - Run Number: 7 -@1", "020 - No of Histos: 2 -@1", "021 - Time Resolution: 0.1953125 ns -@3",
                      "018 - Sample Temperature: 5 +- 0.1 K -@3"});
    array("Detector001", {"026 - Time Zero Bin: 2.000000 -@2", "027 - First Good Bin: 3 -@1", "028 - Last Good Bin: 11 -@1"});
    array("Detector002", {"026 - Time Zero Bin: 3.000000 -@2"});
    return 3u;
  });
  RootObjects histos(key_bytes("histos"));
  histos.folder("histos", [&] {
    for (int h = 1; h <= 2; ++h) {
      histos.pointer("TH1F", [&] {
        histos.versioned(1, [&] {
          histos.versioned(6, [&] { histos.tnamed("hDecay00" + std::to_string(h)); });
          histos.be32(14);  // cells: underflow, 12 bins, overflow
          for (int i = 0; i < 14; ++i) {
            const float v = static_cast<float>(i == 0 || i == 13 ? 0 : 100 * h + i);
            std::uint32_t u;
            std::memcpy(&u, &v, 4);
            histos.be32(u);
          }
        });
      });
      histos.tstring("");
    }
    return 2u;
  });
  Bytes file(100, 0);
  const char magic[] = "root";
  std::copy(magic, magic + 4, file.begin());
  auto put = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) file[at + i] = static_cast<std::uint8_t>(v >> (8 * (3 - i)));
  };
  put(4, 61206);
  put(8, 100);
  for (auto [name, obj] : {std::pair<std::string, const Bytes*>{"RunHeader", &header.b}, {"histos", &histos.b}}) {
    RootObjects key(0);
    const std::uint32_t kb = key_bytes(name);
    key.be32(static_cast<std::uint32_t>(kb + obj->size()));
    key.be16(4);
    key.be32(static_cast<std::uint32_t>(obj->size()));
    key.be32(0);
    key.be16(static_cast<std::uint16_t>(kb));
    key.be16(1);
    key.be32(static_cast<std::uint32_t>(file.size()));
    key.be32(100);
    key.tstring("TFolder");
    key.tstring(name);
    key.tstring("");
    file.insert(file.end(), key.b.begin(), key.b.end());
    file.insert(file.end(), obj->begin(), obj->end());
  }
  put(12, static_cast<std::uint32_t>(file.size()));
  return file;
}

#ifdef TOMO_HAVE_HDF5
// An ISIS NeXus definition-2 run of two 50-bin spectra, written with libhdf5.
inline Bytes nexus_run() {
  const auto path = std::filesystem::temp_directory_path() / ("tomo-fuzz-nexus-" + std::to_string(::getpid()) + ".nxs");
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  auto group = [&](const char* name) { H5Gclose(H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)); };
  group("/raw_data_1");
  group("/raw_data_1/instrument");
  group("/raw_data_1/instrument/detector_1");
  auto ints = [&](const char* name, std::vector<hsize_t> dims, const std::vector<std::int32_t>& v) {
    const hid_t sp = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t ds = H5Dcreate2(f, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(ds);
    H5Sclose(sp);
  };
  ints("/raw_data_1/idf_version", {1}, {2});
  ints("/raw_data_1/run_number", {1}, {17});
  std::vector<std::int32_t> counts(100);
  for (int i = 0; i < 100; ++i) counts[i] = 1000 - 9 * (i % 50) + i / 50;
  ints("/raw_data_1/instrument/detector_1/counts", {2, 50}, counts);
  ints("/raw_data_1/instrument/detector_1/time_zero_bin", {2}, {3, 4});
  ints("/raw_data_1/instrument/detector_1/first_good_bin", {1}, {6});
  ints("/raw_data_1/instrument/detector_1/last_good_bin", {2}, {49, 50});
  const hsize_t one = 1;
  const hid_t sp = H5Screate_simple(1, &one, nullptr);
  const hid_t ds = H5Dcreate2(f, "/raw_data_1/instrument/detector_1/histogram_resolution", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const float res = 16.0f;
  H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &res);
  const hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, 11);
  const hid_t as = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(ds, "units", st, as, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, st, "nano.second");
  H5Aclose(a);
  H5Sclose(as);
  H5Tclose(st);
  H5Dclose(ds);
  H5Sclose(sp);
  H5Fclose(f);
  std::ifstream in(path, std::ios::binary);
  Bytes b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::filesystem::remove(path);
  return b;
}
#endif

// x-y data: small texts in each layout musrfit reads (ASCII with a header; DB in rows and
// labelled; DAT with value, error and a dropped NegErr column).
// A PSI-MDU TDC (T4) run: the 512-byte header, settings and statistics records, then 16 tag
// records, the first two positron histograms of 8 bins with their counts.
inline Bytes mdu_run() {
  Bytes b(512 + 1012 + 200, 0);
  auto put = [&b](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  b[0] = 'T';
  b[1] = '4';
  put(44, 153);
  std::memcpy(&b[52], "sample    5.0 K     7 T", 23);
  put(176, 1);  // HistoResolution
  for (auto [at, v] : {std::pair{496, 512u}, {500, 1012u}, {504, 60u}, {508, 200u}}) put(static_cast<std::size_t>(at), v);
  put(512 + 36, 25);  // TDC resolution code: 25 ps
  for (int t = 0; t < 16; ++t) {
    const std::size_t at = b.size();
    b.resize(at + 60, 0);
    std::memcpy(&b[at], t == 0 ? "Forw" : "Back", 4);
    b[at + 12] = t < 2 ? 'P' : 'N';
    for (auto [off, v] : {std::pair{40, 0u}, {44, 7u}, {48, 1u}, {52, 2u}, {56, 7u}}) put(at + static_cast<std::size_t>(off), v);
    if (t < 2)
      for (std::uint32_t j = 0; j < 8; ++j) u32(b, 100 * (t + 1) + j);
  }
  return b;
}

inline Bytes text_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }
inline Bytes ascii_xy() {
  return text_bytes("# comment\nHEADER\nTITLE: t\nX-AXIS-TITLE: T (K)\nFIELD: 100\nDATA\n0.5, 7.7, 0.2\n1.0\t7.5\n1.5 7.1 0.1\n");
}
inline Bytes db_rows() {
  return text_bytes("TITLE\nfake\n\nLABELS\nA\nB\nrun\n\nDATA a, b, run\n1.5, 0.1, 0.2,  7, , ,  1001, , , r1\n"
                    "2.5, 0.3, 0.3,  8, 0.5, ,  1002, , , r2\n");
}
inline Bytes db_labelled() {
  return text_bytes("TITLE\nt\nLABELS\nE\nB\nRUN\nData e b RUN\n\\-e\ne = 2, 0, 0,\\\nb = 94.3, 0.04, 0.04,\\\n10,,, x\n"
                    "e = 5, 0, 0,\\\nb = 93.6, 0.04, 0.04,\\\n11,,, y\n");
}
inline Bytes dat_table() {
  return text_bytes("dataT dataTErr dataE Asym AsymPosErr AsymNegErr\n260 0.006 6.99 0.073 0.0012 0.0011\n"
                    "260 0.005 8.99 0.061 0.0011 0.0011\n");
}
inline Bytes rge_startup() {
  return text_bytes("<depthProf>\n<trim_sp>\n<data_path>./</data_path>\n<rge_fln_pre>fuzz_E</rge_fln_pre>\n"
                    "<energy_vect start=\"1000\" stop=\"2000\" step=\"1000\"/>\n</trim_sp>\n</depthProf>\n");
}
inline Bytes bmw_startup() {
  return text_bytes("<BMW>\n<delta_t>0.01</delta_t>\n<delta_B>0.1</delta_B>\n<LEM>\n<data_path>./fuzz_E</data_path>\n"
                    "<energy_label>1</energy_label>\n<energy>1.0</energy>\n<N_theory>100</N_theory>\n</LEM>\n"
                    "<VortexLattice>\n<N_VortexGrid>64</N_VortexGrid>\n</VortexLattice>\n</BMW>\n");
}
inline Bytes nonlocal_startup() {  // PNL_PippardFitter's nonlocal_startup.xml
  return text_bytes("<nonlocal>\n<nonlocal_par>\n<fourier_points>4096</fourier_points>\n</nonlocal_par>\n<trim_sp>\n"
                    "<data_path>./</data_path>\n<rge_fln_pre>fuzz_E</rge_fln_pre>\n<energy_list>\n<energy>1000</energy>\n"
                    "</energy_list>\n</trim_sp>\n</nonlocal>\n");
}
inline Bytes rge_profile() { return text_bytes("DEPTH PARTICLES\n10.0 5\n20.0 40\n30.0 12\n40.0 0\n"); }

}  // namespace musr_seed

inline void add_musr_format_seeds(std::map<std::string, std::vector<std::vector<std::uint8_t>>>& out) {
  out["musr_ascii"].push_back(musr_seed::ascii_xy());
  out["musr_db"].push_back(musr_seed::db_rows());
  out["musr_db"].push_back(musr_seed::db_labelled());
  out["musr_dat"].push_back(musr_seed::dat_table());
  out["musr_rge"].push_back(musr_seed::rge_startup());
  out["musr_rge"].push_back(musr_seed::rge_profile());
  out["musr_rge"].push_back(musr_seed::bmw_startup());
  out["musr_rge"].push_back(musr_seed::nonlocal_startup());
  out["musr_mud"].push_back(musr_seed::mud_run());
  out["musr_mdu"].push_back(musr_seed::mdu_run());
  out["musr_root"].push_back(musr_seed::root_run());
#ifdef TOMO_HAVE_HDF5
  out["musr_nexus"].push_back(musr_seed::nexus_run());
  if (auto hdf4 = musr_seed::nexus_hdf4_run(); !hdf4.empty()) out["musr_nexus"].push_back(std::move(hdf4));
#endif
}

}  // namespace tomo::fuzz
