// RNN, GRU and LSTM against a naive double-precision reference written from the ONNX spec: it
// walks each batch entry's sequence on its own, one time step and one hidden unit at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "kiln/float_types.h"
#include "test_util.h"

namespace kiln {
namespace {

using testing::f32;
using testing::OpTest;

struct Case {
  std::string op = "RNN";  // RNN, GRU or LSTM
  std::string direction = "forward";
  int64_t layout = 0;
  int64_t seq = 3, batch = 2, input = 3, hidden = 4;
  bool bias = true;
  bool initial_h = true;
  bool initial_c = true;         // LSTM only
  bool peepholes = false;        // LSTM only
  std::vector<int32_t> lengths;  // empty: no sequence_lens input
  float clip = 0.0f;             // 0: no clip attribute
  std::vector<std::string> activations;
  std::vector<float> alpha, beta;
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM
  bool constant_weights = false;
  DataType dtype = DataType::Float32;
  uint32_t seed = 1;

  int64_t gates() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  int64_t directions() const { return direction == "bidirectional" ? 2 : 1; }
  std::vector<std::string> all_activations() const {
    std::vector<std::string> names = activations;
    if (names.empty()) {
      const std::vector<std::string> defaults =
          op == "RNN"   ? std::vector<std::string>{"Tanh"}
          : op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                        : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
      for (int64_t d = 0; d < directions(); ++d)
        names.insert(names.end(), defaults.begin(), defaults.end());
    }
    return names;
  }
};

// Values exactly representable in every tested type, so that float16 inputs lose nothing.
std::vector<double> random_values(int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = dist(rng) / 64.0;
  return v;
}

// --- the reference ------------------------------------------------------------------------

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Relu") return std::max(x, 0.0);
    if (name == "Tanh") return std::tanh(x);
    if (name == "Sigmoid") return 1 / (1 + std::exp(-x));
    if (name == "Affine") return alpha * x + beta;
    if (name == "LeakyRelu") return x < 0 ? alpha * x : x;
    if (name == "ThresholdedRelu") return x > alpha ? x : 0;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "HardSigmoid") return std::min(1.0, std::max(0.0, alpha * x + beta));
    if (name == "Elu") return x < 0 ? alpha * (std::exp(x) - 1) : x;
    if (name == "Softsign") return x / (1 + std::fabs(x));
    if (name == "Softplus") return std::log(1 + std::exp(x));
    ADD_FAILURE() << "unknown activation " << name;
    return 0;
  }
};

// The alpha and beta lists are consumed in order by the functions that take parameters.
std::vector<Activation> reference_activations(const Case& c) {
  std::vector<Activation> out;
  size_t a = 0, b = 0;
  for (const std::string& name : c.all_activations()) {
    Activation f{name};
    const bool one = name == "LeakyRelu" || name == "ThresholdedRelu" || name == "Elu";
    const bool two = name == "Affine" || name == "ScaledTanh" || name == "HardSigmoid";
    if (name == "LeakyRelu") f.alpha = 0.01;
    if (name == "ThresholdedRelu" || name == "Elu" || name == "Affine" || name == "ScaledTanh")
      f.alpha = 1;
    if (name == "ScaledTanh") f.beta = 1;
    if (name == "HardSigmoid") f.alpha = 0.2, f.beta = 0.5;
    if ((one || two) && a < c.alpha.size()) f.alpha = c.alpha[a++];
    if (two && b < c.beta.size()) f.beta = c.beta[b++];
    out.push_back(f);
  }
  return out;
}

// The inputs in the spec's layout-0 form; absent optional inputs are empty.
struct Inputs {
  std::vector<double> x;       // [seq, batch, input]
  std::vector<double> w, r;    // [dirs, gates * hidden, input | hidden]
  std::vector<double> b;       // [dirs, 2 * gates * hidden]
  std::vector<double> h0, c0;  // [dirs, batch, hidden]
  std::vector<double> p;       // [dirs, 3 * hidden]
};

