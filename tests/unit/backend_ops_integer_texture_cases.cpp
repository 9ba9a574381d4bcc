#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// int32, uint32 and int64 in GPU-pixel's integer textures (RGBA32I, RGBA32UI; an int64 as two
// words): data movement, the comparisons, Where and ArgMax/ArgMin, compared bit for bit with the
// CPU. The values go past float32's 2^24, include negative ones and int64 values that differ only
// above bit 32, and repeat often enough that comparisons see ties.

// Values drawn from a small pool of such values, so that ties are common.
Tensor wide_values(DataType dt, const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  const auto n = static_cast<size_t>(shape.element_count());
  if (dt == DataType::Int64) {
    const int64_t pool[] = {0,
                            -1,
                            3,
                            int64_t{1} << 33,
                            (int64_t{1} << 33) + 3,
                            (int64_t{3} << 33) + 3,
                            -(int64_t{1} << 33) + 3,
                            -(int64_t{1} << 40) - 5,
                            (int64_t{1} << 24) + 1,
                            0xffffffffLL,
                            0x80000000LL,
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max()};
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = pool[rng() % std::size(pool)];
    return Tensor::from_data<int64_t>(shape, v);
  }
  if (dt == DataType::UInt32) {
    const uint32_t pool[] = {0u,          1u,          (1u << 24) + 1, 0x7fffffffu,
                             0x80000000u, 0xfffffffeu, 0xffffffffu};
    std::vector<uint32_t> v(n);
    for (uint32_t& x : v) x = pool[rng() % std::size(pool)];
    return Tensor::from_data<uint32_t>(shape, v);
  }
  const int32_t pool[] = {0,
                          -1,
                          2,
                          (1 << 24) + 1,
                          (1 << 24) + 2,
                          -(1 << 24) - 1,
                          123456789,
                          std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()};
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = pool[rng() % std::size(pool)];
  return Tensor::from_data<int32_t>(shape, v);
}

std::string axis_name(int64_t axis) {
  return "_axis" + (axis < 0 ? "m" + std::to_string(-axis) : std::to_string(axis));
}

const char* short_name(DataType dt) {
  return dt == DataType::Int64 ? "int64" : dt == DataType::UInt32 ? "uint32" : "int32";
}

// Cases for the GPU-pixel backend only: GPU-compute has its own integer cases.
void add(std::vector<OpCase>& c, const std::string& name, std::function<OpTest()> make) {
  c.push_back({name, std::move(make)});
  c.back().on_compute = false;
}

void add_data_movement_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Int32, DataType::UInt32, DataType::Int64}) {
    const std::string s = short_name(dt);
    add(c, "IntTexture_Transpose_" + s, [dt] {
      return OpTest("Transpose")
          .input(wide_values(dt, {2, 3, 5}, 301))
          .attr("perm", std::vector<int64_t>{2, 0, 1});
    });
    add(c, "IntTexture_Slice_" + s, [dt] {
      return OpTest("Slice")
          .input(wide_values(dt, {4, 7}, 302))
          .input(i64({2}, {1, -1}))
          .input(i64({2}, {4, 0}))
          .input(i64({2}, {0, 1}))
          .input(i64({2}, {2, -2}))
          .constant_input(1)
          .constant_input(2)
          .constant_input(3)
          .constant_input(4);
    });
    add(c, "IntTexture_Expand_" + s, [dt] {
      return OpTest("Expand")
          .input(wide_values(dt, {3, 1}, 303))
          .input(i64({3}, {2, 3, 5}))
          .constant_input(1);
    });
    for (int64_t axis : {0, -1}) {
      add(c, "IntTexture_Concat" + axis_name(axis) + "_" + s, [dt, axis] {
        return OpTest("Concat")
            .input(wide_values(dt, {2, 3}, 304))
            .input(wide_values(dt, {2, 3}, 305))
            .input(wide_values(dt, {2, 3}, 306))
            .attr("axis", axis);
      });
    }
    for (int64_t axis : {0, -1}) {
      add(c, "IntTexture_Gather" + axis_name(axis) + "_" + s, [dt, axis] {
        return OpTest("Gather")
            .input(wide_values(dt, {4, 5}, 307))
            .input(i64({2, 2}, {3, -1, 0, 2}))
            .constant_input(1)
            .attr("axis", axis);
      });
    }
    add(c, "IntTexture_Split_" + s, [dt] {
      return OpTest("Split", 13)
          .input(wide_values(dt, {3, 7}, 308))
          .input(i64({2}, {3, 4}))
          .constant_input(1)
          .outputs(2)
          .attr("axis", int64_t{1});
    });
    add(c, "IntTexture_Tile_" + s, [dt] {
      return OpTest("Tile")
          .input(wide_values(dt, {2, 3}, 309))
          .input(i64({2}, {3, 2}))
          .constant_input(1);
    });
    add(c, "IntTexture_Pad_constant_" + s, [dt] {
      Tensor value = dt == DataType::Int64    ? Tensor::scalar<int64_t>(-(int64_t{5} << 33) + 7)
                     : dt == DataType::UInt32 ? Tensor::scalar<uint32_t>(0xfffffff0u)
                                              : Tensor::scalar<int32_t>(-(1 << 25) - 1);
      return OpTest("Pad")
          .input(wide_values(dt, {2, 3}, 310))
          .input(i64({4}, {1, 0, 0, 2}))
          .input(value)
          .constant_input(1)
          .constant_input(2);
    });
    add(c, "IntTexture_Pad_edge_" + s, [dt] {
      return OpTest("Pad")
          .input(wide_values(dt, {2, 3}, 311))
          .input(i64({4}, {0, 2, 1, 1}))
          .constant_input(1)
          .attr("mode", "edge");
    });
    add(c, "IntTexture_DepthToSpace_" + s, [dt] {
      return OpTest("DepthToSpace")
          .input(wide_values(dt, {1, 8, 2, 3}, 312))
          .attr("blocksize", int64_t{2})
          .attr("mode", "CRD");
    });
    add(c, "IntTexture_Reshape_then_view_" + s, [dt] {
      return OpTest("Reshape")
          .input(wide_values(dt, {2, 6}, 313))
          .input(i64({3}, {3, -1, 2}))
          .constant_input(1);
    });
  }
  add(c, "IntTexture_ConstantOfShape_int64", [] {
    Tensor value = Tensor::from_data<int64_t>({1}, std::vector<int64_t>{-(int64_t{3} << 32) - 2});
    return OpTest("ConstantOfShape").input(i64({2}, {3, 5})).constant_input(0).attr("value", value);
  });
  add(c, "IntTexture_ConstantOfShape_int32", [] {
    Tensor value = Tensor::from_data<int32_t>({1}, std::vector<int32_t>{(1 << 24) + 1});
    return OpTest("ConstantOfShape").input(i64({1}, {7})).constant_input(0).attr("value", value);
  });
}

