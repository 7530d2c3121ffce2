// The TOML node plumbing behind Scene (compute/core/scene.cpp): dotted keys with array
// indices, setting a value at a key, showing a value in a message, JSON of a node, key lists.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

namespace tomo::scene_nodes {

using Segment = std::variant<std::string, std::size_t>;

// "a.b[2].c" → {"a", "b", 2, "c"}; a malformed key or index is an InputError naming it.
std::vector<Segment> split_path(std::string_view key);
// "an integer", "a table", … for messages.
const char* type_name(const toml::node& n);
// A value for an error message (shortened to 40 characters).
std::string show(const toml::node& n);
// Finds or creates the parent table of the last segment and stores `value` there.
void set_at(toml::table& root, const std::vector<Segment>& path, toml::node&& value, std::string_view key);
nlohmann::json to_json_node(const toml::node& n);
// Every leaf key under `t` ("a.b", "c[1].d").
void collect_keys(const toml::table& t, const std::string& prefix, std::vector<std::string>& out);

}  // namespace tomo::scene_nodes