Inputs make_inputs(const Case& c) {
  std::mt19937 rng(c.seed);
  const int64_t nd = c.directions(), gh = c.gates() * c.hidden;
  Inputs in;
  in.x = random_values(c.seq * c.batch * c.input, rng);
  in.w = random_values(nd * gh * c.input, rng);
  in.r = random_values(nd * gh * c.hidden, rng);
  if (c.bias) in.b = random_values(nd * 2 * gh, rng);
  if (c.initial_h) in.h0 = random_values(nd * c.batch * c.hidden, rng);
  if (c.op == "LSTM" && c.initial_c) in.c0 = random_values(nd * c.batch * c.hidden, rng);
  if (c.op == "LSTM" && c.peepholes) in.p = random_values(nd * 3 * c.hidden, rng);
  return in;
}

struct Outputs {
  std::vector<double> y;    // [seq, dirs, batch, hidden]
  std::vector<double> y_h;  // [dirs, batch, hidden]
  std::vector<double> y_c;  // [dirs, batch, hidden]
};

Outputs reference(const Case& c, const Inputs& in) {
  const int64_t nd = c.directions(), H = c.hidden, I = c.input, B = c.batch, G = c.gates();
  const std::vector<Activation> act = reference_activations(c);
  const size_t per_dir = act.size() / static_cast<size_t>(nd);
  Outputs out;
  out.y.assign(static_cast<size_t>(c.seq * nd * B * H), 0.0);
  out.y_h.assign(static_cast<size_t>(nd * B * H), 0.0);
  out.y_c.assign(static_cast<size_t>(nd * B * H), 0.0);
  auto clip = [&](double v) {
    return c.clip > 0 ? std::min<double>(c.clip, std::max<double>(-c.clip, v)) : v;
  };

  for (int64_t d = 0; d < nd; ++d) {
    const bool reversed = c.direction == "reverse" || d == 1;
    const Activation& f = act[d * per_dir];
    const Activation& g = act[std::min(d * per_dir + 1, act.size() - 1)];
    const Activation& h_act = act[std::min(d * per_dir + 2, act.size() - 1)];
    // W·x + Wb for gate row `row`, and R·v + Rb.
    auto wx = [&](int64_t row, const double* x) {
      double s = c.bias ? in.b[d * 2 * G * H + row] : 0.0;
      for (int64_t i = 0; i < I; ++i) s += in.w[(d * G * H + row) * I + i] * x[i];
      return s;
    };
    auto rv = [&](int64_t row, const std::vector<double>& v) {
      double s = c.bias ? in.b[d * 2 * G * H + G * H + row] : 0.0;
      for (int64_t m = 0; m < H; ++m) s += in.r[(d * G * H + row) * H + m] * v[m];
      return s;
    };
    auto peephole = [&](int64_t k, int64_t j) {
      return in.p.empty() ? 0.0 : in.p[d * 3 * H + k * H + j];
    };

    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(H, 0.0), cell(H, 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (!in.h0.empty()) h[j] = in.h0[(d * B + b) * H + j];
        if (!in.c0.empty()) cell[j] = in.c0[(d * B + b) * H + j];
      }
      const int64_t len = c.lengths.empty() ? c.seq : c.lengths[b];
      for (int64_t k = 0; k < len; ++k) {
        const int64_t t = reversed ? len - 1 - k : k;
        const double* x = in.x.data() + (t * B + b) * I;
        std::vector<double> next(H);
        if (c.op == "RNN") {
          for (int64_t j = 0; j < H; ++j) next[j] = f(clip(wx(j, x) + rv(j, h)));
        } else if (c.op == "GRU") {
          std::vector<double> z(H), r(H), rh(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = f(clip(wx(j, x) + rv(j, h)));
            r[j] = f(clip(wx(H + j, x) + rv(H + j, h)));
            rh[j] = r[j] * h[j];
          }
          for (int64_t j = 0; j < H; ++j) {
            const double pre = c.linear_before_reset ? wx(2 * H + j, x) + r[j] * rv(2 * H + j, h)
                                                     : wx(2 * H + j, x) + rv(2 * H + j, rh);
            next[j] = (1 - z[j]) * g(clip(pre)) + z[j] * h[j];
          }
        } else {
          std::vector<double> new_cell(H);
          for (int64_t j = 0; j < H; ++j) {
            const double i = f(clip(wx(j, x) + rv(j, h) + peephole(0, j) * cell[j]));
            const double fg =
                c.input_forget
                    ? 1 - i
                    : f(clip(wx(2 * H + j, x) + rv(2 * H + j, h) + peephole(2, j) * cell[j]));
            const double cand = g(clip(wx(3 * H + j, x) + rv(3 * H + j, h)));
            new_cell[j] = fg * cell[j] + i * cand;
            const double o = f(clip(wx(H + j, x) + rv(H + j, h) + peephole(1, j) * new_cell[j]));
            next[j] = o * h_act(new_cell[j]);
          }
          cell = new_cell;
        }
        h = next;
        for (int64_t j = 0; j < H; ++j) out.y[((t * nd + d) * B + b) * H + j] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        out.y_h[(d * B + b) * H + j] = h[j];
        out.y_c[(d * B + b) * H + j] = cell[j];
      }
    }
  }
  return out;
}

