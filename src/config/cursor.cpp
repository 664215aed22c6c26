#include "config/cursor.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "config/suggest.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm::config {

namespace {

std::string range_text(const Setting& s, bool integral) {
  auto num = [&](double v) { return integral ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{}", v); };
  bool has_min = std::isfinite(s.min);
  bool has_max = std::isfinite(s.max);
  if (has_min && has_max) return fmt::format(" between {} and {}", num(s.min), num(s.max));
  if (has_min) return fmt::format(" >= {}", num(s.min));
  if (has_max) return fmt::format(" <= {}", num(s.max));
  return "";
}

std::string example_for(ValueKind kind) {
  switch (kind) {
    case ValueKind::size: return "e.g. '80 GiB', '40 MB' (MB = 2^20 as in RAPID-LLM) or a byte count";
    case ValueKind::bandwidth:
    case ValueKind::bandwidth_list:
      return "e.g. '450 GB/s' (decimal), '1986 GB' (RAPID-LLM: binary, per second), '400 Gb/s' or bytes/s";
    case ValueKind::duration: return "e.g. 5e-6 (seconds) or '5 us'";
    case ValueKind::frequency: return "e.g. 1.41e9 (Hz) or '1.41 GHz'";
    case ValueKind::precision: return "e.g. bf16, fp16, fp32, fp8, or a byte count like 2";
    default: return "";
  }
}

}  // namespace

Cursor::Cursor(const Document& doc) : Cursor(&doc, doc.root, "", "", doc.root.Mark()) {}

Cursor::Cursor(const Document* doc, YAML::Node node, std::string path, std::string pattern, YAML::Mark anchor)
    : doc_(doc), node_(std::move(node)), path_(std::move(path)), pattern_(std::move(pattern)), anchor_(anchor) {}

Cursor Cursor::child(std::string_view key) const {
  auto pattern = child_pattern(pattern_, key);
  if (!pattern) {
    // A programming error in a loader: every key it reads must be declared.
    throw Error(fmt::format("internal: '{}' is not a declared setting under '{}'", key, pattern_));
  }
  std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  if (!present()) {
    // Absent section: its keys are absent too. (Node::operator= would assign content, so
    // the child node is constructed, never assigned.)
    return Cursor(doc_, YAML::Node(YAML::NodeType::Undefined), std::move(path), std::move(*pattern), anchor_);
  }
  if (!node_.IsMap()) fail("expected a mapping of keys", "indent the keys below this one");
  YAML::Node value = node_[std::string(key)];
  YAML::Mark anchor = node_.Mark();
  if (value.IsDefined() && value.IsNull()) {
    // A null value has no position of its own worth showing: point at its key.
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.Scalar() == key) anchor = it->first.Mark();
    }
  }
  return Cursor(doc_, std::move(value), std::move(path), std::move(*pattern), anchor);
}

Cursor Cursor::element(std::size_t index) const {
  YAML::Node item = node_[index];
  return Cursor(doc_, item, fmt::format("{}[{}]", path_, index), pattern_ + "[]", node_.Mark());
}

bool Cursor::present() const { return node_.IsDefined() && !node_.IsNull(); }

std::size_t Cursor::list_size() const {
  if (!present()) return 0;
  if (!node_.IsSequence()) fail("expected a list", "write it as a YAML list ('- item' lines or [a, b])");
  return node_.size();
}

std::vector<std::string> Cursor::keys() const {
  std::vector<std::string> out;
  if (!present()) return out;
  if (!node_.IsMap()) fail("expected a mapping of keys", "indent the keys below this one");
  for (auto it = node_.begin(); it != node_.end(); ++it) out.push_back(it->first.Scalar());
  return out;
}

void Cursor::fail(const std::string& problem, const std::string& hint) const {
  throw ConfigError(where(), path_, problem, hint);
}

void Cursor::warn(const std::string& problem, const std::string& hint) const {
  spdlog::warn("{}: {}: {}{}", where().describe(), path_, problem, hint.empty() ? "" : "\n  hint: " + hint);
}

SourceLocation Cursor::where() const { return doc_->locate(path_, present() ? node_.Mark() : anchor_); }

const Setting& Cursor::setting() const {
  const Setting* s = find_setting(pattern_);
  if (s == nullptr) throw Error(fmt::format("internal: '{}' is not a declared leaf setting", pattern_));
  return *s;
}

