#include "config/overrides.hpp"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "config/settings_registry.hpp"
#include "config/suggest.hpp"

namespace rapidllm::config {

namespace {

struct Segment {
  std::string key;                  // a mapping key, or
  std::optional<std::size_t> index; // a list index ("dimensions[0]")
};

struct ParsedOverride {
  std::vector<Segment> segments;
  std::string value;
};

[[noreturn]] void fail(const std::string& text, const std::string& path, const std::string& problem,
                       const std::string& hint) {
  throw ConfigError(SourceLocation{{}, 0, 0, text}, path, problem, hint);
}

ParsedOverride parse(const std::string& text) {
  const std::string usage = "write --set key.path=value, e.g. --set parallelism.tp=8";
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) fail(text, "", "expected key.path=value", usage);
  ParsedOverride out;
  out.value = text.substr(eq + 1);
  if (out.value.empty()) fail(text, text.substr(0, eq), "the value after '=' is empty", usage);
  std::string path = text.substr(0, eq);
  std::size_t pos = 0;
  while (pos < path.size()) {
    std::size_t end = path.find_first_of(".[", pos);
    std::string key = path.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (key.empty()) fail(text, path, "empty key in the path", usage);
    out.segments.push_back({key, std::nullopt});
    pos = end;
    while (pos != std::string::npos && pos < path.size() && path[pos] == '[') {
      std::size_t close = path.find(']', pos);
      std::size_t index = 0;
      auto [ptr, ec] = std::from_chars(path.data() + pos + 1, path.data() + (close == std::string::npos ? pos + 1 : close), index);
      if (close == std::string::npos || ec != std::errc() || ptr != path.data() + close) {
        fail(text, path, "a list index must look like [0]", "e.g. network.dimensions[1].topology.bandwidth=50GB/s");
      }
      out.segments.push_back({"", index});
      pos = close + 1;
    }
    if (pos != std::string::npos && pos < path.size()) {
      if (path[pos] != '.') fail(text, path, "unexpected character in the key path", usage);
      ++pos;
    }
    if (pos == std::string::npos) break;
  }
  return out;
}

std::string join_path(const std::vector<Segment>& segments, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (segments[i].index) {
      out += fmt::format("[{}]", *segments[i].index);
    } else {
      out += (out.empty() ? "" : ".") + segments[i].key;
    }
  }
  return out;
}

// Walks the registry along the path; returns the leaf pattern or fails with a suggestion.
std::string resolve_pattern(const std::string& text, const ParsedOverride& o) {
  std::string pattern;
  for (std::size_t i = 0; i < o.segments.size(); ++i) {
    const Segment& seg = o.segments[i];
    if (seg.index) {
      if (!is_section(pattern + "[]")) fail(text, join_path(o.segments, i + 1), "this key is not a list", "drop the [index]");
      pattern += "[]";
      continue;
    }
    auto child = child_pattern(pattern, seg.key);
    if (!child && i > 0 && find_setting(pattern) != nullptr) {
      fail(text, join_path(o.segments, i + 1),
           fmt::format("'{}' is a single setting, with no keys below it", join_path(o.segments, i)),
           fmt::format("set it directly: --set {}=<value>", join_path(o.segments, i)));
    }
    if (!child) {
      std::vector<std::string_view> names;
      for (auto n : child_names(pattern)) {
        if (n.front() != '<') names.push_back(n);
      }
      fail(text, join_path(o.segments, i + 1), "unknown key", suggestion_hint(seg.key, names));
    }
    pattern = *child;
  }
  if (find_setting(pattern) == nullptr) {
    fail(text, join_path(o.segments, o.segments.size()), "this is a section, not a single setting",
         fmt::format("set one of its keys: {}", fmt::join(child_names(pattern), ", ")));
  }
  return pattern;
}

}  // namespace

ConfigFile override_target(const std::string& text) {
  ParsedOverride o = parse(text);
  std::string pattern = resolve_pattern(text, o);
  return find_setting(pattern)->file;
}

void apply_override(Document& doc, const std::string& text) {
  ParsedOverride o = parse(text);
  resolve_pattern(text, o);
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    fail(text, join_path(o.segments, o.segments.size()), fmt::format("the value is not valid YAML: {}", e.msg),
         "quote it or fix the brackets");
  }
  // Descend, creating missing mappings; list items must already exist.
  YAML::Node node = doc.root;
  for (std::size_t i = 0; i < o.segments.size(); ++i) {
    const Segment& seg = o.segments[i];
    const bool last = i + 1 == o.segments.size();
    if (seg.index) {
      if (!node.IsSequence() || *seg.index >= node.size()) {
        fail(text, join_path(o.segments, i + 1),
             fmt::format("list index {} is out of range (the list has {} item(s))", *seg.index,
                         node.IsSequence() ? node.size() : 0),
             "overrides can change list items that the file defines, not add new ones");
      }
      YAML::Node next = node[*seg.index];
      node.reset(next);
    } else {
      if (node.IsDefined() && !node.IsMap() && !node.IsNull()) {
        fail(text, join_path(o.segments, i), "cannot set a key below a value that is not a mapping",
             "set the value itself, or replace it by a mapping in the file");
      }
      if (last) {
        node[seg.key] = value;
      } else {
        YAML::Node next = node[seg.key];
        node.reset(next);
      }
    }
  }
  if (o.segments.back().index) fail(text, join_path(o.segments, o.segments.size()), "cannot replace a whole list item", "set one of its keys");
  doc.overridden[join_path(o.segments, o.segments.size())] = text;
}

}  // namespace rapidllm::config
