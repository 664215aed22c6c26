// Checking the keyword arguments of a Python call the way the CLI checks its options: a
// wrong one is a ConfigError naming the function and the argument, with a "did you mean".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/suggest.hpp"

namespace rapidllm::python {

[[noreturn]] inline void bad_argument(const std::string& function, const std::string& argument,
                                      const std::string& problem, const std::string& hint) {
  throw ConfigError(SourceLocation{function + "()", 0, 0, {}}, argument, problem, hint);
}

// The value of Enum (first..last, as to_string names them) called `name`.
template <class Enum>
Enum named(const std::string& function, const std::string& argument, const std::string& name, Enum first,
           Enum last) {
  std::vector<std::string_view> names;
  for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i) {
    const std::string_view n = to_string(static_cast<Enum>(i));
    if (n == name) return static_cast<Enum>(i);
    names.push_back(n);
  }
  const auto best = closest_match(name, names);
  bad_argument(function, argument, fmt::format("'{}' is not one of {}", name, fmt::join(names, ", ")),
               best ? fmt::format("did you mean '{}'?", *best) : "");
}

}  // namespace rapidllm::python
