// Writing results: stdout, or a file written whole (temp + rename) so a failed run never
// leaves a half-written result behind. What is not a regular file (a device such as
// /dev/null, a FIFO) is written through, never replaced; a symbolic link is followed.
#pragma once

#include <filesystem>
#include <string>

namespace rapidllm::io {

// Where `-o PATH` writes: the file itself (links followed) and whether it is replaced whole
// (a regular file, existing or new) or written through (anything else that exists).
// Throws ConfigError for a folder, a path whose folder does not exist, and a folder this
// user may not write to.
struct OutputTarget {
  std::filesystem::path path;
  bool whole = true;
};
[[nodiscard]] OutputTarget output_target(const std::string& path);
// Opening `path` failed with errno `err`: ConfigError when the path cannot be written by this
// user (permission, read-only, missing folder), Error otherwise (disk full, I/O).
[[noreturn]] void cannot_create(const std::string& path, int err);

// Writes `text` to `path` atomically, or to stdout when path is empty. Throws ConfigError
// when the file cannot be created for want of permission (or a read-only file system), Error
// on other I/O failures.
void write_output(const std::string& text, const std::string& path);

}  // namespace rapidllm::io
