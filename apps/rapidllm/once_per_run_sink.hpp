// A log sink that passes each distinct message once per run: a sweep or a serving
// simulation predicts thousands of scenarios, and the warning one of them earns (an uneven
// pipeline split, padded micro-batches) would otherwise repeat for every point.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include <spdlog/sinks/base_sink.h>

namespace rapidllm::cli {

class OncePerRunSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit OncePerRunSink(spdlog::sink_ptr target) : target_(std::move(target)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (seen_.emplace(msg.payload.data(), msg.payload.size()).second) target_->log(msg);
  }
  void flush_() override { target_->flush(); }
  // The target formats what it prints.
  void set_pattern_(const std::string& pattern) override { target_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> formatter) override {
    target_->set_formatter(std::move(formatter));
  }

 private:
  spdlog::sink_ptr target_;
  std::unordered_set<std::string> seen_;
};

}  // namespace rapidllm::cli
