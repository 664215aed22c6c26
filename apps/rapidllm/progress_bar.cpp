#include "progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>

namespace rapidllm::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BarState {
  std::string unit;
  double delay_s = 0.0;
  Clock::time_point start = Clock::now();
  Clock::time_point last_draw{};
  bool drawn = false;
};

constexpr double kRedrawS = 0.1;  // a terminal redrawn faster than this only flickers

void draw(BarState& s, double done, double total) {
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - s.start).count();
  const bool last = done >= total;
  if (elapsed < s.delay_s && !(last && s.drawn)) return;
  if (last && !s.drawn) return;  // finished before the bar was due: nothing to close
  if (!last && s.drawn && std::chrono::duration<double>(now - s.last_draw).count() < kRedrawS) return;
  s.last_draw = now;
  s.drawn = true;
  // An estimated total can be passed before the end: hold at 99% until the caller says done.
  const double fraction = total > 0.0 ? std::clamp(done / total, 0.0, last ? 1.0 : 0.99) : 1.0;
  const double rate = elapsed > 0.0 ? done / elapsed : 0.0;
  const double eta = rate > 0.0 ? std::max(0.0, total - done) / rate : 0.0;
  const auto filled = static_cast<std::size_t>(30.0 * fraction);
  std::string line = fmt::format("\r[{:<30}] {:>3.0f}% ", std::string(filled, '#'), 100.0 * fraction);
  if (!s.unit.empty()) line += fmt::format("{:.0f}/{:.0f} {}, {:.0f}/s, ", done, total, s.unit, rate);
  line += last ? fmt::format("{:.0f} s ", elapsed) : fmt::format("ETA {:.0f} s ", eta);
  std::cerr << line << (last ? "\n" : "") << std::flush;
}

}  // namespace

std::function<void(double, double)> progress_bar(std::string unit, double delay_s) {
  if (isatty(STDERR_FILENO) == 0) return {};
  auto state = std::make_shared<BarState>();
  state->unit = std::move(unit);
  state->delay_s = delay_s;
  return [state](double done, double total) { draw(*state, done, total); };
}

}  // namespace rapidllm::cli
