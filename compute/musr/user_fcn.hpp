// User functions: a THEORY factor written once, in a small C-like language (a `.fcn` file or a
// built-in text), lowered into the same expression program as the predefined functions, so
// that cpu, cuda (NVRTC) and gl-compute (GLSL) evaluate it, value and gradient, without ROOT.
//
//   # PUserFcn.fcn — musrfit's polynomial example
//   function PUserFcn(c0, c1, c2, c3) {
//     return c0 + c1*t + c2*t*t + c3*t*t*t;
//   }
//
// A body may call the predefined THEORY functions by their full names (`statGssKT(sigma)`,
// `TFieldCos(phase, nu)`, …), evaluated at t like a THEORY line.
//
// msr: `userFcn libPUserFcn PUserFcn 3 4 5 6` (musrfit's syntax) resolves, in this order, to
// the named function in the library token's file when it ends in `.fcn` (relative to the msr
// file), to `<ClassName>.fcn` beside the msr file, to the named function in `<library>.fcn`
// beside it (libX.so → libX.fcn: a ported library), then to the built-in of that name.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compute/musr/expression.hpp"

namespace tomo::musr {

// One expression of a user function body; names are resolved when parsed.
struct UserExpr {
  enum class Kind { number, time, arg, local, unary, binary, select, theory, abs, min, max } kind = Kind::number;
  double number = 0.0;    // number
  int ref = 0;            // arg: parameter position, local: `let` position (0-based)
  OpCode op = OpCode::add;  // unary / binary
  TheoryFn fn = TheoryFn::constant;  // theory: a predefined THEORY function of its args at t
  std::vector<std::unique_ptr<UserExpr>> args;  // select: cond (taken when ≥ 0), then, else
};

struct UserFunction {
  std::string name;
  std::string where;  // the file (or "built-in user function NAME") and line of its definition
  std::vector<std::string> params;
  std::vector<std::unique_ptr<UserExpr>> locals;  // the `let` values, in order
  std::unique_ptr<UserExpr> result;
  // A native built-in (compute/musr/bmw/): C++ that emits the function's nodes itself, e.g. sums
  // of tables the host computes per parameter set from data files, where no closed-form body
  // exists. `arity` says why an argument count is wrong ("" when it is fine); without it the
  // count must equal params.size().
  std::function<std::int32_t(ProgramBuilder&, std::span<const std::int32_t>, std::int32_t)> native;
  std::function<std::string(std::size_t)> arity;
  // "" or "takes N arguments, got M" (and the native function's own reasons).
  std::string arity_error(std::size_t args) const;
};

// Bounds: a `.fcn` file is read whole, and every nesting level (parentheses, calls, signs, and
// each operator of a chain such as a + b + c) is a recursion of parser, lowering and destructor.
inline constexpr std::uintmax_t kUserFcnMaxBytes = std::uintmax_t(1) << 20;
inline constexpr int kUserFcnMaxDepth = 1000;
inline constexpr std::size_t kUserFcnMaxStatements = 2000;
inline constexpr std::size_t kUserFcnMaxParams = 64;
inline constexpr std::size_t kUserFcnMaxFunctions = 256;

// Parses every `function` of a `.fcn` text; `where` names it in errors
// ("poly.fcn:LINE:COLUMN: ..."), thrown as InputError.
std::vector<std::shared_ptr<const UserFunction>> parse_user_functions(std::string_view text, const std::string& where);
// The file through the common input gate, then parse_user_functions.
std::vector<std::shared_ptr<const UserFunction>> read_user_functions(const std::filesystem::path& path);

// Built-in user functions: musrfit's examples and the BMW library functions that have a
// closed form (compute/musr/bmw/). nullptr when there is none of that name.
std::shared_ptr<const UserFunction> find_builtin_user_function(std::string_view name);
std::vector<std::string> builtin_user_function_names();

// The native built-in of that name (compute/musr/bmw/native_functions.cpp), given the msr
// file's folder for the data files it reads; nullptr when there is none.
std::shared_ptr<const UserFunction> find_native_user_function(std::string_view name, const std::filesystem::path& msr_dir);
std::vector<std::string> native_user_function_names();

// The function an msr `userFcn <library> <ClassName>` line names (order in the file comment);
// `msr_dir` is the msr file's folder. Throws InputError naming what was looked for.
std::shared_ptr<const UserFunction> resolve_user_function(const std::string& library, const std::string& class_name,
                                                          const std::filesystem::path& msr_dir);

// Emits f(args) at time node t into b; args.size() must equal f.params.size().
std::int32_t build_user_function(ProgramBuilder& b, const UserFunction& f, std::span<const std::int32_t> args,
                                 std::int32_t t);

// Evaluates every userFcn factor of every run at the msr's start values over the run's fit
// times (runs[i].t, in the order of msr.runs) and throws InputError naming the function's
// file and line, the run and the time where it is not finite: such a fit cannot start.
struct MsrFile;
struct RunBins;
void check_user_functions_finite(const MsrFile& msr, const std::vector<RunBins>& runs);

}  // namespace tomo::musr
