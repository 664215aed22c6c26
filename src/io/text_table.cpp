#include "io/text_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace rapidllm::io {

namespace {
bool looks_numeric(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '-' || s.front() == '.');
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row, bool is_header) {
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const bool right = !is_header && i > 0 && looks_numeric(cell);
      out += right ? fmt::format("{:>{}}", cell, width[i]) : fmt::format("{:<{}}", cell, width[i]);
      out += i + 1 < width.size() ? "  " : "";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  };
  emit(header_, true);
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : rows_) emit(r, false);
  return out;
}

std::string TextTable::csv() const {
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) out += ',';
      out += csv_field(row[i]);
    }
    out += "\n";
  };
  emit(header_);
  for (const auto& r : rows_) emit(r);
  return out;
}

std::string human_seconds(double s) {
  const double a = std::fabs(s);
  if (a == 0.0) return "0 s";
  if (a < 1e-6) return fmt::format("{:.3g} ns", s * 1e9);
  if (a < 1e-3) return fmt::format("{:.4g} us", s * 1e6);
  if (a < 1.0) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} s", s);
}

std::string human_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (std::fabs(bytes) >= 1024.0 && i < 5) {
    bytes /= 1024.0;
    ++i;
  }
  return i == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.3g} {}", bytes, units[i]);
}

std::string human_rate(double per_s, const std::string& unit) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::fabs(per_s) >= 1000.0 && i < 6) {
    per_s /= 1000.0;
    ++i;
  }
  return fmt::format("{:.4g} {}{}/s", per_s, prefixes[i], unit);
}

std::string csv_number(double v) { return fmt::format("{}", v); }

}  // namespace rapidllm::io
