#include "rapidllm/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace rapidllm {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "3.35 TB/s" into 3.35 and "TB/s"; the number must be finite.
bool split_quantity(std::string_view text, double& value, std::string_view& unit) {
  text = trim(text);
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value)) return false;
  unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return true;
}

constexpr double kKi = 1024.0;

// Binary multiplier for K/M/G/T/P (RAPID-LLM's reading of KB..PB, and the IEC KiB..PiB).
std::optional<double> binary_prefix(char p) {
  switch (p) {
    case 'K': case 'k': return kKi;
    case 'M': return kKi * kKi;
    case 'G': return kKi * kKi * kKi;
    case 'T': return kKi * kKi * kKi * kKi;
    case 'P': return kKi * kKi * kKi * kKi * kKi;
    default: return std::nullopt;
  }
}

std::optional<double> decimal_prefix(char p) {
  switch (p) {
    case 'K': case 'k': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    default: return std::nullopt;
  }
}

// Bytes per unit of a size unit: B, KB..PB (binary, RAPID-LLM), KiB..PiB (binary).
std::optional<double> size_unit(std::string_view unit) {
  if (unit.empty() || unit == "B") return 1.0;
  if (unit.size() == 2 && unit[1] == 'B') return binary_prefix(unit[0]);
  if (unit.size() == 3 && unit[1] == 'i' && unit[2] == 'B') return binary_prefix(unit[0]);
  return std::nullopt;
}

bool nonnegative(double v) { return v >= 0.0; }

// value x unit factor, refused when it leaves the doubles: "1e308 PiB" is a finite number
// of an overflowing quantity, and an infinite memory size or bandwidth must not load.
std::optional<double> scaled(double value, std::optional<double> factor) {
  if (!factor) return std::nullopt;
  const double v = value * *factor;
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  double value = 0.0;
  std::string_view unit;
  if (!split_quantity(text, value, unit) || !unit.empty()) return std::nullopt;
  return value;
}

std::optional<double> parse_size_bytes(std::string_view text) {
  double value = 0.0;
  std::string_view unit;
  if (!split_quantity(text, value, unit) || !nonnegative(value)) return std::nullopt;
  return scaled(value, size_unit(unit));
}

std::optional<double> parse_bandwidth_bytes_per_s(std::string_view text) {
  double value = 0.0;
  std::string_view unit;
  if (!split_quantity(text, value, unit) || !nonnegative(value)) return std::nullopt;
  if (unit.empty()) return value;  // plain number: bytes per second
  // Decimal bits per second: "Gb/s", "Gbps", "b/s".
  auto bits = [&](std::string_view u) -> std::optional<double> {
    if (u == "b/s" || u == "bps") return 1.0 / 8.0;
    if (u.size() >= 3 && (u.substr(1) == "b/s" || u.substr(1) == "bps")) {
      auto p = decimal_prefix(u[0]);
      if (p) return *p / 8.0;
    }
    return std::nullopt;
  };
  if (auto f = bits(unit)) return scaled(value, f);
  if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s") {
    std::string_view per = unit.substr(0, unit.size() - 2);
    if (per == "B") return value;
    if (per.size() == 2 && per[1] == 'B') return scaled(value, decimal_prefix(per[0]));  // explicit rate: decimal SI
    if (per.size() == 3 && per[1] == 'i' && per[2] == 'B') return scaled(value, binary_prefix(per[0]));
    return std::nullopt;
  }
  // RAPID-LLM: "1986 GB" is a bandwidth in binary units per second.
  return scaled(value, size_unit(unit));
}

std::optional<double> parse_duration_s(std::string_view text) {
  double value = 0.0;
  std::string_view unit;
  if (!split_quantity(text, value, unit) || !nonnegative(value)) return std::nullopt;
  if (unit.empty() || unit == "s") return value;
  if (unit == "ms") return value * 1e-3;
  if (unit == "us" || unit == "µs") return value * 1e-6;
  if (unit == "ns") return value * 1e-9;
  return std::nullopt;
}

std::optional<double> parse_frequency_hz(std::string_view text) {
  double value = 0.0;
  std::string_view unit;
  if (!split_quantity(text, value, unit) || !nonnegative(value)) return std::nullopt;
  if (unit.empty() || unit == "Hz") return value;
  if (unit == "kHz") return scaled(value, 1e3);
  if (unit == "MHz") return scaled(value, 1e6);
  if (unit == "GHz") return scaled(value, 1e9);
  return std::nullopt;
}

}  // namespace rapidllm
