#include "backends/gpu_pixel/timer_queries.h"

#include <EGL/egl.h>

#include <cstring>
#include <string>

namespace kiln::gpu_pixel {
namespace {

// From GL_EXT_disjoint_timer_query (not in every gl2ext.h).
constexpr GLenum kTimestamp = 0x8E28;
constexpr GLenum kGpuDisjoint = 0x8FBB;

bool has_gl_extension(const char* name) {
  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint i = 0; i < count; ++i) {
    const auto* ext =
        reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
    if (ext && std::strcmp(ext, name) == 0) return true;
  }
  return false;
}

}  // namespace

TimerQueries::TimerQueries(Context& context) : context_(context) {
  if (!has_gl_extension("GL_EXT_disjoint_timer_query")) return;
  query_counter_ = reinterpret_cast<QueryCounter>(eglGetProcAddress("glQueryCounterEXT"));
  get_u64_ = reinterpret_cast<GetQueryObjectU64>(eglGetProcAddress("glGetQueryObjectui64vEXT"));
  if (!get_u64_) query_counter_ = nullptr;
}

TimerQueries::~TimerQueries() {
  try {
    Context::Scope scope(context_);
    for (const Pair& p : pairs_) {
      glDeleteQueries(1, &p.begin);
      glDeleteQueries(1, &p.end);
    }
    if (!spare_.empty()) glDeleteQueries(static_cast<GLsizei>(spare_.size()), spare_.data());
  } catch (...) {
    // The context is gone, and its queries with it.
  }
}

void TimerQueries::begin(uint32_t id) {
  Pair p;
  for (GLuint* q : {&p.begin, &p.end}) {
    if (spare_.empty()) {
      glGenQueries(1, q);
    } else {
      *q = spare_.back();
      spare_.pop_back();
    }
  }
  p.id = id;
  if (pairs_.empty()) {  // a new batch: clear the disjoint flag of earlier work
    GLint disjoint = 0;
    glGetIntegerv(kGpuDisjoint, &disjoint);
  }
  query_counter_(p.begin, kTimestamp);
  pairs_.push_back(p);
}

void TimerQueries::end(bool keep) {
  query_counter_(pairs_.back().end, kTimestamp);
  if (!keep) pairs_.back().id = -1;
}

DeviceTimings TimerQueries::take() {
  Context::Scope scope(context_);
  glFinish();  // every result is then available
  GLint disjoint = 0;
  glGetIntegerv(kGpuDisjoint, &disjoint);  // reading it also clears it
  DeviceTimings out;
  out.method = "OpenGL timer queries";
  for (const Pair& p : pairs_) {
    GLuint64 start = 0, end = 0;
    get_u64_(p.begin, GL_QUERY_RESULT, &start);
    get_u64_(p.end, GL_QUERY_RESULT, &end);
    if (p.id >= 0 && !disjoint)
      out.intervals.push_back({static_cast<uint32_t>(p.id), start, end >= start ? end : start});
    spare_.push_back(p.begin);
    spare_.push_back(p.end);
  }
  pairs_.clear();
  return out;
}

}  // namespace kiln::gpu_pixel
