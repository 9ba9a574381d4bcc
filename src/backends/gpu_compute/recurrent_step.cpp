#include "backends/gpu_compute/recurrent_step.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kBuffers = 8;
constexpr size_t kMaxActivations = 4;  // two directions of GRU's two functions

// The shader decodes ActivationKind by value.
static_assert(static_cast<int>(recurrent::ActivationKind::kRelu) == 0 &&
              static_cast<int>(recurrent::ActivationKind::kAffine) == 3 &&
              static_cast<int>(recurrent::ActivationKind::kSoftplus) == 10);

// Matches the FLAG_* constants of recurrent_step.comp.
enum Flag : uint32_t {
  kReverse = 1,
  kLayout1 = 2,
  kBias = 4,
  kInitialH = 8,
  kLengths = 16,
  kLengthsInt64 = 32,
  kClip = 64,
  kLinearBeforeReset = 128,
  kWriteFinalH = 256,
};

void check_holds(const Buffer* buffer, int64_t bytes, const char* what) {
  check(buffer != nullptr, std::string("RNN/GRU on the GPU: no buffer for ") + what);
  check(buffer->size() >= static_cast<uint64_t>(bytes),
        std::string("RNN/GRU on the GPU: the buffer for ") + what + " is too small");
}

}  // namespace

RecurrentStep::RecurrentStep(Device& device)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::recurrent_step(), kBuffers,
                                     sizeof(RecurrentStepPushConstants), kWorkgroup}) {}

void RecurrentStep::record_step(VkCommandBuffer cmd, DescriptorArena& arena,
                                const RecurrentStepProblem& p, const RecurrentStepBuffers& b,
                                int64_t step) const {
  const int64_t width = p.gates() * p.hidden;
  const int64_t states = p.directions * p.batch * p.hidden;
  const int64_t y_elements = p.seq * states;
  const int64_t projection_elements = p.seq * p.batch * p.directions * width;
  const auto f = static_cast<int64_t>(sizeof(float));
  check(step >= 0 && step < p.seq, "RNN/GRU on the GPU: step outside the sequence");
  check(projection_elements <= UINT32_MAX && y_elements <= UINT32_MAX &&
            p.state_elements() <= UINT32_MAX && p.directions * width * p.hidden <= UINT32_MAX,
        "RNN/GRU on the GPU: the tensors exceed 32-bit indexing");
  check(p.activations.size() <= kMaxActivations &&
            p.activations.size() ==
                static_cast<size_t>(p.directions * (p.cell == RecurrentCell::kGru ? 2 : 1)),
        "RNN/GRU on the GPU: the activation functions do not match the cell and directions");
  check_holds(b.projection, projection_elements * f, "the input projection");
  check_holds(b.r, p.directions * width * p.hidden * f, "R");
  if (p.has_bias) check_holds(b.bias, p.directions * 2 * width * f, "B");
  if (p.has_lengths) check_holds(b.lengths, p.batch * (p.lengths_int64 ? 8 : 4), "sequence_lens");
  if (p.has_initial_h) check_holds(b.initial_h, states * f, "initial_h");
  check_holds(b.y, y_elements * f, "Y");
  check_holds(b.state, p.state_elements() * f, "the hidden state");
  if (p.writes_final_h) check_holds(b.final_h, states * f, "Y_h");

  RecurrentStepPushConstants pc;
  for (size_t i = 0; i < p.activations.size(); ++i) {
    pc.alpha[i] = p.activations[i].alpha;
    pc.beta[i] = p.activations[i].beta;
    pc.kinds |= static_cast<uint32_t>(p.activations[i].kind) << (4 * i);
  }
  pc.seq = static_cast<uint32_t>(p.seq);
  pc.batch = static_cast<uint32_t>(p.batch);
  pc.hidden = static_cast<uint32_t>(p.hidden);
  pc.directions = static_cast<uint32_t>(p.directions);
  pc.step = static_cast<uint32_t>(step);
  pc.clip = p.clip;
  pc.flags = (p.reverse ? kReverse : 0) | (p.layout == 1 ? kLayout1 : 0) |
             (p.has_bias ? kBias : 0) | (p.has_initial_h ? kInitialH : 0) |
             (p.has_lengths ? kLengths : 0) | (p.lengths_int64 ? kLengthsInt64 : 0) |
             (p.has_clip ? kClip : 0) | (p.linear_before_reset ? kLinearBeforeReset : 0) |
             (p.writes_final_h ? kWriteFinalH : 0);

  // Absent operands bind a buffer the shader does not read.
  auto or_r = [&](const Buffer* buffer) { return buffer ? buffer : b.r; };
  const Buffer* final_h = p.writes_final_h ? b.final_h : b.state;
  const Buffer* buffers[kBuffers] = {b.projection,      or_r(b.r), or_r(b.bias), or_r(b.lengths),
                                     or_r(b.initial_h), b.y,       b.state,      final_h};
  const GroupCount groups = groups_for(device_, pipeline_, static_cast<uint64_t>(states));
  const Buffer* written[] = {b.y, b.state, final_h};
  // RNN: one dispatch (phase 0); GRU: the gates (1), then the candidate (2).
  const bool gru = p.cell == RecurrentCell::kGru;
  for (uint32_t phase = gru ? 1 : 0; phase <= (gru ? 2u : 0u); ++phase) {
    pc.phase = phase;
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)), groups, written);
  }
}

}  // namespace kiln::gpu_compute
