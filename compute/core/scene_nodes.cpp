// TOML node plumbing behind Scene: keys, setting values, showing them, JSON.
#include "compute/core/scene_nodes.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"

namespace tomo::scene_nodes {
namespace {

// An array index in a key: decimal digits only, small enough for any array a scene holds.
std::size_t parse_index(std::string_view key, std::string_view digits) {
  const bool ok = !digits.empty() && digits.size() <= 9 &&
                  std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!ok)
    throw InputError("malformed key '" + std::string(key) + "': index '" + std::string(digits) +
                     "' is not a whole number from 0 to 999999999");
  return static_cast<std::size_t>(std::stoul(std::string(digits)));
}

}  // namespace

std::vector<Segment> split_path(std::string_view key) {
  std::vector<Segment> out;
  std::string cur;
  for (std::size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    if (c == '.') {
      if (!cur.empty()) out.emplace_back(cur);
      cur.clear();
    } else if (c == '[') {
      if (!cur.empty()) out.emplace_back(cur);
      cur.clear();
      auto close = key.find(']', i);
      if (close == std::string_view::npos) throw InputError("malformed key '" + std::string(key) + "'");
      out.emplace_back(parse_index(key, key.substr(i + 1, close - i - 1)));
      i = close;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.emplace_back(cur);
  if (out.empty()) throw InputError("empty scene key");
  return out;
}

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date/time";
  }
}

// A value for an error message, through JSON: toml++ 3.3's own printer converts a negative
// logarithm to size_t (undefined behaviour, found by tests/fuzz) for floats below 1 in arrays.
std::string show(const toml::node& n) {
  std::string s;
  if (const double* d = n.is_floating_point() ? &n.as_floating_point()->get() : nullptr; d && !std::isfinite(*d))
    s = std::isnan(*d) ? "nan" : *d > 0 ? "inf" : "-inf";  // JSON would write null
  else
    s = to_json_node(n).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// Finds or creates the parent table of the last segment and stores `value` there.
void set_at(toml::table& root, const std::vector<Segment>& path, toml::node&& value, std::string_view key) {
  toml::node* cur = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (auto* name = std::get_if<std::string>(&path[i])) {
      auto* tbl = cur->as_table();
      if (!tbl) throw InputError("cannot set '" + std::string(key) + "': '" + *name + "' is inside a non-table");
      if (!tbl->contains(*name)) tbl->insert(*name, toml::table{});
      cur = tbl->get(*name);
    } else {
      auto* arr = cur->as_array();
      std::size_t idx = std::get<std::size_t>(path[i]);
      if (!arr || idx >= arr->size())
        throw InputError("cannot set '" + std::string(key) + "': index " + std::to_string(idx) + " does not exist");
      cur = arr->get(idx);
    }
  }
  const Segment& last = path.back();
  if (auto* name = std::get_if<std::string>(&last)) {
    auto* tbl = cur->as_table();
    if (!tbl) throw InputError("cannot set '" + std::string(key) + "': parent is not a table");
    value.visit([&](auto&& v) { tbl->insert_or_assign(*name, std::move(v)); });
  } else {
    auto* arr = cur->as_array();
    std::size_t idx = std::get<std::size_t>(last);
    if (!arr || idx >= arr->size()) throw InputError("cannot set '" + std::string(key) + "': no such element");
    value.visit([&](auto&& v) { arr->replace(arr->cbegin() + static_cast<std::ptrdiff_t>(idx), std::move(v)); });
  }
}

nlohmann::json to_json_node(const toml::node& n) {
  if (auto* t = n.as_table()) {
    nlohmann::json j = nlohmann::json::object();
    for (auto&& [k, v] : *t) j[std::string(k.str())] = to_json_node(v);
    return j;
  }
  if (auto* a = n.as_array()) {
    nlohmann::json j = nlohmann::json::array();
    for (auto&& v : *a) j.push_back(to_json_node(v));
    return j;
  }
  if (auto v = n.value<bool>(); v && n.is_boolean()) return *v;
  if (n.is_integer()) return *n.value<int64_t>();
  if (n.is_floating_point()) {
    double d = *n.value<double>();
    return std::isfinite(d) ? nlohmann::json(d) : nlohmann::json(nullptr);
  }
  if (n.is_string()) return *n.value<std::string>();
  return show(n);
}

void collect_keys(const toml::table& t, const std::string& prefix, std::vector<std::string>& out) {
  for (auto&& [k, v] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (auto* sub = v.as_table()) {
      collect_keys(*sub, key, out);
    } else if (auto* arr = v.as_array(); arr && arr->is_array_of_tables()) {
      for (std::size_t i = 0; i < arr->size(); ++i)
        collect_keys(*arr->get(i)->as_table(), key + "[" + std::to_string(i) + "]", out);
    } else {
      out.push_back(key);
    }
  }
}

}  // namespace tomo::scene_nodes
