#include "io/output.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/output_format.hpp"

namespace rapidllm {

// Declared in the public output_format.hpp; here because io/ renders every format.
std::optional<OutputFormat> parse_output_format(std::string_view name) {
  if (name == "table") return OutputFormat::table;
  if (name == "json") return OutputFormat::json;
  if (name == "csv") return OutputFormat::csv;
  return std::nullopt;
}

}  // namespace rapidllm

namespace rapidllm::io {

void write_output(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path temp = target.parent_path() / (target.filename().string() + ".partial");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("cannot write '{}': check that its folder exists and is writable", path));
    out << text;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(temp, ec);
      throw Error(fmt::format("writing '{}' failed (disk full?)", path));
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw Error(fmt::format("cannot replace '{}': {}", path, ec.message()));
  }
}

}  // namespace rapidllm::io
