// Lowering of user functions into an expression program, and the lookup an msr `userFcn`
// line goes through (compute/musr/user_fcn.hpp).
#include "compute/musr/user_fcn.hpp"

#include <cmath>
#include <sstream>
#include <system_error>

#include "compute/core/error.hpp"
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/msr.hpp"

namespace tomo::musr {
namespace {

std::int32_t lower(const UserExpr& e, ProgramBuilder& b, std::span<const std::int32_t> args,
                   const std::vector<std::int32_t>& locals, std::int32_t t) {
  auto sub = [&](std::size_t i) { return lower(*e.args.at(i), b, args, locals, t); };
  switch (e.kind) {
    case UserExpr::Kind::number: return b.constant(e.number);
    case UserExpr::Kind::time: return t;
    case UserExpr::Kind::arg: return args[static_cast<std::size_t>(e.ref)];
    case UserExpr::Kind::local: return locals.at(static_cast<std::size_t>(e.ref));
    case UserExpr::Kind::unary: return b.unary(e.op, sub(0));
    case UserExpr::Kind::binary: {
      const auto a = sub(0);
      return b.binary(e.op, a, sub(1));
    }
    case UserExpr::Kind::theory: {
      std::vector<std::int32_t> a;
      for (std::size_t i = 0; i < e.args.size(); ++i) a.push_back(sub(i));
      return build_theory_function(b, e.fn, a, t);
    }
    case UserExpr::Kind::abs: {  // x ≥ 0 ? x : −x
      const auto x = sub(0);
      return b.select(x, x, b.unary(OpCode::neg, x));
    }
    case UserExpr::Kind::min:
    case UserExpr::Kind::max: {  // min: y − x ≥ 0 ? x : y; max: x − y ≥ 0 ? x : y
      const auto x = sub(0);
      const auto y = sub(1);
      return b.select(e.kind == UserExpr::Kind::min ? b.sub(y, x) : b.sub(x, y), x, y);
    }
    case UserExpr::Kind::select: {
      const auto c = sub(0);
      const auto x = sub(1);
      return b.select(c, x, sub(2));
    }
  }
  throw Error("musr: unhandled user expression kind");
}

bool ends_with_fcn(const std::string& s) { return s.size() > 4 && s.compare(s.size() - 4, 4, ".fcn") == 0; }

std::shared_ptr<const UserFunction> named(const std::vector<std::shared_ptr<const UserFunction>>& fs,
                                          const std::string& name, const std::filesystem::path& file) {
  for (const auto& f : fs)
    if (f->name == name) return f;
  std::string have;
  for (const auto& f : fs) have += (have.empty() ? "" : ", ") + f->name;
  throw InputError(file.string() + ": no function '" + name + "' (the file defines " + have + ")");
}

}  // namespace

std::string UserFunction::arity_error(std::size_t args) const {
  if (arity) return arity(args);
  if (args == params.size()) return {};
  return "takes " + std::to_string(params.size()) + (params.size() == 1 ? " argument" : " arguments") + ", got " +
         std::to_string(args);
}

std::int32_t build_user_function(ProgramBuilder& b, const UserFunction& f, std::span<const std::int32_t> args,
                                 std::int32_t t) {
  if (const auto e = f.arity_error(args.size()); !e.empty()) throw InputError(f.where + ": user function " + f.name + " " + e);
  if (f.native) return f.native(b, args, t);
  std::vector<std::int32_t> locals;
  locals.reserve(f.locals.size());
  for (const auto& l : f.locals) locals.push_back(lower(*l, b, args, locals, t));
  return lower(*f.result, b, args, locals, t);
}

std::shared_ptr<const UserFunction> resolve_user_function(const std::string& library, const std::string& class_name,
                                                          const std::filesystem::path& msr_dir) {
  if (ends_with_fcn(library)) {
    const auto file = msr_dir / library;
    return named(read_user_functions(file), class_name, file);
  }
  const auto beside = msr_dir / (class_name + ".fcn");
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return named(read_user_functions(beside), class_name, beside);
  // A whole library ported into one file: libBNMR.so → libBNMR.fcn beside the msr file.
  const auto stem = std::filesystem::path(library).filename().replace_extension(".fcn");
  const auto library_file = msr_dir / stem;
  if (!stem.empty() && stem != ".fcn" && std::filesystem::exists(library_file, ec))
    return named(read_user_functions(library_file), class_name, library_file);
  if (auto f = find_native_user_function(class_name, msr_dir)) return f;
  if (auto f = find_builtin_user_function(class_name)) return f;
  std::string names;
  for (const auto& n : builtin_user_function_names()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("userFcn '" + class_name + "' (" + library + ") not found: no " + beside.string() + ", no " +
                   library_file.string() + " and no built-in of that name (built-ins: " + names + ")");
}

void check_user_functions_finite(const MsrFile& msr, const std::vector<RunBins>& runs) {
  std::vector<double> start;
  for (const auto& p : msr.params) start.push_back(p.value);
  for (std::size_t r = 0; r < msr.runs.size() && r < runs.size(); ++r)
    for (const auto& term : msr.theory)
      for (const auto& f : term) {
        if (!f.user) continue;
        MsrFile one = msr;  // the factor alone, its arguments resolved as in the run's theory
        one.theory = {{f}};
        ProgramBuilder b(static_cast<int>(start.size()));
        register_fixed_parameters(msr, b);  // as the fit's programs: native functions fold them
        const Program p = b.finish(build_theory(one, msr.runs[r], b));
        ProgramEvaluator ev(p);
        ev.prepare(start, false);
        for (double t : runs[r].t) {
          const double v = ev.value(t);
          if (std::isfinite(v)) continue;
          std::ostringstream os;
          os.precision(6);
          os << f.user->where << ": user function " << f.user->name << " is " << v << " at t = " << t
             << " µs of RUN " << r + 1 << " (msr line " << f.line << ") with the start values of FITPARAMETER";
          throw InputError(os.str());
        }
      }
}

}  // namespace tomo::musr
