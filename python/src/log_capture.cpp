// The library logs warnings through spdlog (an uneven pipeline split, a setting the model
// cannot honour). In Python they are collected during a call and handed to the wrapper,
// which raises them as RapidllmWarning: a script sees them, can filter them or turn them
// into errors, and stderr is not written behind its back. Each distinct message is kept
// once per call, as the CLI prints it once per run (a sweep repeats them per point).
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "bindings.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

class CollectingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // (level name, message) pairs logged since the last take(); the sink's lock guards them.
  std::vector<std::pair<std::string, std::string>> take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    seen_.clear();
    return std::exchange(messages_, {});
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string text(msg.payload.data(), msg.payload.size());
    if (!seen_.insert(text).second) return;
    const auto level = spdlog::level::to_string_view(msg.level);
    messages_.emplace_back(std::string(level.data(), level.size()), std::move(text));
  }
  void flush_() override {}

 private:
  std::vector<std::pair<std::string, std::string>> messages_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

void bind_log(py::module_& m) {
  // Leaked on purpose: spdlog's registry may log during interpreter shutdown.
  static auto* sink = new std::shared_ptr<CollectingSink>(std::make_shared<CollectingSink>());
  auto logger = std::make_shared<spdlog::logger>("rapidllm", *sink);
  logger->set_level(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
  m.def(
      "take_log", [] { return (*sink)->take(); },
      "The (level, message) pairs the library logged since the last call, each message once.");
}

}  // namespace rapidllm::python