YAML::Node Cursor::value() const {
  if (present()) return node_;
  const Setting& s = setting();
  if (node_.IsDefined() && node_.IsNull() && s.nullable) return node_;
  if (node_.IsDefined() && s.default_value) {
    // `key: null` (or `key:` with nothing) is not "use the default": say so rather than guess.
    fail("a value is required here (got null)",
         fmt::format("give a value, or delete the key to use its default ({})", *s.default_value));
  }
  if (!s.default_value) {
    fail(node_.IsDefined() ? "a value is required here (got null)" : "missing required key",
         fmt::format("add '{}: <{}>' ({}){}", path_.substr(path_.rfind('.') + 1), kind_name(s.kind), s.doc,
                     example_for(s.kind).empty() ? "" : "; " + example_for(s.kind)));
  }
  return YAML::Load(std::string(*s.default_value));
}

std::string Cursor::scalar(const YAML::Node& node, std::string_view expected) const {
  if (!node.IsScalar()) fail(fmt::format("expected {}, got a {}", expected, node.IsMap() ? "mapping" : "list"),
                            example_for(setting().kind));
  return node.Scalar();
}

bool Cursor::is_special(const std::string& text) const {
  for (auto s : setting().specials) {
    if (text == s) return true;
    auto a = parse_number(text);
    auto b = parse_number(s);
    if (a && b && *a == *b) return true;
  }
  return false;
}

double Cursor::checked_number(double v, const std::string& text, bool integral) const {
  const Setting& s = setting();
  std::string what = integral ? "an integer" : "a number";
  if (integral && v != std::floor(v)) fail(fmt::format("expected {}{}, got '{}'", what, range_text(s, true), text),
                                          "write a whole number");
  if (v < s.min || v > s.max) {
    fail(fmt::format("expected {}{}, got '{}'", what, range_text(s, integral), text), s.doc.empty() ? "" : std::string(s.doc));
  }
  return v;
}

std::int64_t Cursor::integer() const {
  YAML::Node v = value();
  if (v.IsNull()) fail("a value is required here (got null)", "give a whole number");
  std::string text = scalar(v, "an integer");
  auto number = parse_number(text);
  if (!number) fail(fmt::format("expected an integer{}, got '{}'", range_text(setting(), true), text), "write a whole number, e.g. 8");
  return static_cast<std::int64_t>(checked_number(*number, text, true));
}

int Cursor::small_integer() const {
  std::int64_t v = integer();
  if (v > std::numeric_limits<int>::max()) fail(fmt::format("value {} is too large", v), fmt::format("give at most {}", std::numeric_limits<int>::max()));
  return static_cast<int>(v);
}

std::optional<std::int64_t> Cursor::optional_integer() const {
  YAML::Node v = value();
  if (v.IsNull()) return std::nullopt;
  return integer();
}

double Cursor::real() const {
  YAML::Node v = value();
  std::string text = scalar(v, "a number");
  auto number = parse_number(text);
  if (!number) fail(fmt::format("expected a number{}, got '{}'", range_text(setting(), false), text), "e.g. 0.75 or 1.8e-13");
  return checked_number(*number, text, false);
}

std::optional<double> Cursor::optional_real() const {
  if (!present()) return std::nullopt;
  return real();
}

bool Cursor::boolean() const {
  std::string text = scalar(value(), "true or false");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  fail(fmt::format("expected true or false, got '{}'", text), "write true or false");
}

std::string Cursor::string() const { return scalar(value(), "a string"); }

std::string Cursor::choice() const {
  std::string text = scalar(value(), "one of the listed choices");
  const Setting& s = setting();
  for (auto c : s.choices) {
    if (text == c) return text;
  }
  fail(fmt::format("'{}' is not one of: {}", text, fmt::join(s.choices, ", ")), suggestion_hint(text, s.choices, "values"));
}

std::vector<std::string> Cursor::choice_list() const {
  YAML::Node v = value();
  if (!v.IsSequence()) fail("expected a list, e.g. [tp, cp]", "write the items in brackets, [a, b], or as '- item' lines");
  const Setting& s = setting();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string text = scalar(v[i], "a list of names");
    if (std::find(s.choices.begin(), s.choices.end(), text) == s.choices.end()) {
      fail(fmt::format("item {} '{}' is not one of: {}", i, text, fmt::join(s.choices, ", ")),
           suggestion_hint(text, s.choices, "values"));
    }
    out.push_back(text);
  }
  return out;
}

double Cursor::size_bytes() const {
  std::string text = scalar(value(), "a size");
  auto bytes = parse_size_bytes(text);
  if (!bytes) fail(fmt::format("expected a size, got '{}'", text), example_for(ValueKind::size));
  return checked_number(*bytes, text, false);
}

std::optional<double> Cursor::bandwidth() const {
  std::string text = scalar(value(), "a bandwidth");
  if (is_special(text)) return std::nullopt;
  auto rate = parse_bandwidth_bytes_per_s(text);
  if (!rate || *rate <= 0.0) fail(fmt::format("expected a positive bandwidth, got '{}'", text), example_for(ValueKind::bandwidth));
  return *rate;
}