// --- running kiln -------------------------------------------------------------------------

Tensor make_tensor(DataType dtype, const Shape& shape, const std::vector<double>& v) {
  if (dtype == DataType::Float64) return Tensor::from_data<double>(shape, v);
  if (dtype == DataType::Float16) {
    std::vector<Float16> h;
    for (double x : v) h.push_back(Float16(static_cast<float>(x)));
    return Tensor::from_data<Float16>(shape, h);
  }
  return f32(shape, std::vector<float>(v.begin(), v.end()));
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.element_count(); ++i) {
    if (t.dtype() == DataType::Float64)
      out.push_back(t.data<double>()[i]);
    else if (t.dtype() == DataType::Float16)
      out.push_back(static_cast<float>(t.data<Float16>()[i]));
    else
      out.push_back(t.data<float>()[i]);
  }
  return out;
}

// Y from the reference's [seq, dirs, batch, hidden] to layout 1's [batch, seq, dirs, hidden].
std::vector<double> y_to_layout1(const std::vector<double>& y, int64_t seq, int64_t nd, int64_t B,
                                 int64_t H) {
  std::vector<double> out(y.size());
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t d = 0; d < nd; ++d)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j)
          out[((b * seq + t) * nd + d) * H + j] = y[((t * nd + d) * B + b) * H + j];
  return out;
}

// [A, B, rest] -> [B, A, rest]: between layout 0 and layout 1 of X and the states.
std::vector<double> swap_outer(const std::vector<double>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < rest; ++k) out[(j * a + i) * rest + k] = v[(i * b + j) * rest + k];
  return out;
}

OpTest make_op(const Case& c, const Inputs& in) {
  const int64_t nd = c.directions(), gh = c.gates() * c.hidden, B = c.batch, H = c.hidden;
  const bool l1 = c.layout == 1;
  OpTest op(c.op);
  op.attr("hidden_size", c.hidden);
  op.attr("direction", c.direction);
  if (c.layout != 0) op.attr("layout", c.layout);
  if (c.clip > 0) op.attr("clip", c.clip);
  if (!c.activations.empty()) op.attr("activations", c.activations);
  if (!c.alpha.empty()) op.attr("activation_alpha", c.alpha);
  if (!c.beta.empty()) op.attr("activation_beta", c.beta);
  if (c.linear_before_reset) op.attr("linear_before_reset", int64_t{1});
  if (c.input_forget) op.attr("input_forget", int64_t{1});
  const Shape state = l1 ? Shape{B, nd, H} : Shape{nd, B, H};
  auto state_values = [&](const std::vector<double>& v) {
    return l1 ? swap_outer(v, nd, B, H) : v;
  };
  op.input(make_tensor(c.dtype, l1 ? Shape{B, c.seq, c.input} : Shape{c.seq, B, c.input},
                       l1 ? swap_outer(in.x, c.seq, B, c.input) : in.x));
  op.input(make_tensor(c.dtype, {nd, gh, c.input}, in.w));
  op.input(make_tensor(c.dtype, {nd, gh, H}, in.r));
  op.input(c.bias ? make_tensor(c.dtype, {nd, 2 * gh}, in.b) : Tensor());
  op.input(c.lengths.empty() ? Tensor() : Tensor::from_data<int32_t>({B}, c.lengths));
  op.input(in.h0.empty() ? Tensor() : make_tensor(c.dtype, state, state_values(in.h0)));
  if (c.op == "LSTM") {
    op.input(in.c0.empty() ? Tensor() : make_tensor(c.dtype, state, state_values(in.c0)));
    op.input(in.p.empty() ? Tensor() : make_tensor(c.dtype, {nd, 3 * H}, in.p));
  }
  if (c.constant_weights) op.constant_input(1).constant_input(2).constant_input(3);
  op.outputs(c.op == "LSTM" ? 3 : 2);
  return op;
}

