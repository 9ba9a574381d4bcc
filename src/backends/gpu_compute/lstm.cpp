#include "backends/gpu_compute/lstm.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kBuffers = 8;

void check_holds(const Buffer* buffer, int64_t elements, const char* what) {
  check(buffer != nullptr, std::string("LSTM on the GPU: no buffer for ") + what);
  check(buffer->size() >= static_cast<uint64_t>(elements) * sizeof(float),
        std::string("LSTM on the GPU: the buffer for ") + what + " is too small");
}

}  // namespace

LstmStep::LstmStep(Device& device)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::lstm_step(), kBuffers, sizeof(LstmStepPushConstants),
                                     kWorkgroup}) {}

void LstmStep::record_step(VkCommandBuffer cmd, DescriptorArena& arena, const LstmProblem& p,
                           const LstmStepBuffers& b, int64_t step) const {
  const int64_t gates = 4 * p.hidden;
  const int64_t states = p.directions * p.batch * p.hidden;
  const int64_t y_elements = p.seq * states;
  const int64_t projection_elements = p.seq * p.batch * p.directions * gates;
  check(step >= 0 && step < p.seq, "LSTM on the GPU: step outside the sequence");
  check(projection_elements <= UINT32_MAX && y_elements <= UINT32_MAX &&
            p.directions * gates * p.hidden <= UINT32_MAX,
        "LSTM on the GPU: the tensors exceed 32-bit indexing");
  check_holds(b.projection, projection_elements, "the input projection");
  check_holds(b.r, p.directions * gates * p.hidden, "R");
  if (p.has_bias) check_holds(b.bias, p.directions * 2 * gates, "B");
  if (p.has_peepholes) check_holds(b.peepholes, p.directions * 3 * p.hidden, "P");
  if (p.has_initial_h) check_holds(b.initial_h, states, "initial_h");
  check_holds(b.y, y_elements, "Y");
  check_holds(b.cell, states, "the cell state");
  if (p.writes_final_h) check_holds(b.final_h, states, "Y_h");

  const LstmStepPushConstants pc{static_cast<uint32_t>(p.seq),
                                 static_cast<uint32_t>(p.batch),
                                 static_cast<uint32_t>(p.hidden),
                                 static_cast<uint32_t>(p.directions),
                                 static_cast<uint32_t>(step),
                                 p.reverse ? 1u : 0u,
                                 p.has_bias ? 1u : 0u,
                                 p.has_peepholes ? 1u : 0u,
                                 p.has_initial_h ? 1u : 0u,
                                 p.has_initial_c ? 1u : 0u,
                                 p.writes_final_h ? 1u : 0u};
  // Absent operands bind a buffer the shader does not read.
  auto or_r = [&](const Buffer* buffer) { return buffer ? buffer : b.r; };
  const Buffer* final_h = p.writes_final_h ? b.final_h : b.cell;
  const Buffer* buffers[kBuffers] = {b.projection,      b.r, or_r(b.bias), or_r(b.peepholes),
                                     or_r(b.initial_h), b.y, b.cell,       final_h};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {b.y, b.cell, final_h};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, static_cast<uint64_t>(states)), written);
}

}  // namespace kiln::gpu_compute
