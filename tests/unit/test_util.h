// Helpers for op tests: run one node on a backend without writing an ONNX file.
//
//   auto out = kiln::testing::OpTest("Add").input(a).input(b).run();
//   EXPECT_TRUE(kiln::all_close(out[0], expected));
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kiln/kiln.h"

namespace kiln::testing {

class OpTest {
 public:
  explicit OpTest(std::string op_type, int opset = 21, std::string domain = "");

  OpTest& input(const Tensor& t);  // an undefined Tensor() is an absent optional input
  OpTest& outputs(int count);      // number of node outputs (default 1)
  // Leaves optional output `index` (< the output count) unnamed: the node does not produce it.
  OpTest& absent_output(int index);
  OpTest& attr(const std::string& name, int64_t value);
  OpTest& attr(const std::string& name, int value) { return attr(name, int64_t{value}); }
  OpTest& attr(const std::string& name, float value);
  OpTest& attr(const std::string& name, const std::string& value);
  OpTest& attr(const std::string& name, const char* value) {
    return attr(name, std::string(value));
  }
  OpTest& attr(const std::string& name, const std::vector<int64_t>& value);
  OpTest& attr(const std::string& name, const std::vector<float>& value);
  OpTest& attr(const std::string& name, const std::vector<std::string>& value);
  OpTest& attr(const std::string& name, const Tensor& value);
  OpTest& attr(const std::string& name, std::shared_ptr<ir::Graph> subgraph);
  // Inputs at these positions become initializers (known at load time) instead of graph inputs.
  OpTest& constant_input(size_t index);

  // Builds the one-node model, runs it and returns the outputs as host tensors.
  // Load errors and run errors both surface as kiln::Error.
  std::vector<Tensor> run(Backend backend = Backend::Cpu) const;
  // Runs on a worker made from model(), e.g. one whose placements the caller checked.
  std::vector<Tensor> run(Worker& worker) const;
  Model model() const;

 private:
  ir::Node node_;
  int opset_;
  std::vector<Tensor> inputs_;
  std::vector<bool> constant_;
  int outputs_ = 1;
  std::vector<int> absent_outputs_;
};

// Whether a GPU result `actual` matches the reference `expected` within atol + rtol * |expected|.
// NaN matches only NaN and an infinity only the same infinity: with an infinite expected value
// the tolerance itself is infinite, so a plain |a - e| <= tol would let any finite or
// wrong-signed value pass.
inline bool value_matches(double actual, double expected, double atol, double rtol) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return actual == expected;
  return std::abs(actual - expected) <= atol + rtol * std::abs(expected);
}

// Whether a worker could not be built because this machine has no device for the backend (or
// the build has no such backend): the only reason a GPU test may skip. Any other kiln::Error
// while building a worker is a failure.
inline bool is_no_device_error(const Error& e) {
  const std::string what = e.what();
  for (const char* no_device :
       {"no Vulkan device", "no OpenGL ES device", "is not available: this build of kiln has no"}) {
    if (what.find(no_device) != std::string::npos) return true;
  }
  return false;
}

// Shorthands for building test tensors.
inline Tensor f32(const Shape& shape, std::vector<float> values) {
  return Tensor::from_data<float>(shape, values);
}
inline Tensor i64(const Shape& shape, std::vector<int64_t> values) {
  return Tensor::from_data<int64_t>(shape, values);
}

}  // namespace kiln::testing
