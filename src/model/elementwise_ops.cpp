#include "model/elementwise_ops.hpp"

#include "model/op_factory.hpp"

namespace rapidllm::model {

namespace {

constexpr double kFp32 = 4.0;  // bytes of the fp32 intermediates eager code upcasts to

// An eager op sequence: bytes per element and kernels, forward and backward.
Op eager_op(std::string_view name, OpClass cls, double elements, double forward_per_element, int forward_kernels,
            double backward_per_element, int backward_kernels) {
  Op op = memory_op(name, cls, elements * forward_per_element, elements * backward_per_element, 1.0);
  op.forward_kernels = forward_kernels;
  op.backward_kernels = backward_kernels;
  return op;
}

}  // namespace

Op norm_op(std::string_view name, NormKind norm, double elements, const LocalShape& s) {
  const double eb = s.element_bytes;
  // Fused: read x, write y; backward reads x and dy, writes dx.
  if (!s.eager_elementwise || norm == NormKind::layernorm) {
    return memory_op(name, OpClass::elementwise, 2 * elements, 3 * elements, eb);
  }
  // Eager RMSNorm, `(x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * w`, per
  // element (e = activation bytes, f = 4): upcast e + f, pow 2f, mean f, x * r 2f, downcast
  // f + e, times weight 2e = 4e + 7f in 8 kernels (add and rsqrt act on one value per token).
  // Autograd: weight's multiply backward 2e for dx and 4e for dw (multiply, then sum over the
  // tokens), the downcast's upcast e + f, x * r's backward 2f for the input and 4f for r,
  // the mean's expansion f, pow's 2 x x x grad 3f, the two input gradients added 3f, the
  // upcast's downcast f + e = 8e + 15f in 14 kernels. An fp32 activation skips the casts.
  const bool casts = eb < kFp32;
  const double cast = casts ? eb + kFp32 : 0.0;
  return eager_op(name, OpClass::elementwise, elements, 2 * eb + 5 * kFp32 + 2 * cast, casts ? 8 : 6,
                  6 * eb + 13 * kFp32 + 2 * cast, casts ? 14 : 12);
}

Op swiglu_op(std::string_view name, OpClass cls, double elements, const LocalShape& s) {
  const double eb = s.element_bytes;
  // Fused: read gate and up, write the product; backward reads gate, up and dy, writes both
  // input gradients.
  if (!s.eager_elementwise) return memory_op(name, cls, 3 * elements, 5 * elements, eb);
  // Eager `F.silu(gate) * up`: silu reads and writes (2e), the multiply reads two and writes
  // one (3e), 2 kernels. Backward: the multiply's two gradients 3e each, silu's backward
  // reads dy and gate and writes dgate (3e), 3 kernels.
  return eager_op(name, cls, elements, 5 * eb, 2, 9 * eb, 3);
}

Op rotary_op(std::string_view name, double elements, int tensors, const LocalShape& s) {
  const double eb = s.element_bytes;
  // Fused: read and write each element, both ways.
  if (!s.eager_elementwise) return memory_op(name, OpClass::elementwise, 2 * elements, 2 * elements, eb);
  // Eager rotary in fp32 (view_as_complex(x.float()) * freqs, then type_as(x)), per tensor:
  // upcast e + f, complex multiply 2f (the frequencies are one row per position), downcast
  // f + e, 3 kernels; backward the same three in reverse. Hugging Face's rotate_half form
  // moves about as much (slice, negate, concatenate, two multiplies, an add).
  const bool casts = eb < kFp32;
  const double per_element = 2 * kFp32 + (casts ? 2 * (eb + kFp32) : 0.0);
  const int kernels = tensors * (casts ? 3 : 1);
  return eager_op(name, OpClass::elementwise, elements, per_element, kernels, per_element, kernels);
}

}  // namespace rapidllm::model