void expect_near_all(const std::vector<double>& actual, const std::vector<double>& expected,
                     double tolerance, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_NEAR(actual[i], expected[i], tolerance * (1 + std::fabs(expected[i])))
        << what << " element " << i;
  }
}

void check_case(const Case& c, const std::string& what) {
  const Inputs in = make_inputs(c);
  const Outputs want = reference(c, in);
  const std::vector<Tensor> got = make_op(c, in).run();
  const int64_t nd = c.directions(), B = c.batch, H = c.hidden;
  const bool l1 = c.layout == 1;
  const double tolerance = c.dtype == DataType::Float16   ? 1e-2
                           : c.dtype == DataType::Float64 ? 1e-12
                                                          : 1e-5;
  ASSERT_EQ(got[0].shape(), (l1 ? Shape{B, c.seq, nd, H} : Shape{c.seq, nd, B, H})) << what;
  ASSERT_EQ(got[0].dtype(), c.dtype) << what;
  expect_near_all(to_doubles(got[0]), l1 ? y_to_layout1(want.y, c.seq, nd, B, H) : want.y,
                  tolerance, what + " Y");
  const Shape state = l1 ? Shape{B, nd, H} : Shape{nd, B, H};
  ASSERT_EQ(got[1].shape(), state) << what;
  expect_near_all(to_doubles(got[1]), l1 ? swap_outer(want.y_h, nd, B, H) : want.y_h, tolerance,
                  what + " Y_h");
  if (c.op == "LSTM") {
    expect_near_all(to_doubles(got[2]), l1 ? swap_outer(want.y_c, nd, B, H) : want.y_c, tolerance,
                    what + " Y_c");
  }
}

// --- tests --------------------------------------------------------------------------------

TEST(Recurrent, RnnOneUnitByHand) {
  // h1 = tanh(0.5 * 1 + 0.1 + 0.2), h2 = tanh(0.5 * 2 + 0.25 * h1 + 0.1 + 0.2)
  const std::vector<Tensor> out = OpTest("RNN")
                                      .attr("hidden_size", int64_t{1})
                                      .input(f32({2, 1, 1}, {1, 2}))
                                      .input(f32({1, 1, 1}, {0.5f}))
                                      .input(f32({1, 1, 1}, {0.25f}))
                                      .input(f32({1, 2}, {0.1f, 0.2f}))
                                      .outputs(2)
                                      .run();
  const float h1 = std::tanh(0.8f), h2 = std::tanh(1.3f + 0.25f * h1);
  EXPECT_TRUE(all_close(out[0], f32({2, 1, 1, 1}, {h1, h2}), 1e-6, 1e-6)) << out[0].to_string();
  EXPECT_TRUE(all_close(out[1], f32({1, 1, 1}, {h2}), 1e-6, 1e-6)) << out[1].to_string();
}

