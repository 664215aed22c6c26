#include "io/output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

OutputFormat output_format_for(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return OutputFormat::json;
  if (ext == ".csv") return OutputFormat::csv;
  return OutputFormat::table;
}

}  // namespace rapidllm

namespace rapidllm::io {

namespace {

ConfigError output_error(const std::string& path, const std::string& problem, const std::string& hint) {
  return ConfigError(SourceLocation{"command line", 0, 0, {}}, "-o", fmt::format("'{}' {}", path, problem), hint);
}

// Errors that say the path cannot be written by this user at all (a usage error, exit 2),
// as opposed to a write that failed on the way (disk full: exit 1).
bool refused_path(int err) {
  return err == EACCES || err == EPERM || err == EROFS || err == ENOENT || err == ENOTDIR || err == EISDIR ||
         err == ENAMETOOLONG;
}

}  // namespace

void cannot_create(const std::string& path, int err) {
  if (refused_path(err)) {
    throw output_error(path, fmt::format("cannot be written: {}", std::strerror(err)),
                       "check the folder's permissions, or write elsewhere");
  }
  throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
}

OutputTarget output_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    // Write what the link points to (the link stays a link).
    const fs::path resolved = fs::weakly_canonical(target, ec);
    if (!ec) target = resolved;
  }
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_directory(st)) throw output_error(path, "is a folder", "give a file name inside it, e.g. -o results.json");
  if (fs::exists(st) && !fs::is_regular_file(st)) return {target, false};  // a device or a FIFO: written through
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    throw output_error(path, fmt::format("is in a folder that does not exist ('{}')", folder.string()),
                       "create the folder first, or write elsewhere");
  }
  // The file is written beside itself and renamed over: the folder must be writable even
  // when the file exists. (Root passes this check everywhere; opening still tells.)
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw output_error(path, fmt::format("is in a folder this user cannot write to ('{}')", folder.string()),
                       "check the folder's permissions, or write elsewhere");
  }
  return {target, true};
}

void write_output(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  namespace fs = std::filesystem;
  const OutputTarget target = output_target(path);
  if (!target.whole) {
    std::ofstream out(target.path, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw Error(fmt::format("writing '{}' failed", path));
    return;
  }
  const fs::path temp = target.path.parent_path() / (target.path.filename().string() + ".partial");
  {
    errno = 0;
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) cannot_create(path, errno);
    out << text;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(temp, ec);
      throw Error(fmt::format("writing '{}' failed (disk full?)", path));
    }
  }
  std::error_code ec;
  fs::rename(temp, target.path, ec);
  if (ec) {
    const int err = ec.value();
    fs::remove(temp, ec);
    if (refused_path(err)) cannot_create(path, err);
    throw Error(fmt::format("cannot replace '{}': {}", path, std::strerror(err)));
  }
}

}  // namespace rapidllm::io
