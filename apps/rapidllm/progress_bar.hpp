// A one-line progress bar with an ETA on stderr, shared by the commands that can run long
// (sweep, a flow or ns-3 collective). Silent when stderr is not a terminal (logs, tests,
// pipes), and silent until `delay_s` has passed, so a quick run prints nothing.
#pragma once

#include <functional>
#include <string>

namespace rapidllm::cli {

// Runs shorter than this show no bar at all.
inline constexpr double kProgressDelayS = 2.0;

// Call with (done, total) as work progresses; done == total ends the line. `unit` names what
// is counted ("points"); empty shows only the percentage, rate-free. Returns an empty
// function when stderr is not a terminal.
[[nodiscard]] std::function<void(double done, double total)> progress_bar(std::string unit, double delay_s);

}  // namespace rapidllm::cli