TEST(Recurrent, EveryOpDirectionAndLayoutAgainstReference) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      for (int64_t layout : {0, 1}) {
        Case c;
        c.op = op;
        c.direction = direction;
        c.layout = layout;
        c.seed = static_cast<uint32_t>(layout * 7 + 3);
        check_case(c, std::string(op) + " " + direction + " layout " + std::to_string(layout));
      }
    }
  }
}

TEST(Recurrent, SequenceLengthsLeaveZerosAndLastValidState) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      for (int64_t layout : {0, 1}) {
        Case c;
        c.op = op;
        c.direction = direction;
        c.layout = layout;
        c.seq = 4;
        c.batch = 4;
        c.lengths = {4, 2, 0, 1};
        check_case(c, std::string(op) + " " + direction + " with sequence_lens");
      }
    }
  }
}

TEST(Recurrent, OptionalInputsAbsent) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    Case c;
    c.op = op;
    c.bias = false;
    c.initial_h = false;
    c.initial_c = false;
    check_case(c, std::string(op) + " without B and initial states");
  }
}

TEST(Recurrent, ConstantWeightsArePackedOnce) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    Case c;
    c.op = op;
    c.direction = "bidirectional";
    c.constant_weights = true;
    c.hidden = 37;  // more than one GEMM panel
    c.input = 19;
    c.lengths = {3, 1};
    check_case(c, std::string(op) + " constant weights");
    c.linear_before_reset = true;
    if (c.op == "GRU") check_case(c, "GRU constant weights, linear_before_reset");
  }
}

TEST(Recurrent, GruLinearBeforeReset) {
  for (int64_t layout : {0, 1}) {
    Case c;
    c.op = "GRU";
    c.linear_before_reset = true;
    c.direction = "bidirectional";
    c.layout = layout;
    check_case(c, "GRU linear_before_reset");
  }
}

TEST(Recurrent, LstmPeepholesInputForgetAndClip) {
  Case c;
  c.op = "LSTM";
  c.peepholes = true;
  check_case(c, "LSTM peepholes");
  c.input_forget = true;
  check_case(c, "LSTM input_forget");
  c.clip = 0.3f;
  c.direction = "bidirectional";
  check_case(c, "LSTM clip");
}

TEST(Recurrent, ClipBoundsGatePreActivations) {
  for (const char* op : {"RNN", "GRU"}) {
    Case c;
    c.op = op;
    c.clip = 0.25f;
    c.direction = "reverse";
    check_case(c, std::string(op) + " clip");
  }
}

TEST(Recurrent, EveryActivationFunction) {
  // Each function is the RNN's f; the parameterised ones read their alpha/beta in order.
  const std::vector<std::string> names = {
      "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};
  for (const std::string& name : names) {
    Case c;
    c.op = "RNN";
    c.activations = {name};
    c.alpha = {0.7f};
    c.beta = {0.3f};
    check_case(c, "RNN " + name);
  }
  Case gru;
  gru.op = "GRU";
  gru.direction = "bidirectional";
  gru.activations = {"HardSigmoid", "LeakyRelu", "Sigmoid", "ScaledTanh"};
  gru.alpha = {0.3f, 0.2f, 0.9f};
  gru.beta = {0.6f, 1.5f};
  check_case(gru, "GRU with parameterised activations per direction");
  Case lstm;
  lstm.op = "LSTM";
  lstm.activations = {"HardSigmoid", "Softsign", "Affine"};
  lstm.alpha = {0.25f};  // Affine takes the default alpha 1 and beta 0
  check_case(lstm, "LSTM with defaults past the alpha list");
}

TEST(Recurrent, OneDirectionOfActivationsServesBoth) {
  Case c;
  c.op = "LSTM";
  c.direction = "bidirectional";
  c.activations = {"Sigmoid", "Relu", "Softsign"};
  Case both = c;
  both.activations = {"Sigmoid", "Relu", "Softsign", "Sigmoid", "Relu", "Softsign"};
  const Inputs in = make_inputs(c);
  const Outputs want = reference(both, in);
  const std::vector<Tensor> got = make_op(c, in).run();
  expect_near_all(to_doubles(got[0]), want.y, 1e-5, "Y");
}

TEST(Recurrent, DoubleAndFloat16) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    for (DataType dtype : {DataType::Float64, DataType::Float16}) {
      Case c;
      c.op = op;
      c.dtype = dtype;
      c.direction = "bidirectional";
      c.lengths = {2, 3};
      c.peepholes = true;
      check_case(c, std::string(op) + " " + dtype_name(dtype).data());
      c.constant_weights = true;
      check_case(c, std::string(op) + " constant " + dtype_name(dtype).data());
    }
  }
}

