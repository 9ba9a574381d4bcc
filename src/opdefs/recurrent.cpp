#include "opdefs/recurrent.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/node_info.h"
#include "opdefs/op_def.h"

namespace kiln::recurrent {
namespace {

struct ActivationName {
  const char* name;  // lower case
  ActivationKind kind;
  int parameters;  // how many of (alpha, beta) it takes
  float default_alpha;
  float default_beta;
};

// The defaults are those of the stand-alone ONNX ops of the same name.
constexpr ActivationName kActivationNames[] = {
    {"relu", ActivationKind::kRelu, 0, 0.0f, 0.0f},
    {"tanh", ActivationKind::kTanh, 0, 0.0f, 0.0f},
    {"sigmoid", ActivationKind::kSigmoid, 0, 0.0f, 0.0f},
    {"affine", ActivationKind::kAffine, 2, 1.0f, 0.0f},
    {"leakyrelu", ActivationKind::kLeakyRelu, 1, 0.01f, 0.0f},
    {"thresholdedrelu", ActivationKind::kThresholdedRelu, 1, 1.0f, 0.0f},
    {"scaledtanh", ActivationKind::kScaledTanh, 2, 1.0f, 1.0f},
    {"hardsigmoid", ActivationKind::kHardSigmoid, 2, 0.2f, 0.5f},
    {"elu", ActivationKind::kElu, 1, 1.0f, 0.0f},
    {"softsign", ActivationKind::kSoftsign, 0, 0.0f, 0.0f},
    {"softplus", ActivationKind::kSoftplus, 0, 0.0f, 0.0f},
};

const ActivationName* find_activation(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ActivationName& a : kActivationNames) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

bool is_recurrent_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

const char* input_name(size_t i) {
  static const char* const kNames[] = {"X",         "W",         "R", "B", "sequence_lens",
                                       "initial_h", "initial_c", "P"};
  return kNames[i];
}

void check_shape(const NodeInputs& ctx, size_t index, const Shape& expected) {
  const Tensor& t = ctx.input(index);
  if (t.shape() != expected) {
    ctx.fail(std::string("input ") + input_name(index) + " has shape " + t.shape().to_string() +
             ", expected " + expected.to_string());
  }
}

}  // namespace

std::vector<Activation> parse_activations(const NodeInfo& info,
                                          const std::vector<std::string>& defaults,
                                          int64_t num_directions) {
  const size_t per_direction = defaults.size();
  std::vector<std::string> names = info.attr_strings("activations");
  if (names.empty()) {
    for (int64_t d = 0; d < num_directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == per_direction && num_directions == 2) {
    const std::vector<std::string> one_direction = names;
    names.insert(names.end(), one_direction.begin(), one_direction.end());
  } else if (names.size() != per_direction * static_cast<size_t>(num_directions)) {
    info.fail("attribute 'activations' names " + std::to_string(names.size()) +
              " functions; this node needs " + std::to_string(per_direction) +
              " per direction for " + std::to_string(num_directions) + " direction(s)");
  }
  const std::vector<float> alphas = info.attr_floats("activation_alpha");
  const std::vector<float> betas = info.attr_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> out;
  for (const std::string& name : names) {
    const ActivationName* a = find_activation(name);
    if (!a) info.fail("unsupported activation function '" + name + "'");
    Activation f{a->kind, a->default_alpha, a->default_beta};
    if (a->parameters >= 1 && next_alpha < alphas.size()) f.alpha = alphas[next_alpha++];
    if (a->parameters >= 2 && next_beta < betas.size()) f.beta = betas[next_beta++];
    out.push_back(f);
  }
  return out;
}

CellSpec lstm_cell_spec() {
  CellSpec spec;
  spec.gates = 4;
  spec.activations = {"Sigmoid", "Tanh", "Tanh"};
  spec.recurrent_blocks = {{0, 4}};
  spec.has_cell_state = true;
  return spec;
}

CellSpec gru_cell_spec(bool linear_before_reset) {
  CellSpec spec;
  spec.gates = 3;
  spec.activations = {"Sigmoid", "Tanh"};
  // Without linear_before_reset the candidate's product needs the reset gate first.
  if (linear_before_reset) {
    spec.recurrent_blocks = {{0, 3}};
  } else {
    spec.recurrent_blocks = {{0, 2}, {2, 1}};
  }
  return spec;
}

CellSpec rnn_cell_spec() {
  CellSpec spec;
  spec.gates = 1;
  spec.activations = {"Tanh"};
  spec.recurrent_blocks = {{0, 1}};
  return spec;
}

bool gru_linear_before_reset(const NodeInfo& info) {
  return info.attr_int("linear_before_reset", 0) != 0;
}

RecurrentAttributes parse_recurrent_attributes(const NodeInfo& info, const CellSpec& spec) {
  RecurrentAttributes a;
  const std::string direction = info.attr_string("direction", "forward");
  if (direction == "forward") {
    a.direction = Direction::kForward;
  } else if (direction == "reverse") {
    a.direction = Direction::kReverse;
  } else if (direction == "bidirectional") {
    a.direction = Direction::kBidirectional;
    a.num_directions = 2;
  } else {
    info.fail("attribute 'direction' must be forward, reverse or bidirectional, got '" + direction +
              "'");
  }
  if (info.has_attr("hidden_size")) {
    a.hidden_size = info.attr_int("hidden_size", 0);
    if (a.hidden_size < 0) info.fail("attribute 'hidden_size' must not be negative");
  }
  a.layout = info.attr_int("layout", 0);
  if (a.layout != 0 && a.layout != 1) {
    info.fail("attribute 'layout' must be 0 or 1, got " + std::to_string(a.layout));
  }
  if (info.has_attr("clip")) {
    a.clip = info.attr_float("clip", 0.0f);
    if (!(a.clip >= 0.0f)) info.fail("attribute 'clip' must be a non-negative threshold");
    a.has_clip = true;
  }
  a.activations_per_direction = static_cast<int64_t>(spec.activations.size());
  a.activations = parse_activations(info, spec.activations, a.num_directions);
  return a;
}

RecurrentShape check_inputs(const NodeInputs& ctx, const RecurrentAttributes& attrs,
                            const CellSpec& spec) {
  const Tensor& x = ctx.input(kX);
  if (!is_recurrent_dtype(x.dtype())) {
    ctx.fail("does not support " + std::string(dtype_name(x.dtype())) +
             " inputs (float, double, float16 or bfloat16 expected)");
  }
  const size_t last_input = spec.has_cell_state ? kPeepholes : kInitialH;
  for (size_t i = kW; i <= last_input; ++i) {
    if (i == kSequenceLens || !ctx.has_input(i)) continue;
    if (ctx.input(i).dtype() != x.dtype()) {
      ctx.fail(std::string("input ") + input_name(i) + " is " +
               std::string(dtype_name(ctx.input(i).dtype())) + " but X is " +
               std::string(dtype_name(x.dtype())));
    }
  }
  if (x.rank() != 3) ctx.fail("input X must have rank 3, got shape " + x.shape().to_string());
  const Tensor& r = ctx.input(kR);
  if (r.rank() != 3) ctx.fail("input R must have rank 3, got shape " + r.shape().to_string());

  RecurrentShape s;
  s.layout = attrs.layout;
  s.seq = x.shape()[attrs.layout == 0 ? 0 : 1];
  s.batch = x.shape()[attrs.layout == 0 ? 1 : 0];
  s.input = x.shape()[2];
  s.hidden = attrs.hidden_size >= 0 ? attrs.hidden_size : r.shape()[2];
  s.directions = attrs.num_directions;
  s.gates = spec.gates;
  const int64_t width = s.gate_width();
  check_shape(ctx, kW, {s.directions, width, s.input});
  check_shape(ctx, kR, {s.directions, width, s.hidden});
  if (ctx.has_input(kB)) check_shape(ctx, kB, {s.directions, 2 * width});
  if (ctx.has_input(kSequenceLens)) {
    const DataType t = ctx.input(kSequenceLens).dtype();
    if (t != DataType::Int32 && t != DataType::Int64) {
      ctx.fail("input sequence_lens must be int32, got " + std::string(dtype_name(t)));
    }
    check_shape(ctx, kSequenceLens, {s.batch});
  }
  if (ctx.has_input(kInitialH)) check_shape(ctx, kInitialH, s.state_shape());
  if (spec.has_cell_state) {
    if (ctx.has_input(kInitialC)) check_shape(ctx, kInitialC, s.state_shape());
    if (ctx.has_input(kPeepholes)) check_shape(ctx, kPeepholes, {s.directions, 3 * s.hidden});
  }
  return s;
}

int64_t sequence_length(const NodeInputs& ctx, const RecurrentShape& shape, int64_t b) {
  if (!ctx.has_input(kSequenceLens)) return shape.seq;
  const Tensor& t = ctx.input(kSequenceLens);
  const int64_t length = t.dtype() == DataType::Int32 ? t.data<int32_t>()[b] : t.data<int64_t>()[b];
  if (length < 0 || length > shape.seq) {
    ctx.fail("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(length) +
             " is outside [0, " + std::to_string(shape.seq) + "]");
  }
  return length;
}

}  // namespace kiln::recurrent

// ---- definitions ----------------------------------------------------------------------------

namespace kiln {
namespace {

recurrent::CellSpec cell_spec_of(const NodeInfo& info) {
  const std::string& op = info.node().op_type;
  if (op == "LSTM") return recurrent::lstm_cell_spec();
  if (op == "GRU") return recurrent::gru_cell_spec(recurrent::gru_linear_before_reset(info));
  return recurrent::rnn_cell_spec();
}

// LSTM, GRU and RNN: Y, Y_h (and LSTM's Y_c) in X's type, with the sizes check_inputs takes
// from X (seq, batch), R or hidden_size (hidden) and direction, in either layout.
std::vector<ValueInfo> recurrent_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(recurrent::kX);
  if (!x) return {};
  const recurrent::CellSpec spec = cell_spec_of(ctx.info());
  const recurrent::RecurrentAttributes attrs =
      recurrent::parse_recurrent_attributes(ctx.info(), spec);
  const size_t outputs = spec.has_cell_state ? 3 : 2;
  const std::vector<Dim>* xs = ctx.shape(recurrent::kX);
  const std::vector<Dim>* rs = ctx.shape(recurrent::kR);
  Dim hidden = attrs.hidden_size >= 0 ? fixed_dim(attrs.hidden_size) : Dim{};
  if (attrs.hidden_size < 0 && rs && rs->size() == 3) hidden = (*rs)[2];
  if (!xs || xs->size() != 3 || (attrs.hidden_size < 0 && !rs)) {
    return std::vector<ValueInfo>(outputs, dtype_only(x->dtype));
  }
  const Dim seq = (*xs)[attrs.layout == 0 ? 0 : 1];
  const Dim batch = (*xs)[attrs.layout == 0 ? 1 : 0];
  const Dim directions = fixed_dim(attrs.num_directions);
  using Shape_ = recurrent::RecurrentShape;
  const auto y = Shape_::y_dims(attrs.layout, seq, directions, batch, hidden);
  const auto state = Shape_::state_dims(attrs.layout, directions, batch, hidden);
  std::vector<ValueInfo> out = {tensor_type(x->dtype, {y.begin(), y.end()}),
                                tensor_type(x->dtype, {state.begin(), state.end()})};
  if (spec.has_cell_state) out.push_back(out[1]);
  return out;
}

}  // namespace

KILN_OP_DEFS(recurrent);
void define_recurrent_ops(OpDefs& defs) {
  for (const char* op : {"LSTM", "GRU", "RNN"}) defs.define(op).infer = recurrent_rule;
}

}  // namespace kiln
