// Writing results: stdout, or a file written whole (temp + rename) so a failed run never
// leaves a half-written result behind.
#pragma once

#include <string>

namespace rapidllm::io {

// Writes `text` to `path` atomically, or to stdout when path is empty. Throws Error on I/O failure.
void write_output(const std::string& text, const std::string& path);

}  // namespace rapidllm::io
