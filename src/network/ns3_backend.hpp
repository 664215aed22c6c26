// The packet-level reference: a FlowPlan on a Topology written to a text file and run by
// the separate `rapidllm-ns3` executable (tools/ns3, GPLv2 like ns-3 itself, never linked
// into rapidllm). The file format and the transport configuration are described in
// docs/network-simulator.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "network/flow_plan.hpp"
#include "network/topology.hpp"
#include "network/work_meter.hpp"

namespace rapidllm::network {

struct Ns3Result {
  double time_s = 0.0;
  std::vector<double> job_time_s;
  std::vector<double> phase_time_s;
  std::vector<double> transfer_end_s;
  double wall_s = 0.0;  // wall time of the ns-3 run (the executable's own measurement)
  double events = 0.0;  // ns-3 scheduler events executed (what work_estimate.hpp estimates)
};

// The rapidllm-ns3 executable: $RAPIDLLM_NS3 if set, else the one built with rapidllm if it
// exists, else "" (ns-3 was not found at build time).
[[nodiscard]] std::string ns3_executable();

// The plan in rapidllm-ns3's input format.
void write_ns3_input(const Topology& topology, const FlowPlan& plan, std::ostream& out);

// Runs the plan under ns-3 (a child process; ns3_process.hpp: its temporary files are gone
// afterwards, whatever happens). `progress` hears the bytes delivered out of the plan's.
// Throws Error when the executable is missing or fails.
[[nodiscard]] Ns3Result run_ns3(const Topology& topology, const FlowPlan& plan, std::string executable = "",
                                const ProgressFn& progress = {});

}  // namespace rapidllm::network