TEST(Recurrent, EmptyDimensions) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    Case c;
    c.op = op;
    c.seq = 0;  // Y is empty, Y_h is the initial state
    check_case(c, std::string(op) + " empty sequence");
    c.seq = 2;
    c.batch = 0;
    c.initial_h = c.initial_c = false;
    check_case(c, std::string(op) + " empty batch");
    c.batch = 2;
    c.input = 0;  // only biases and the recurrence drive the state
    check_case(c, std::string(op) + " no input features");
  }
}

TEST(Recurrent, OnlyTheFirstOutput) {
  Case c;
  c.op = "GRU";
  const Inputs in = make_inputs(c);
  const Outputs want = reference(c, in);
  const std::vector<Tensor> got = make_op(c, in).outputs(1).run();
  ASSERT_EQ(got.size(), 1u);
  expect_near_all(to_doubles(got[0]), want.y, 1e-5, "Y");
}

TEST(Recurrent, InputsNeverModified) {
  Case c;
  c.op = "LSTM";
  c.peepholes = true;
  c.direction = "bidirectional";
  const Inputs in = make_inputs(c);
  const int64_t nd = 2, gh = 4 * c.hidden;
  const std::vector<Tensor> inputs = {make_tensor(c.dtype, {c.seq, c.batch, c.input}, in.x),
                                      make_tensor(c.dtype, {nd, gh, c.input}, in.w),
                                      make_tensor(c.dtype, {nd, gh, c.hidden}, in.r),
                                      make_tensor(c.dtype, {nd, 2 * gh}, in.b),
                                      Tensor::from_data<int32_t>({c.batch}, {3, 2}),
                                      make_tensor(c.dtype, {nd, c.batch, c.hidden}, in.h0),
                                      make_tensor(c.dtype, {nd, c.batch, c.hidden}, in.c0),
                                      make_tensor(c.dtype, {nd, 3 * c.hidden}, in.p)};
  std::vector<Tensor> copies;
  OpTest op("LSTM");
  op.attr("hidden_size", c.hidden).attr("direction", "bidirectional").outputs(3);
  for (const Tensor& t : inputs) {
    copies.push_back(t.clone());
    op.input(t);
  }
  op.run();
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(inputs[i].to_string(1000), copies[i].to_string(1000)) << "input " << i;
  }
}

OpTest valid_rnn(int64_t hidden_size = 2) {
  OpTest op("RNN");
  op.attr("hidden_size", hidden_size)
      .input(f32({3, 1, 2}, {1, 2, 3, 4, 5, 6}))
      .input(f32({1, 2, 2}, {1, 0, 0, 1}))
      .input(f32({1, 2, 2}, {1, 0, 0, 1}));
  return op;
}

TEST(Recurrent, HiddenSizeDefaultsToRsWidth) {
  OpTest without("RNN");
  without.input(f32({3, 1, 2}, {1, 2, 3, 4, 5, 6}))
      .input(f32({1, 2, 2}, {0.5f, 0, 0, 1}))
      .input(f32({1, 2, 2}, {0.25f, 0, 0, -1}));
  const Tensor y = without.run()[0];
  ASSERT_EQ(y.shape(), (Shape{3, 1, 1, 2}));
  // Unit 0: h = tanh(0.5 x0 + 0.25 h); unit 1: h = tanh(x1 - h).
  float h0 = 0, h1 = 0;
  std::vector<float> want;
  for (int t = 0; t < 3; ++t) {
    h0 = std::tanh(0.5f * (2 * t + 1) + 0.25f * h0);
    h1 = std::tanh(float(2 * t + 2) - h1);
    want.push_back(h0);
    want.push_back(h1);
  }
  EXPECT_TRUE(all_close(y, f32({3, 1, 1, 2}, want), 1e-6, 1e-6)) << y.to_string();
}

