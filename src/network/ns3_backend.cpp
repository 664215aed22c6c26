#include "network/ns3_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "network/ns3_process.hpp"
#include "rapidllm/error.hpp"

#ifndef RAPIDLLM_NS3_EXECUTABLE
#define RAPIDLLM_NS3_EXECUTABLE ""
#endif

namespace rapidllm::network {

std::string ns3_executable() {
  if (const char* env = std::getenv("RAPIDLLM_NS3"); env != nullptr && *env != '\0') return env;
  const std::string built = RAPIDLLM_NS3_EXECUTABLE;
  std::error_code ec;
  if (!built.empty() && std::filesystem::exists(built, ec)) return built;
  return {};
}

void write_ns3_input(const Topology& topology, const FlowPlan& plan, std::ostream& out) {
  out.precision(17);
  out << "rapidllm-ns3 1\n";
  out << "nodes " << topology.num_nodes() << ' ' << topology.num_gpus() << '\n';
  // One line per cable (both directions share capacity and latency); failed cables are left out.
  std::vector<const Link*> cables;
  for (const Link& l : topology.links()) {
    if (l.src < l.dst && l.capacity_bytes_per_s > 0.0) cables.push_back(&l);
  }
  out << "links " << cables.size() << '\n';
  for (const Link* l : cables) out << l->src << ' ' << l->dst << ' ' << l->capacity_bytes_per_s << ' ' << l->latency_s << '\n';
  out << "transfers " << plan.transfers.size() << '\n';
  for (const Transfer& t : plan.transfers) {
    out << t.bytes << ' ' << t.extra_latency_s << ' ' << t.job << ' ' << t.deps.size();
    for (int d : t.deps) out << ' ' << d;
    const std::size_t n = t.pairs ? t.pairs->size() : 0;
    out << ' ' << n;
    if (t.pairs) t.pairs->for_each([&](int s, int d) { out << ' ' << s << ' ' << d; });
    out << '\n';
  }
  out << "end\n";
}

Ns3Result run_ns3(const Topology& topology, const FlowPlan& plan, std::string executable, const ProgressFn& progress) {
  if (executable.empty()) executable = ns3_executable();
  if (executable.empty()) {
    throw Error(
        "the ns3 backend needs the rapidllm-ns3 executable, which was not built (ns-3 not found): install "
        "libns3-dev and libgsl-dev (scripts/install-deps.sh) and rebuild, or set RAPIDLLM_NS3");
  }
  const ScratchFiles files(fmt::format("rapidllm-ns3-{}-{}", ::getpid(), reinterpret_cast<std::uintptr_t>(&plan)));
  {
    std::ofstream f(files.input());
    if (!f) throw Error(fmt::format("cannot write {}", files.input()));
    write_ns3_input(topology, plan, f);
    if (!f.flush()) throw Error(fmt::format("cannot write {} (disk full?)", files.input()));
  }
  const ChildRun child = run_child(executable, files, progress);
  std::stringstream text;
  {
    std::ifstream in(files.output());
    text << in.rdbuf();
  }
  if (child.exit_code != 0) {
    throw Error(fmt::format("rapidllm-ns3 failed (exit status {}):\n{}{}", child.exit_code, text.str(),
                            child.diagnostics));
  }

  Ns3Result r;
  r.transfer_end_s.assign(plan.transfers.size(), 0.0);
  std::vector<double> start(plan.transfers.size(), 0.0);
  std::string line;
  bool have_time = false;
  while (std::getline(text, line)) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "transfer") {
      std::size_t i = 0;
      double s = 0.0, e = 0.0;
      ls >> i >> s >> e;
      if (i < start.size()) {
        start[i] = s;
        r.transfer_end_s[i] = e;
      }
    } else if (key == "time_s") {
      ls >> r.time_s;
      have_time = true;
    } else if (key == "wall_s") {
      ls >> r.wall_s;
    } else if (key == "events") {
      ls >> r.events;
    }
  }
  if (!have_time) throw Error(fmt::format("rapidllm-ns3 printed no result:\n{}{}", text.str(), child.diagnostics));
  r.job_time_s.assign(static_cast<std::size_t>(std::max(plan.jobs, 0)), 0.0);
  std::vector<double> first(plan.phases.size(), std::numeric_limits<double>::infinity());
  std::vector<double> last(plan.phases.size(), 0.0);
  for (std::size_t i = 0; i < plan.transfers.size(); ++i) {
    const Transfer& t = plan.transfers[i];
    if (t.job >= 0 && static_cast<std::size_t>(t.job) < r.job_time_s.size()) {
      r.job_time_s[static_cast<std::size_t>(t.job)] = std::max(r.job_time_s[static_cast<std::size_t>(t.job)], r.transfer_end_s[i]);
    }
    if (t.phase >= 0 && static_cast<std::size_t>(t.phase) < plan.phases.size()) {
      const auto p = static_cast<std::size_t>(t.phase);
      first[p] = std::min(first[p], start[i]);
      last[p] = std::max(last[p], r.transfer_end_s[i]);
    }
  }
  r.phase_time_s.assign(plan.phases.size(), 0.0);
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    if (first[p] < std::numeric_limits<double>::infinity()) r.phase_time_s[p] = last[p] - first[p];
  }
  return r;
}

}  // namespace rapidllm::network
