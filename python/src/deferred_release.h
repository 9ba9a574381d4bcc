// Python objects that kiln keeps alive (numpy arrays a run borrows) and releases on any thread.
//
// kiln drops its last reference to a borrowed array wherever the last handle goes: on a job
// thread, or on the caller's thread inside a call that released the GIL. Taking the GIL there
// could deadlock (the thread holding it may be waiting for that very job), so a release without
// the GIL is queued and done the next time Python runs: through Py_AddPendingCall, and at the
// end of every binding call that released the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

namespace kiln_python {

// An owner for kiln::Tensor::borrow that holds a reference to `object`. Call with the GIL held.
std::shared_ptr<void> keep_alive(pybind11::handle object);

// Drops the references queued by releases that happened without the GIL. Call with the GIL.
void drain_released();

// Releases the GIL for the lifetime of the object, then drains what kiln let go of meanwhile.
class WithoutGil {
 public:
  WithoutGil() : state_(PyEval_SaveThread()) {}
  ~WithoutGil() {
    PyEval_RestoreThread(state_);
    drain_released();
  }
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;

 private:
  PyThreadState* state_;
};

}  // namespace kiln_python