TEST(Recurrent, BadInputIsAnError) {
  EXPECT_NO_THROW(valid_rnn().run());
  EXPECT_THROW(valid_rnn().attr("direction", "sideways").run(), Error);
  EXPECT_THROW(valid_rnn().attr("layout", int64_t{2}).run(), Error);
  EXPECT_THROW(valid_rnn(3).run(), Error);
  EXPECT_THROW(valid_rnn(-1).run(), Error);
  EXPECT_THROW(valid_rnn().attr("clip", -1.0f).run(), Error);
  EXPECT_THROW(valid_rnn().attr("activations", std::vector<std::string>{"Gelu"}).run(), Error);
  EXPECT_THROW(valid_rnn().attr("activations", std::vector<std::string>{"Tanh", "Tanh"}).run(),
               Error);
  EXPECT_THROW(valid_rnn().attr("direction", "bidirectional").run(), Error);  // W has 1 direction
  // B of the wrong size, sequence_lens out of range or of a float type, initial_h misshapen.
  EXPECT_THROW(valid_rnn().input(f32({1, 3}, {0, 0, 0})).run(), Error);
  EXPECT_THROW(valid_rnn().input(Tensor()).input(Tensor::from_data<int32_t>({1}, {4})).run(),
               Error);
  EXPECT_THROW(valid_rnn().input(Tensor()).input(Tensor::from_data<int32_t>({1}, {-1})).run(),
               Error);
  EXPECT_THROW(valid_rnn().input(Tensor()).input(f32({1}, {3})).run(), Error);
  EXPECT_THROW(valid_rnn().input(Tensor()).input(Tensor()).input(f32({1, 2, 1}, {0, 0})).run(),
               Error);
  // X of the wrong rank or type; W and R that disagree with X or hidden_size.
  EXPECT_THROW(OpTest("RNN")
                   .attr("hidden_size", int64_t{2})
                   .input(f32({3, 2}, {1, 2, 3, 4, 5, 6}))
                   .input(f32({1, 2, 2}, {1, 0, 0, 1}))
                   .input(f32({1, 2, 2}, {1, 0, 0, 1}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("RNN")
                   .input(testing::i64({3, 1, 2}, {1, 2, 3, 4, 5, 6}))
                   .input(f32({1, 2, 2}, {1, 0, 0, 1}))
                   .input(f32({1, 2, 2}, {1, 0, 0, 1}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("GRU")
                   .attr("hidden_size", int64_t{2})
                   .input(f32({3, 1, 2}, {1, 2, 3, 4, 5, 6}))
                   .input(f32({1, 2, 2}, {1, 0, 0, 1}))  // GRU needs 3 * hidden rows
                   .input(f32({1, 2, 2}, {1, 0, 0, 1}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("LSTM")
                   .attr("hidden_size", int64_t{1})
                   .input(f32({1, 1, 1}, {1}))
                   .input(f32({1, 4, 1}, {1, 1, 1, 1}))
                   .input(f32({1, 4, 1}, {1, 1, 1, 1}))
                   .input(Tensor())
                   .input(Tensor())
                   .input(Tensor())
                   .input(Tensor())
                   .input(f32({1, 2}, {1, 1}))  // P needs 3 * hidden values
                   .run(),
               Error);
  EXPECT_THROW(OpTest("LSTM")
                   .attr("hidden_size", int64_t{1})
                   .input(f32({1, 1, 1}, {1}))
                   .input(Tensor::from_data<double>({1, 4, 1}, {1, 1, 1, 1}))  // type differs
                   .input(f32({1, 4, 1}, {1, 1, 1, 1}))
                   .run(),
               Error);
}

}  // namespace
}  // namespace kiln
