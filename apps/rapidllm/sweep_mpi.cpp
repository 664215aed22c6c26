#include "sweep_mpi.hpp"

#include <mpi.h>

#include <spdlog/spdlog.h>

#include "rapidllm/error.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm::cli {

MpiSession::MpiSession(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) spdlog::set_level(spdlog::level::warn);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

int mpi_ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::optional<SweepResult> mpi_sweep(const std::string& hardware_path, const std::string& model_path,
                                     const std::vector<std::string>& overrides, const SweepOptions& options) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (options.shard_count != 1) {
    throw ConfigError(SourceLocation{}, "--shard", "under MPI the ranks are the shards",
                      "drop --shard, or run rapidllm (not under mpirun) for one shard");
  }
  SweepOptions local = options;
  local.shard_index = rank;
  local.shard_count = size;
  local.keep_points = true;
  local.on_point = nullptr;
  local.refine = 0;  // rank 0 refines the merged best
  if (rank != 0) local.progress = nullptr;
  const SweepResult part = sweep(hardware_path, model_path, overrides, local);

  // The points travel as the CSV rows sweep_csv_row writes (exact: shortest round-trip numbers).
  std::string rows;
  for (const SweepPoint& p : part.points) rows += sweep_csv_row(p, part.run_type);
  const int length = static_cast<int>(rows.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<std::size_t>(size), 0);
  for (int r = 1; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + lengths[static_cast<std::size_t>(r - 1)];
  }
  std::string all(rank == 0 ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, '\0');
  MPI_Gatherv(rows.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  long long evaluated = part.evaluated;
  long long total_evaluated = 0;
  MPI_Reduce(&evaluated, &total_evaluated, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return std::nullopt;

  std::vector<SweepPoint> points;
  for (std::size_t start = 0; start < all.size();) {
    const auto end = all.find('\n', start);
    auto p = parse_sweep_csv_row(all.substr(start, end - start), part.varied_keys.size());
    if (!p) throw Error("rapidllm-mpi: a rank sent a malformed sweep row");
    points.push_back(std::move(*p));
    start = end + 1;
  }
  SweepResult merged = merge_sweep(std::move(points), part.run_type, part.varied_keys, total_evaluated, options.top);
  refine_best(merged, hardware_path, model_path, overrides, options);
  merged.seconds = part.seconds;
  return merged;
}

}  // namespace rapidllm::cli
