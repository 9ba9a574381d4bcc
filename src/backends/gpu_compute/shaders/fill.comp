#version 450
// Fills a buffer with one element repeated: word i gets pattern[i % period]. A 4-byte element
// is a period of 1, an 8-byte one 2, and a bool byte is replicated into a whole word (buffers
// span whole words, so the last word may be written past the tensor's bytes).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint dst[]; };

// Must match FillPushConstants in fill.h.
layout(push_constant) uniform Params {
  uint words;   // words to write
  uint period;  // 1 or 2
  uint pattern[2];
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.words) return;
  dst[i] = p.pattern[i % p.period];
}
