// The msr reader: blocks run from their keyword to the next keyword; every error names the
// file, the line and the token (notes: musrfit-facts.md, "msr file").
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/msr_checks.hpp"
#include "compute/musr/msr_line.hpp"
#include "compute/musr/msr_run_block.hpp"
#include "compute/musr/run_file.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

using namespace msr_line;

const char* const kBlocks[] = {"FITPARAMETER", "THEORY", "FUNCTIONS", "GLOBAL", "RUN",
                               "COMMANDS", "FOURIER", "PLOT", "STATISTIC"};

std::string block_keyword(const std::string& line) {
  for (const char* b : kBlocks) {
    std::string_view k(b);
    if (line.compare(0, k.size(), k) == 0 && (line.size() == k.size() || std::isspace(static_cast<unsigned char>(line[k.size()]))))
      return std::string(k);
  }
  return {};
}

void parse_parameter(const LineContext& c, const std::vector<std::string>& t, MsrFile& m) {
  if (t.size() != 4 && t.size() != 5 && t.size() != 7)
    c.fail("FITPARAMETER line has " + std::to_string(t.size()) +
           " tokens; expected 4, 5 or 7: <no> <name> <value> <step> [<pos_error|none>] [<lower|none> <upper|none>]");
  MsrParameter p;
  p.number = c.integer(t[0], "parameter number", 1);
  if (p.number != static_cast<int>(m.params.size()) + 1)
    c.fail("parameter number '" + t[0] + "' out of order (expected " + std::to_string(m.params.size() + 1) + ")");
  p.name = t[1];
  for (const auto& q : m.params)
    if (q.name == p.name) c.fail("parameter name '" + p.name + "' used twice");
  p.value = c.number(t[2], "value");
  p.step = c.number(t[3], "step");
  if (t.size() >= 5 && lower(t[4]) != "none") p.pos_error = c.number(t[4], "positive error");
  if (t.size() == 7) {
    if (lower(t[5]) != "none") p.lower = c.number(t[5], "lower boundary");
    if (lower(t[6]) != "none") p.upper = c.number(t[6], "upper boundary");
    if (p.lower && p.upper && *p.lower >= *p.upper)
      c.fail("lower boundary '" + t[5] + "' is not below upper boundary '" + t[6] + "'");
  }
  m.params.push_back(p);
}

TheoryArg parse_arg(const LineContext& c, const std::string& tok) {
  TheoryArg a;
  std::string l = lower(tok);
  if (l.starts_with("map")) {
    a.kind = TheoryArg::Kind::map;
    a.n = c.integer(tok.substr(3), "map index", 1);
  } else if (l.starts_with("fun")) {
    a.kind = TheoryArg::Kind::fun;
    a.n = c.integer(tok.substr(3), "function index", 1);
  } else {
    a.n = c.integer(tok, "THEORY argument (parameter number, mapX or funX)", 1);
  }
  return a;
}

TheoryFactor parse_user_fcn(const LineContext& c, const std::vector<std::string>& t) {
  if (t.size() < 3) c.fail("userFcn needs a library and a function name: userFcn <library> <ClassName> <arguments>");
  TheoryFactor f;
  f.fn = TheoryFn::constant;  // unused: f.user is set
  f.line = c.line();
  try {
    f.user = resolve_user_function(t[1], t[2], std::filesystem::path(c.where()).parent_path());
  } catch (const InputError& e) {
    c.fail(e.what());
  }
  for (std::size_t i = 3; i < t.size() && t[i][0] != '(' && t[i][0] != '#'; ++i) f.args.push_back(parse_arg(c, t[i]));
  if (const auto e = f.user->arity_error(f.args.size()); !e.empty()) c.fail("userFcn " + t[2] + " (" + f.user->where + ") " + e);
  return f;
}

void parse_theory(const LineContext& c, const std::vector<std::string>& t, MsrFile& m, bool& new_term) {
  if (t[0] == "+") {
    new_term = true;
    return;
  }
  if (lower(t[0]) == "userfcn") {  // userFcn <library> <ClassName> <args>: compute/musr/user_fcn.hpp
    if (new_term || m.theory.empty()) m.theory.emplace_back();
    new_term = false;
    m.theory.back().push_back(parse_user_fcn(c, t));
    return;
  }
  const auto* info = find_theory_function(t[0]);
  if (!info) c.fail("unknown THEORY function '" + t[0] + "'");
  TheoryFactor f;
  f.fn = info->fn;
  f.line = c.line();
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i][0] == '(' || t[i][0] == '#') break;  // the rest is a comment
    f.args.push_back(parse_arg(c, t[i]));
  }
  const int n = static_cast<int>(f.args.size());
  if (n < info->min_args || (info->max_args >= 0 && n > info->max_args))
    c.fail(std::string(info->name) + " takes " + std::to_string(info->min_args) +
           (info->max_args < 0 ? " or more" : info->max_args == info->min_args ? "" : " or " + std::to_string(info->max_args)) +
           " arguments, got " + std::to_string(n));
  if (new_term || m.theory.empty()) m.theory.emplace_back();
  new_term = false;
  m.theory.back().push_back(std::move(f));
}