std::vector<double> Cursor::bandwidth_list() const {
  YAML::Node v = value();
  std::vector<YAML::Node> items;
  if (v.IsSequence()) {
    for (std::size_t i = 0; i < v.size(); ++i) items.push_back(v[i]);
  } else {
    items.push_back(v);
  }
  if (items.empty()) fail("expected at least one bandwidth", example_for(ValueKind::bandwidth));
  std::vector<double> out;
  for (const auto& item : items) {
    std::string text = scalar(item, "a bandwidth");
    auto rate = parse_bandwidth_bytes_per_s(text);
    if (!rate || *rate <= 0.0) fail(fmt::format("expected a positive bandwidth, got '{}'", text), example_for(ValueKind::bandwidth));
    out.push_back(*rate);
  }
  return out;
}

double Cursor::duration_s() const {
  std::string text = scalar(value(), "a duration");
  auto seconds = parse_duration_s(text);
  if (!seconds) fail(fmt::format("expected a duration, got '{}'", text), example_for(ValueKind::duration));
  return checked_number(*seconds, text, false);
}

double Cursor::frequency_hz() const {
  std::string text = scalar(value(), "a frequency");
  auto hz = parse_frequency_hz(text);
  if (!hz) fail(fmt::format("expected a frequency, got '{}'", text), example_for(ValueKind::frequency));
  return checked_number(*hz, text, false);
}

Precision Cursor::precision(const Precision& as_tensor_format, const Precision* as_gradients) const {
  std::string text = scalar(value(), "a precision");
  if (as_gradients != nullptr && text == "as_gradients") return *as_gradients;
  if (is_special(text)) return as_tensor_format;
  if (auto dtype = parse_dtype(text)) return Precision{dtype_bytes(*dtype), *dtype};
  auto bytes = parse_number(text);
  if (!bytes) fail(fmt::format("expected a dtype or a byte count, got '{}'", text), example_for(ValueKind::precision));
  (void)checked_number(*bytes, text, false);
  // A byte count keeps its width; its dtype class is the one of that width (2 -> 16-bit).
  auto dtype = dtype_from_bytes(*bytes);
  return Precision{*bytes, dtype.value_or(as_tensor_format.dtype)};
}

std::vector<int> Cursor::dimension_size() const {
  YAML::Node v = value();
  auto one = [&](const YAML::Node& n) {
    std::string text = scalar(n, "a positive integer");
    auto number = parse_number(text);
    if (!number || *number < 1 || *number != std::floor(*number) || *number > 1e7) {
      fail(fmt::format("expected auto, a positive integer or a list of them, got '{}'", text), "e.g. size: auto, size: 8 or size: [8, 8]");
    }
    return static_cast<int>(*number);
  };
  if (v.IsScalar() && v.Scalar() == "auto") return {};
  std::vector<int> out;
  if (v.IsSequence()) {
    if (v.size() == 0) fail("the size list is empty", "e.g. size: [8, 8]");
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(one(v[i]));
  } else {
    out.push_back(one(v));
  }
  return out;
}

std::vector<FaultyLink> Cursor::links() const {
  YAML::Node v = value();
  if (!v.IsSequence()) fail("expected a list of [src, dst, weight]", "e.g. faulty_links: [[0, 1, 0.5]]");
  std::vector<FaultyLink> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const YAML::Node& item = v[i];
    auto bad = [&](const std::string& why) {
      fail(fmt::format("link {}: {}", i, why), "each link is [src rank, dst rank, remaining bandwidth fraction 0..1]");
    };
    if (!item.IsSequence() || item.size() != 3) bad("expected [src, dst, weight]");
    auto src = parse_number(scalar(item[0], "a rank"));
    auto dst = parse_number(scalar(item[1], "a rank"));
    auto weight = parse_number(scalar(item[2], "a weight"));
    // A rank past int's range is no rank of any cluster (and would not convert).
    constexpr double kLargestRank = std::numeric_limits<int>::max();
    if (!src || !dst || *src < 0 || *dst < 0 || *src != std::floor(*src) || *dst != std::floor(*dst) ||
        *src > kLargestRank || *dst > kLargestRank) {
      bad(fmt::format("src and dst must be non-negative integers up to {}", std::numeric_limits<int>::max()));
    }
    if (*src == *dst) bad("src and dst are the same rank");
    if (!weight || *weight < 0.0 || *weight > 1.0) bad("weight must be between 0 (failed) and 1 (healthy)");
    out.push_back(FaultyLink{static_cast<int>(*src), static_cast<int>(*dst), *weight});
  }
  return out;
}

}  // namespace rapidllm::config
