// A serving run's iterations as a Chrome trace-event file (ui.perfetto.dev, chrome://tracing).
// The step timeline writer (io/perfetto_trace) draws a step's kernels per GPU rank and has
// no per-event arguments; a serving timeline is one track per replica whose events carry
// the iteration's token mix, so it is written here. Events are dumped one at a time into
// the text: a long run has millions of iterations, too many for one JSON document in memory.
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rapidllm/report.hpp"

namespace rapidllm {

namespace {

constexpr double kMicrosecondsPerSecond = 1e6;

// What an iteration ran, as its event's name (Perfetto colours events by name).
const char* mix(const ServeIteration& it) {
  if (it.prefill_chunks == 0) return "decode";
  return it.decode_tokens == 0 ? "prefill" : "prefill+decode";
}

class Events {
 public:
  void add(const nlohmann::json& event) {
    text_ += first_ ? "\n" : ",\n";
    first_ = false;
    text_ += event.dump();
  }
  [[nodiscard]] std::string finish() && { return std::move(text_) + "\n]}\n"; }

 private:
  std::string text_ = R"({"displayTimeUnit":"ms","traceEvents":[)";
  bool first_ = true;
};

}  // namespace

std::string render_serve_trace(const ServeResult& result) {
  constexpr int kPid = 0;  // one process: the deployment; its replicas are the tracks
  Events events;
  events.add({{"ph", "M"}, {"pid", kPid}, {"tid", 0}, {"name", "process_name"},
              {"args", {{"name", fmt::format("rapidllm serve ({})", result.engine)}}}});
  // One track per replica and batch in flight (a pp-stage replica keeps pp of them),
  // numbered in order: with one batch per replica, a track is its replica's number.
  std::map<std::pair<int, int>, int> tracks;
  for (const ServeIteration& it : result.iteration_log) tracks.emplace(std::pair{it.replica, it.batch}, 0);
  int next = 0;
  for (auto& [key, t] : tracks) {
    t = next++;
    const auto [r, batch] = key;
    // Disaggregated: the prefill pool's replicas come first.
    std::string name = result.prefill_replicas == 0 ? fmt::format("replica {}", r)
                       : r < result.prefill_replicas ? fmt::format("prefill replica {}", r)
                                                     : fmt::format("decode replica {}", r);
    if (batch > 0 || tracks.count({r, 1}) > 0) name += fmt::format(", batch {}", batch);
    events.add({{"ph", "M"}, {"pid", kPid}, {"tid", t}, {"name", "thread_name"}, {"args", {{"name", name}}}});
    events.add({{"ph", "M"}, {"pid", kPid}, {"tid", t}, {"name", "thread_sort_index"}, {"args", {{"sort_index", t}}}});
  }
  for (const ServeIteration& it : result.iteration_log) {
    const double ts = it.start_s * kMicrosecondsPerSecond;
    const double end = it.end_s * kMicrosecondsPerSecond;  // ts + dur lands on the end exactly
    events.add({{"ph", "X"},
                {"pid", kPid},
                {"tid", tracks.at({it.replica, it.batch})},
                {"ts", ts},
                {"dur", end - ts},
                {"name", mix(it)},
                {"cat", "iteration"},
                {"args",
                 {{"decode_tokens", it.decode_tokens},
                  {"prefill_tokens", it.prefill_tokens},
                  {"prefill_chunks", it.prefill_chunks},
                  {"kv_blocks_used", it.kv_blocks_used}}}});
  }
  return std::move(events).finish();
}

}  // namespace rapidllm
