#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// int32, uint32 and int64 in GPU-pixel's integer textures (RGBA32I, RGBA32UI; an int64 as two
// words): data movement and Where, compared bit for bit with the CPU. The values go past float32's 2^24, include negative ones and int64 values that differ only
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

void add_where_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Int32, DataType::Int64}) {
    add(c, std::string("IntTexture_Where_") + short_name(dt), [dt] {
      return OpTest("Where")
          .input(few_values(DataType::Bool, {2, 1, 6}, 322))
          .input(wide_values(dt, {3, 6}, 323))
          .input(wide_values(dt, {2, 3, 1}, 324));
    });
  }
}

REGISTER_OP_CASES(add_data_movement_cases);
REGISTER_OP_CASES(add_where_cases);

}  // namespace
}  // namespace kiln::testing
