#include "serve/workload.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "serve/options_check.hpp"

namespace rapidllm::serving {

namespace {

ConfigError workload_error(const std::string& flag, const std::string& problem, const std::string& hint) {
  return option_error(flag, problem, hint);
}

void check_range(const TokenRange& r, const char* key, std::int64_t least) {
  if (r.lo < least || r.hi < r.lo) {
    throw workload_error(key, fmt::format("token range {}..{} is empty or below {}", r.lo, r.hi, least),
                         fmt::format("give N or LO..HI with {} <= LO <= HI", least));
  }
}

// arrival_s,input_tokens,output_tokens with a header row; sorted by arrival.
std::vector<Arrival> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw workload_error("--trace", fmt::format("cannot read '{}'", path), "give a CSV file that exists");
  std::vector<Arrival> out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (number == 1 && line.find_first_not_of("0123456789.,eE+- ") != std::string::npos)) continue;
    std::istringstream row(line);
    Arrival a;
    char c1 = 0;
    char c2 = 0;
    if (!(row >> a.time_s >> c1 >> a.input_tokens >> c2 >> a.output_tokens) || c1 != ',' || c2 != ',' ||
        a.time_s < 0.0 || a.input_tokens < 1 || a.output_tokens < 1) {
      throw ConfigError(SourceLocation{path, number, 0, {}}, "--trace",
                        fmt::format("row '{}' is not arrival_s,input_tokens,output_tokens", line),
                        "each row: a time >= 0 in seconds, then token counts >= 1");
    }
    out.push_back(a);
  }
  if (out.empty()) throw workload_error("--trace", fmt::format("'{}' holds no requests", path), "add rows");
  std::stable_sort(out.begin(), out.end(), [](const Arrival& a, const Arrival& b) { return a.time_s < b.time_s; });
  return out;
}

}  // namespace

Workload::Workload(const ServeWorkload& w) : w_(w), rng_(w.seed) {
  if (w.arrivals == ArrivalKind::trace) {
    trace_ = read_trace(w.trace_file);
    for (const Arrival& a : trace_) {
      longest_ = std::max(longest_, a.input_tokens + a.output_tokens);
      longest_prompt_ = std::max(longest_prompt_, a.input_tokens);
    }
    std::reverse(trace_.begin(), trace_.end());  // next_open pops from the back
    return;
  }
  check_range(w.input, "--isl", 1);
  check_range(w.output, "--osl", 1);
  longest_ = w.input.hi + w.output.hi;
  longest_prompt_ = w.input.hi;
  if (w.arrivals == ArrivalKind::poisson && !(w.rate_per_s > 0.0)) {
    throw workload_error("--rate", "the arrival rate must be > 0", "e.g. --rate 10 (requests per second)");
  }
  if (w.arrivals == ArrivalKind::concurrency && w.concurrency < 1) {
    throw workload_error("--concurrency", "the number of clients must be >= 1", "e.g. --concurrency 32");
  }
  if (w.requests < 0 || w.duration_s < 0.0) {
    throw workload_error("--requests", "limits must be >= 0", "give --requests N or --duration SECONDS");
  }
  const bool limited = w.requests > 0 || (w.duration_s > 0.0 && w.arrivals != ArrivalKind::offline);
  if (!limited) {
    throw workload_error(w.arrivals == ArrivalKind::offline ? "--requests" : "--requests/--duration",
                         "the run has no end", "give --requests N (or, except offline, --duration SECONDS)");
  }
  if (w.requests > kMaxServeRequests) {
    throw workload_error("--requests", fmt::format("{} requests is more than the {:.0e} a run simulates", w.requests,
                                                   static_cast<double>(kMaxServeRequests)),
                         "latency percentiles settle within 1e5 requests; for offline peak throughput, --steady-state");
  }
  const double expected = w.rate_per_s * w.duration_s;
  if (w.arrivals == ArrivalKind::poisson && w.requests == 0 && expected > static_cast<double>(kMaxServeRequests)) {
    throw workload_error("--duration", fmt::format("--rate x --duration expects {:.3g} requests, more than the {:.0e} a "
                                                   "run simulates", expected, static_cast<double>(kMaxServeRequests)),
                         "shorten --duration or cap it with --requests N");
  }
}

bool Workload::within_limits(double time_s) const {
  if (w_.requests > 0 && issued_ >= w_.requests) return false;
  return !(w_.duration_s > 0.0 && w_.arrivals != ArrivalKind::offline && time_s >= w_.duration_s);
}

Arrival Workload::draw(double time_s) {
  Arrival a;
  a.time_s = time_s;
  const auto pick = [&](const TokenRange& r) {
    return r.lo == r.hi ? r.lo : std::uniform_int_distribution<std::int64_t>(r.lo, r.hi)(rng_);
  };
  a.input_tokens = pick(w_.input);
  a.output_tokens = pick(w_.output);
  // A closed loop bounded only by time cannot be sized up front: stop it here.
  if (++issued_ > kMaxServeRequests) {
    throw workload_error("--duration", fmt::format("the run passed the {:.0e} requests a run simulates",
                                                   static_cast<double>(kMaxServeRequests)),
                         "shorten --duration or cap it with --requests N");
  }
  return a;
}

bool Workload::next_open(Arrival& out) {
  switch (w_.arrivals) {
    case ArrivalKind::trace:
      if (trace_.empty() || !within_limits(trace_.back().time_s)) return false;
      out = trace_.back();
      trace_.pop_back();
      ++issued_;
      return true;
    case ArrivalKind::offline:
      if (!within_limits(0.0)) return false;
      out = draw(0.0);
      return true;
    case ArrivalKind::poisson: {
      const double t = clock_s_ + std::exponential_distribution<double>(w_.rate_per_s)(rng_);
      if (!within_limits(t)) return false;
      clock_s_ = t;
      out = draw(t);
      return true;
    }
    case ArrivalKind::concurrency: break;
  }
  return false;
}

bool Workload::next_closed(double time_s, Arrival& out) {
  if (!within_limits(time_s)) return false;
  out = draw(time_s);
  return true;
}

}  // namespace rapidllm::serving
