// The report.hpp functions that io/ implements as they are, and the streamed output.
#include <cerrno>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "io/output.hpp"
#include "io/settings_report.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {

std::string render_settings(const std::vector<SettingInfo>& settings, OutputFormat format) {
  return io::settings_report(settings, format);
}

void write_output(const std::string& text, const std::string& path) { io::write_output(text, path); }

void check_output(const std::string& path) {
  if (!path.empty() && path != "-") (void)io::output_target(path);
}

StreamedOutput::StreamedOutput(const std::string& path) : path_(path) {
  if (path.empty() || path == "-") return;
  const io::OutputTarget target = io::output_target(path);
  // A regular file is streamed into FILE.partial and renamed over it at the end; a device
  // or a FIFO is written through (temp_ stays empty).
  if (target.whole) temp_ = target.path.string() + ".partial";
  target_ = target.path.string();
  errno = 0;
  file_ = std::make_unique<std::ofstream>(temp_.empty() ? target_ : temp_, std::ios::binary | std::ios::trunc);
  if (!*file_) io::cannot_create(path, errno);
}

StreamedOutput::~StreamedOutput() {
  if (file_ && !temp_.empty()) {
    file_.reset();
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void StreamedOutput::write(const std::string& text) {
  if (!file_) {
    std::cout << text;
    return;
  }
  *file_ << text;
  if (!*file_) throw Error(fmt::format("writing '{}' failed (disk full?)", path_));
}

void StreamedOutput::commit() {
  if (!file_) {
    std::cout.flush();
    return;
  }
  file_->close();
  const bool ok = static_cast<bool>(*file_);
  file_.reset();
  std::error_code ec;
  if (ok && !temp_.empty()) std::filesystem::rename(temp_, target_, ec);
  if (!ok || ec) {
    if (!temp_.empty()) std::filesystem::remove(temp_, ec);
    throw Error(fmt::format("cannot write '{}'", path_));
  }
}

}  // namespace rapidllm
