// Writing results: stdout, or a file written whole (temp + rename) so a failed run never
// leaves a half-written result behind. What is not a regular file (a device such as
// /dev/null, a FIFO) is written through, never replaced; a symbolic link is followed.
#pragma once

#include <filesystem>
#include <string>

namespace rapidllm::io {

// Where `-o PATH` writes: the file itself (links followed) and whether it is replaced whole
// (a regular file, existing or new) or written through (anything else that exists).
// Throws ConfigError for a folder or a path whose folder does not exist.
struct OutputTarget {
  std::filesystem::path path;
  bool whole = true;
};
[[nodiscard]] OutputTarget output_target(const std::string& path);

// Writes `text` to `path` atomically, or to stdout when path is empty. Throws Error on I/O failure.
void write_output(const std::string& text, const std::string& path);

}  // namespace rapidllm::io
