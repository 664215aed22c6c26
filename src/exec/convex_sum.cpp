#include "exec/convex_sum.hpp"

#include <cmath>

namespace rapidllm::exec {

namespace {

// A convex function that meets its chord at an interior point is linear on the interval
// (it lies below the chord everywhere and touches it), so each linear piece is summed in
// closed form as soon as the midpoint test passes.
double sum(const std::function<double(std::int64_t)>& f, std::int64_t lo, double f_lo, std::int64_t hi, double f_hi) {
  const std::int64_t n = hi - lo + 1;
  if (n <= 2) return n == 1 ? f_lo : f_lo + f_hi;
  const std::int64_t mid = lo + (hi - lo) / 2;
  const double f_mid = f(mid);
  const double chord = f_lo + (f_hi - f_lo) * static_cast<double>(mid - lo) / static_cast<double>(hi - lo);
  if (std::fabs(f_mid - chord) <= 1e-12 * std::fabs(f_mid) + 1e-300) return static_cast<double>(n) * (f_lo + f_hi) / 2.0;
  return sum(f, lo, f_lo, mid, f_mid) + sum(f, mid, f_mid, hi, f_hi) - f_mid;
}

}  // namespace

double sum_convex_piecewise_linear(const std::function<double(std::int64_t)>& f, std::int64_t lo, std::int64_t hi) {
  if (hi < lo) return 0.0;
  return sum(f, lo, f(lo), hi, f(hi));
}

}  // namespace rapidllm::exec
