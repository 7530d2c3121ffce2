// musrfit's msr file: the blocks we support (FITPARAMETER, THEORY, FUNCTIONS, GLOBAL, RUN,
// COMMANDS; fittypes 0 to 5), read with errors naming line and token, written back after a fit.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute/musr/expression.hpp"

namespace tomo::musr {

struct MsrParameter {
  int number = 0;  // 1-based, as written
  std::string name;
  double value = 0.0;
  double step = 0.0;  // 0 = fixed; after a fit: the (negative MINOS) error
  std::optional<double> pos_error;  // after MINOS
  std::optional<double> lower, upper;
  bool fixed() const { return step == 0.0; }
};

// One THEORY argument: parameter N, mapX (the RUN's map entry), or funX.
struct TheoryArg {
  enum class Kind { param, map, fun } kind = Kind::param;
  int n = 0;  // 1-based
};
struct UserFunction;  // compute/musr/user_fcn.hpp
struct TheoryFactor {
  TheoryFn fn;
  std::shared_ptr<const UserFunction> user;  // `userFcn` lines: the resolved user function (fn unused)
  std::vector<TheoryArg> args;
  int line = 0;
};
// THEORY: consecutive lines multiply, a `+` line starts a new additive term.
using TheoryTerm = std::vector<TheoryFactor>;

struct MsrFunction {
  int number = 0;  // funN
  std::string text;
  std::shared_ptr<const Expr> expr;
  int line = 0;
};

// A parameter-or-function reference (norm may be funX).
struct ParamRef {
  bool is_fun = false;
  int n = 0;  // 1-based; 0 = not set
  bool set() const { return n > 0; }
};

// Fit range: in µs relative to t0, or in bins as `fgb+n0 lgb-n1`.
struct FitRange {
  bool in_bins = false;
  double start = 0.0, end = 0.0;  // µs
  int start_offset = 0, end_offset = 0;  // bins: fgb + start_offset, lgb − end_offset
};

// Settings a RUN block may give (GLOBAL gives defaults for the same keys).
struct RunSettings {
  std::optional<int> fittype;
  std::vector<int> data;        // fgb lgb (asymmetry: forward fgb lgb [backward fgb lgb])
  std::vector<double> t0;       // per histogram of the group(s)
  std::optional<FitRange> fit;
  std::optional<int> packing;
};

// GLOBAL's rotating reference frame (fittypes 1 and 3): `rrf_freq <value> <MHz|Mc|T>`,
// `rrf_packing <n>`, `rrf_phase <degrees>`.
struct MsrRrf {
  std::optional<double> freq;  // as written, in `unit`
  std::string unit;            // "MHz", "Mc" (rad/µs) or "T", as musrfit spells them
  std::optional<int> packing;
  double phase = 0.0;  // degrees
  // ω_RRF in rad/µs (musrfit's GetRRFFreq("Mc")): 2π·ν[MHz], or 2π·γ_μ/2π·B[G] from Tesla.
  double omega() const;
};

// An ADDRUN line of a RUN block: a run whose histograms are added to the RUN's (t0-aligned).
struct MsrAddRun {
  std::string file, beamline, institute, format;
  int line = 0;
};

struct MsrRun {
  std::string file;  // without extension, as written
  std::string beamline, institute, format;
  RunSettings settings;
  ParamRef norm;
  int backgr_fit = 0;                 // parameter number, 0 = none
  std::vector<double> backgr_fix;     // fixed background(s)
  int lifetime = 0;                   // parameter number, 0 = the muon lifetime
  bool lifetime_correction = false;   // plot only
  std::vector<int> map;               // parameter numbers (0 = unused)
  std::vector<int> forward, backward; // histogram numbers (1-based, file order)
  std::vector<int> background;        // bin ranges: start end [start end]
  std::vector<MsrAddRun> addruns;      // ADDRUN lines, in order
  std::vector<std::vector<double>> addt0;  // addt0 lines: per ADDRUN, its t0 list (as `t0`)
  int alpha = 0, beta = 0;            // asymmetry: parameter N (> 0), funN (−N), 0 = 1.0
  std::vector<std::string> xy_data;   // fittype 8: the x and y column (1-based number or tag)
  int line = 0;
  int fittype() const { return settings.fittype.value_or(0); }
};

struct MsrStatistic {
  bool max_likelihood = false;
  double value = 0.0;
  int ndf = 0;
  std::string date;
  bool converged = true;  // false: written (and read) as musrfit's "*** FIT DID NOT CONVERGE ***"
};

struct MsrFile {
  std::filesystem::path path;  // where it was read from (data files are looked up beside it)
  std::string title;
  std::vector<MsrParameter> params;
  std::vector<TheoryTerm> theory;
  std::vector<MsrFunction> functions;
  RunSettings global;
  MsrRrf rrf;  // GLOBAL's rrf_freq / rrf_packing / rrf_phase
  std::vector<MsrRun> runs;
  std::vector<std::string> commands;  // COMMANDS lines, trimmed
  std::optional<MsrStatistic> statistic;
  std::vector<std::string> lines;     // the text as read (for writing back)

  // COMMANDS flags.
  bool max_likelihood() const;
  bool scale_n0_bkg() const;  // default TRUE
  bool minos() const;
  const MsrFunction* function(int n) const;
};

// Parses msr text; `where` names it in errors ("file.msr"). Errors: InputError
// "file.msr:LINE: ... 'TOKEN' ...".
MsrFile parse_msr(const std::string& text, const std::string& where);
// The file through the common input gate (a regular file of at most kMsrMaxBytes), then parse_msr.
// FUNCTIONS bounds: how many lines, and how deep funN may refer to funM to funK … (each level
// is a recursion of the lowering).
inline constexpr std::size_t kMaxFunctions = 1000;
inline constexpr std::size_t kMaxFunctionChain = 100;
inline constexpr std::uintmax_t kMsrMaxBytes = std::uintmax_t(64) << 20;
MsrFile read_msr(const std::filesystem::path& path);

// The msr text after a fit, as musrfit writes it: the FITPARAMETER block with the new
// values, errors (step, negative when MINOS ran) and positive MINOS errors, and a
// STATISTIC block replacing any old one. Other blocks are kept as read.
std::string format_msr(const MsrFile& msr, const std::vector<MsrParameter>& fitted, const MsrStatistic& stat);

// True for a line that starts an msr block (FITPARAMETER, THEORY, …, STATISTIC).
bool is_msr_block_line(const std::string& line);

// Expands "1-16" and "3 5 7" histogram lists (1-based).
std::vector<int> parse_histogram_list(const std::vector<std::string>& tokens, const std::string& where);

}  // namespace tomo::musr
