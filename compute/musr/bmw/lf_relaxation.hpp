// libLFRelaxation's classes (BMW's library of longitudinal-field Kubo–Toyabe functions) as
// built-in user functions: each is musrfit's predefined function of the same physics with the
// same arguments in the same units, so it runs from the same tables on every backend.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tomo::musr {

struct UserFunction;

// nullptr when `name` is not one of the library's classes mapped here.
std::shared_ptr<const UserFunction> find_lf_relaxation_function(std::string_view name);
std::vector<std::string> lf_relaxation_function_names();

}  // namespace tomo::musr
