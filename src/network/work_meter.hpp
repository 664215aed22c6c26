// Progress of one simulation in the units of its WorkEstimate (work_estimate.hpp): the flow
// engine counts its events, the usage table the member paths it routes, and the caller's
// callback hears about it every few thousand units (it draws a progress bar; the units
// keep the hot loops down to an add and a compare).
#pragma once

#include <functional>
#include <utility>

namespace rapidllm::network {

using ProgressFn = std::function<void(double done, double total)>;

class WorkMeter {
 public:
  WorkMeter(ProgressFn report, double total) : report_(std::move(report)), total_(total) {}

  void add(double units) {
    done_ += units;
    if (done_ >= next_) {
      next_ = done_ + kStride;
      if (report_) report_(done_, total_);
    }
  }
  // The end: the total is what was done (the estimate was an estimate).
  void finish() {
    if (report_) report_(done_, done_);
  }

 private:
  static constexpr double kStride = 4096.0;
  ProgressFn report_;
  double total_ = 0.0;
  double done_ = 0.0;
  double next_ = 0.0;
};

}  // namespace rapidllm::network