// A STATISTIC line as musrfit saves it: "chisq = X, NDF = n, ..." or "maxLH = X, NDF = n, ...".
// The block is the result of an earlier fit, not an input: a line in another form is kept as
// text and not read.
void parse_statistic(const std::string& line, MsrStatistic& s) {
  auto number_after = [&](const std::string& key, double& v) {
    const auto k = line.find(key);
    if (k == std::string::npos) return false;
    const char* a = line.c_str() + k + key.size();
    char* end = nullptr;
    v = std::strtod(a, &end);
    return end != a && std::isfinite(v);
  };
  if (line.find("*** FIT DID NOT CONVERGE") != std::string::npos) {
    s.converged = false;
    return;
  }
  // musrfit's "expected chisq = …" / "expected maxLH = …" line (the statistic's expectation for
  // the fitted model) and the per-run lines follow the fit's own; they are not its result.
  const auto first = line.find_first_not_of(" \t");
  if (first != std::string::npos && line.compare(first, 8, "expected") == 0) return;
  double v = 0.0, ndf = 0.0;
  const bool ml = line.find("maxLH =") != std::string::npos;
  if (!number_after(ml ? "maxLH =" : "chisq =", v) || !number_after("NDF =", ndf)) return;
  if (!(ndf >= 0.0 && ndf < 2e9)) return;
  s.max_likelihood = ml;
  s.value = v;
  s.ndf = static_cast<int>(ndf);
}

void parse_function(const LineContext& c, const std::string& line, MsrFile& m) {
  auto eq = line.find('=');
  if (eq == std::string::npos) c.fail("FUNCTIONS line needs 'funN = expression'");
  auto lhs = split(line.substr(0, eq));
  if (lhs.size() != 1 || !lower(lhs[0]).starts_with("fun")) c.fail("FUNCTIONS: left side '" + line.substr(0, eq) + "' is not funN");
  MsrFunction f;
  f.number = c.integer(lhs[0].substr(3), "function number", 1);
  if (m.function(f.number)) c.fail("function '" + lhs[0] + "' defined twice");
  if (m.functions.size() >= kMaxFunctions) c.fail("more than " + std::to_string(kMaxFunctions) + " FUNCTIONS");
  f.text = line.substr(eq + 1);
  f.line = c.line();
  try {
    f.expr = parse_expression(f.text);
  } catch (const InputError& e) {
    c.fail(e.what());
  }
  m.functions.push_back(std::move(f));
}


}  // namespace

bool is_msr_block_line(const std::string& line) { return !block_keyword(line).empty(); }

std::vector<int> parse_histogram_list(const std::vector<std::string>& tokens, const std::string& where) {
  std::vector<int> out;
  for (const auto& tok : tokens) {
    auto dash = tok.find('-');
    LineContext c(where, 0);
    auto num = [&](const std::string& s) {
      int v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size() || v < 1)
        throw InputError(where + ": histogram '" + quoted_excerpt(tok) + "' is not a number ≥ 1 or a range a-b");
      return v;
    };
    if (dash == std::string::npos) {
      out.push_back(num(tok));
    } else {
      int a = num(tok.substr(0, dash)), b = num(tok.substr(dash + 1));
      if (b < a || b - a > 4096) throw InputError(where + ": histogram range '" + quoted_excerpt(tok) + "' is empty or too long");
      for (int h = a; h <= b; ++h) out.push_back(h);
    }
  }
  if (out.empty()) throw InputError(where + ": no histogram numbers");
  return out;
}

