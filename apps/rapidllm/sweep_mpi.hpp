// `rapidllm-mpi sweep` under mpirun: every rank sweeps its shard (rank r of N takes the
// points with index % N == r), rank 0 gathers the points, merges them into the result one
// process would give, refines the best, and reports (docs/sweep.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rapidllm/sweep.hpp"

namespace rapidllm::cli {

// RAII MPI session for main(): MPI_Init / MPI_Finalize; ranks other than 0 log warnings only.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The ranks of the job (1 outside mpirun).
[[nodiscard]] int mpi_ranks();

// The merged sweep on rank 0; nothing on the other ranks. Throws ConfigError when --shard is
// given too (the ranks are the shards).
[[nodiscard]] std::optional<SweepResult> mpi_sweep(const std::string& hardware_path, const std::string& model_path,
                                                   const std::vector<std::string>& overrides,
                                                   const SweepOptions& options);

}  // namespace rapidllm::cli
