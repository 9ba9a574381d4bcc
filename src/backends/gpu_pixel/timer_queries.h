// Per-layer device timing for the profiler, with GL_EXT_disjoint_timer_query: a GPU timestamp
// (glQueryCounterEXT) before and after a layer's draws, read once the results are available.
// Where the driver lacks the extension, supported() is false and the runtime shows the
// CPU-side intervals of the layers' recording instead. A disjoint operation (the GPU clock
// jumped) drops that batch of timings.
#pragma once

#include <GLES3/gl3.h>

#include <cstdint>
#include <vector>

#include "backends/gpu_pixel/context.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_pixel {

class TimerQueries {
 public:
  explicit TimerQueries(Context& context);  // call inside a Context::Scope
  ~TimerQueries();
  TimerQueries(const TimerQueries&) = delete;
  TimerQueries& operator=(const TimerQueries&) = delete;

  bool supported() const { return query_counter_ != nullptr; }

  // Inside a Context::Scope, around a layer's draws; `keep` false drops the pair.
  void begin(uint32_t id);
  void end(bool keep);
  // Waits for every result and hands the intervals over.
  DeviceTimings take();

 private:
  using QueryCounter = void (*)(GLuint, GLenum);
  using GetQueryObjectU64 = void (*)(GLuint, GLenum, GLuint64*);

  Context& context_;
  QueryCounter query_counter_ = nullptr;
  GetQueryObjectU64 get_u64_ = nullptr;
  struct Pair {
    GLuint begin = 0, end = 0;
    int64_t id = -1;
  };
  std::vector<Pair> pairs_;  // written, not yet read
  std::vector<GLuint> spare_;
};

}  // namespace kiln::gpu_pixel