MsrFile parse_msr(const std::string& text, const std::string& where) {
  MsrFile m;
  std::istringstream is(text);
  std::string block;
  bool new_term = false;
  int lineno = 0;
  for (std::string line; std::getline(is, line);) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    m.lines.push_back(line);
    if (lineno == 1) {
      m.title = line;
      continue;
    }
    auto t = split(line);
    if (t.empty() || t[0][0] == '#') continue;
    LineContext c(where, lineno);
    if (auto kw = block_keyword(line); !kw.empty()) {
      block = kw;
      if (kw == "RUN") {
        if (t.size() < 5) c.fail("RUN needs <file> <beamline> <institute> <format>");
        MsrRun r;
        r.file = t[1];
        r.beamline = t[2];
        r.institute = t[3];
        r.format = upper(t[4]);
        r.line = lineno;
        // A format musrfit knows passes here; one tomoraster has no reader for is refused when read.
        if (run_format_extension(r.format, r.beamline).empty())
          c.fail("data format '" + t[4] + "' is not one musrfit knows");
        m.runs.push_back(r);
      } else if (kw == "STATISTIC") {
        m.statistic = MsrStatistic{};
        if (t.size() >= 3 && t[1] == "---") m.statistic->date = line.substr(line.find("---") + 3);
      } else if (t.size() > 1 && kw != "FOURIER" && kw != "PLOT") {
        c.fail("unexpected '" + t[1] + "' after " + kw);
      }
      continue;
    }
    if (block.empty()) c.fail("'" + t[0] + "' outside of any block");
    if (block == "GLOBAL" || block == "RUN") {  // `(…)` and `#…` to the end of the line are comments
      auto cut = std::find_if(t.begin() + 1, t.end(), [](const std::string& w) { return w[0] == '(' || w[0] == '#'; });
      t.erase(cut, t.end());
    }
    if (block == "FITPARAMETER") parse_parameter(c, t, m);
    else if (block == "THEORY") parse_theory(c, t, m, new_term);
    else if (block == "FUNCTIONS") parse_function(c, line, m);
    else if (block == "GLOBAL") {
      if (!parse_setting(c, t, m.global) && !parse_rrf_setting(c, t, m.rrf)) c.fail("unknown GLOBAL entry '" + t[0] + "'");
    } else if (block == "RUN") parse_run_line(c, t, m.runs.back());
    else if (block == "COMMANDS") {
      // `#` starts a comment; "STRATEGY=2" is STRATEGY (musrfit matches the keyword and reads a
      // value only as a second token).
      if (auto hash = std::find_if(t.begin() + 1, t.end(), [](const std::string& w) { return w[0] == '#'; }); hash != t.end())
        t.erase(hash, t.end());
      std::string cmd = upper(t[0]);
      if (const auto eq = cmd.find('='); eq != std::string::npos && eq > 0) cmd.erase(eq);
      static const char* const known[] = {"MIGRAD", "MINIMIZE", "SIMPLEX", "HESSE", "MINOS", "SAVE", "STRATEGY",
                                          "FIX", "RELEASE", "MAX_LIKELIHOOD", "SCALE_N0_BKG", "SET", "RESTORE",
                                          "PRINT_LEVEL", "CALL", "END", "CHI_SQUARE", "MACHINE_PRECISION"};
      if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return cmd == k; }))
        c.fail("unknown command '" + t[0] + "'");
      if (cmd == "SCALE_N0_BKG" && (t.size() != 2 || (upper(t[1]) != "TRUE" && upper(t[1]) != "FALSE")))
        c.fail("SCALE_N0_BKG takes TRUE or FALSE");
      std::string joined = cmd;
      for (std::size_t i = 1; i < t.size(); ++i) joined += " " + t[i];
      m.commands.push_back(joined);
    } else if (block == "STATISTIC") {
      parse_statistic(line, *m.statistic);
    }
    // FOURIER, PLOT: kept as text, not interpreted.
  }
  if (m.params.empty()) throw InputError(where + ": no FITPARAMETER block (or it is empty)");
  // GLOBAL defaults into each RUN where the RUN does not set them.
  for (auto& r : m.runs) {
    auto& s = r.settings;
    if (!s.fittype) s.fittype = m.global.fittype;
    if (s.data.empty()) s.data = m.global.data;
    if (s.t0.empty()) s.t0 = m.global.t0;
    if (!s.fit) s.fit = m.global.fit;
    if (!s.packing) s.packing = m.global.packing;
  }
  check_references(m, where);
  return m;
}

MsrFile read_msr(const std::filesystem::path& path) {
  const auto text = io::input_file_bytes(path, kMsrMaxBytes, "msr file");  // size checked before reading
  auto m = parse_msr(text, path.string());
  m.path = path;
  return m;
}

}  // namespace tomo::musr
