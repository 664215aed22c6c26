// The nanotron software stack (huggingface/nanotron, the framework of nanotron_h100.csv) as
// rapidllm sees it: what the framework keeps in GPU memory beyond rapidllm's training memory
// model, and how PyTorch's caching allocator turns that into reserved memory. Hardware
// facts stay in configs/hardware/; this is software behaviour, in one place.
//
// Sources (nanotron main, read at commit 2411b022):
// - parameters in the model dtype, bf16 (the rows' `dtype`);
// - accumulate_grad_in_fp32: FP32GradientAccumulator (optim/gradient_accumulator.py) keeps
//   a contiguous fp32 gradient buffer for every parameter of the rank, "independently of
//   ZeRO sharding", and an fp32 copy of the parameters the rank's optimizer updates (the
//   master weights: the ZeRO-1 shard);
// - Adam (torch.optim.AdamW) keeps two fp32 moments of the parameters it updates;
// - with dp > 1 the model is wrapped in torch DistributedDataParallel, whose gradient
//   buckets hold each parameter's bf16 gradient next to the fp32 buffer (with dp = 1
//   autograd's bf16 .grad tensors stay: the measured dp = 1 peaks need them);
// - ZeRO-1 ends the optimizer step with all_gather_coalesced (distributed.py), which
//   flattens the updated parameters into one bf16 buffer of all of them;
// - `Mem Alloc` / `Mem Res` are torch.cuda.max_memory_allocated / max_memory_reserved
//   in GiB (helpers.py create_table_log) on rank 0 (the first pipeline stage), logged at
//   iteration 4 after log_memory() reset the peaks at the end of that step's forward and
//   backward (trainer.py): Mem Alloc is the optimizer step's peak, Mem Res the caching
//   allocator's high-water mark, which forward and backward set (it never shrinks);
// - NCCL's buffers and the CUDA context are outside PyTorch's allocator (in neither column)
//   but on the device.
#pragma once

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/memory_breakdown.hpp"

namespace rapidllm::validate {

struct NanotronStack {
  // Reserved = the allocated high-water mark's long-lived tensors (parameters, gradients,
  // optimizer states: allocated once) x (1 + static_overhead) + its transient ones
  // (activations and temporaries, freed and re-allocated every micro-batch in many sizes)
  // x (1 + transient_overhead): the caching allocator's blocks, split by requests of many
  // sizes, fit later requests only in part. Fitted on the even rows of nanotron_h100.csv
  // with status Success or OOM (0-based CSV row index even: rows 0, 2, 4, ..., 4102; the
  // odd rows are held out) as the pair that puts the most of them on the right side of the
  // device's capacity (scripts/fit_nanotron_allocator.py), with the stages split as
  // nanotron splits them (parallelism.layer_split compute_balanced): 1822 of the 1841 even
  // rows right, 1803 of the 1841 held-out odd rows (one flat overhead, 0.380, got 1784 and
  // 1780: it over-reserved the parameter-bound plans and under-reserved the activation-bound).
  double static_overhead = 0.07;
  double transient_overhead = 0.67;
  // Bytes per micro-batch token and hidden unit still allocated on the first pipeline stage
  // when log_memory() resets the peaks after backward: rank 0's Mem Alloc exceeds its
  // parameters, gradients and states by micro-batch tokens x hidden x 4 B whatever tp, pp
  // and dp (mbs 1 to 128, every model size): one fp32 [tokens, hidden] tensor, not sharded
  // by TP, most likely the embedding's input gradient gathered out of the sequence-parallel
  // layout. fp32's 4 bytes, not fitted: with them the Success rows' Mem Alloc mean error
  // falls from 17.9 / 12.0 / 9.5 / 5.8 / 6.5 % (1.34G ... 469G) to 6.3 / 4.3 / 4.0 / 4.5 /
  // 4.9 %, flat in the micro-batch size (it was -5 % at 1 and -76 % at 64).
  double first_stage_token_bytes = 4.0;
  // The CUDA context and cuBLAS / cuDNN workspaces that are on the device before PyTorch
  // allocates (about 0.5 GiB for a PyTorch 2 process on H100).
  double context_bytes = 0.5 * 1024.0 * 1024.0 * 1024.0;
};

// The profile the validation uses.
[[nodiscard]] const NanotronStack& nanotron_stack();

// nanotron's precisions on a software spec: bf16 parameters and activations, fp32 gradient
// accumulation buffer (kept whole under ZeRO-1, as rapidllm does for stage < 2), bf16
// per-micro-batch gradients, fp32 master weights and Adam moments (sharded at ZeRO-1).
void apply_nanotron_precision(SoftwareSpec& sw);

// What PyTorch's allocator and the device see of one rank's predicted memory.
struct NanotronMemory {
  double forward_backward_allocated = 0.0;  // rapidllm's peak + the bf16 gradients, NCCL buffers out
  double transient = 0.0;                   // of which activations and temporaries
  double optimizer_step_allocated = 0.0;    // the step's peak: the states, gradients, ZeRO-1 gather
                                            // buffer, the first stage's token buffer
  double reserved = 0.0;                    // the allocator's high-water mark
  double device_bytes = 0.0;                // reserved + NCCL buffers + the CUDA context
};

// `b`: rapidllm's breakdown of the rank; dp and zero_stage the row's; `token_hidden` the
// micro-batch's tokens x the hidden size.
[[nodiscard]] NanotronMemory nanotron_memory(const MemoryBreakdown& b, int dp, int zero_stage, double token_hidden,
                                             const NanotronStack& stack = nanotron_stack());

}  // namespace rapidllm::validate
