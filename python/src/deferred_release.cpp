#include "deferred_release.h"

#include <mutex>
#include <vector>

namespace kiln_python {
namespace {

std::mutex queue_mutex;
std::vector<PyObject*> queued;  // references to drop once the GIL is held

int drain_pending_call(void*) {
  drain_released();
  return 0;
}

void release(void* pointer) {
  auto* object = static_cast<PyObject*>(pointer);
  if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing left to free into
  if (PyGILState_Check()) {
    Py_DECREF(object);
    return;
  }
  bool first = false;
  {
    std::lock_guard lock(queue_mutex);
    first = queued.empty();
    queued.push_back(object);
  }
  // Needs neither the GIL nor a thread state; when the queue of pending calls is full, the
  // next binding call drains instead.
  if (first) Py_AddPendingCall(drain_pending_call, nullptr);
}

}  // namespace

std::shared_ptr<void> keep_alive(pybind11::handle object) {
  Py_INCREF(object.ptr());
  return std::shared_ptr<void>(object.ptr(), release);
}

void drain_released() {
  std::vector<PyObject*> objects;
  {
    std::lock_guard lock(queue_mutex);
    if (queued.empty()) return;
    objects.swap(queued);
  }
  for (PyObject* o : objects) Py_DECREF(o);
}

}  // namespace kiln_python