void add_comparison_cases(std::vector<OpCase>& c) {
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    for (DataType dt : {DataType::Int32, DataType::UInt32, DataType::Int64}) {
      add(c, std::string("IntTexture_") + op + "_" + short_name(dt), [op, dt] {
        return OpTest(op)
            .input(wide_values(dt, {3, 1, 8}, 320))
            .input(wide_values(dt, {5, 8}, 321));
      });
    }
  }
  for (DataType dt : {DataType::Int32, DataType::Int64}) {
    add(c, std::string("IntTexture_Where_") + short_name(dt), [dt] {
      return OpTest("Where")
          .input(few_values(DataType::Bool, {2, 1, 6}, 322))
          .input(wide_values(dt, {3, 6}, 323))
          .input(wide_values(dt, {2, 3, 1}, 324));
    });
  }
}

void add_arg_reduce_cases(std::vector<OpCase>& c) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, -1}) {
      for (int64_t keepdims : {0, 1}) {
        for (int64_t last : {0, 1}) {
          add(c,
              std::string("IntTexture_") + op + axis_name(axis) + "_keep" +
                  std::to_string(keepdims) + "_last" + std::to_string(last),
              [op, axis, keepdims, last] {
                // Few values: ties, and a NaN at element 2.
                return OpTest(op)
                    .input(few_values(DataType::Float32, {3, 4, 5}, 330))
                    .attr("axis", axis)
                    .attr("keepdims", keepdims)
                    .attr("select_last_index", last);
              });
        }
      }
    }
  }
  add(c, "IntTexture_ArgMax_float16", [] {
    return OpTest("ArgMax").input(few_values(DataType::Float16, {6, 7}, 331)).attr("axis", 1);
  });
}

// Casts from the integer textures: wrapping to the narrower integers, sign extension to int64,
// bool, and float32 rounded to nearest even (values past 2^24 and 2^53, ties included).
void add_cast_cases(std::vector<OpCase>& c) {
  const DataType targets[] = {DataType::Int64, DataType::Int32,  DataType::UInt32,
                              DataType::Bool,  DataType::Int8,   DataType::UInt8,
                              DataType::Int16, DataType::UInt16, DataType::Float32};
  for (DataType from : {DataType::Int32, DataType::UInt32, DataType::Int64}) {
    for (DataType to : targets) {
      if (to == from) continue;
      add(c,
          std::string("IntTexture_Cast_") + short_name(from) + "_to_" + std::string(dtype_name(to)),
          [from, to] {
            Tensor x = wide_values(from, {5, 7}, 340);
            if (from == DataType::Int32 && to == DataType::Float32) {
              // Ties between two floats: 2^24 + 1 and 2^24 + 3 round to even, 2^25 + 6 up.
              x = Tensor::from_data<int32_t>(
                  {6}, std::vector<int32_t>{(1 << 24) + 1, (1 << 24) + 3, -(1 << 24) - 3,
                                            (1 << 25) + 6, (1 << 25) + 2, 0x7fffffc0});
            }
            if (from == DataType::Int64 && to == DataType::Float32) {
              x = Tensor::from_data<int64_t>(
                  {8}, std::vector<int64_t>{(int64_t{1} << 53) + 1, (int64_t{1} << 40) + (1 << 16),
                                            (int64_t{1} << 40) + (3 << 16), -(int64_t{1} << 62) - 1,
                                            (int64_t{1} << 33) + (1 << 9) + 1, -5,
                                            std::numeric_limits<int64_t>::min(),
                                            std::numeric_limits<int64_t>::max()});
            }
            return OpTest("Cast").input(x).attr("to", static_cast<int64_t>(to));
          });
      c.back().bit_exact = true;
    }
  }
}

REGISTER_OP_CASES(add_data_movement_cases);
REGISTER_OP_CASES(add_cast_cases);
REGISTER_OP_CASES(add_comparison_cases);
REGISTER_OP_CASES(add_arg_reduce_cases);

}  // namespace
}  // namespace kiln::testing
