#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/element_count.h"
#include "kiln/kiln.h"

using namespace kiln;

TEST(TensorIo, NpyAndProtoRoundTrip) {
  const auto dir = std::filesystem::temp_directory_path();
  Tensor t = Tensor::from_data<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* name : {"kiln_t.npy", "kiln_t.pb"}) {
    const std::string path = (dir / name).string();
    save_tensor(t, path, "t");
    Tensor back = load_tensor(path);
    EXPECT_EQ(back.shape(), t.shape());
    EXPECT_EQ(back.to_vector<float>(), t.to_vector<float>());
    std::filesystem::remove(path);
  }
  Tensor i4 = Tensor::from_data<Int4>({3}, {Int4(-8), Int4(7), Int4(-1)});
  const std::string path = (dir / "kiln_i4.pb").string();
  save_tensor(i4, path);
  Tensor back = load_tensor(path);
  ASSERT_EQ(back.dtype(), DataType::Int4);
  EXPECT_EQ(static_cast<int>(back.data<Int4>()[0]), -8);
  EXPECT_EQ(static_cast<int>(back.data<Int4>()[2]), -1);
  std::filesystem::remove(path);
}

// A .npy header may declare any shape: the data is checked against it before anything is
// allocated (a fuzzer found a 3.7 GB allocation from a file of a few bytes).
TEST(TensorIo, AnNpyShapePastItsDataIsRefusedBeforeAllocating) {
  const std::string path = (std::filesystem::temp_directory_path() / "kiln_big.npy").string();
  save_tensor(Tensor::from_data<float>({2}, {1, 2}), path);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t at = bytes.find("(2,)");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 4, "(4000000000000,)");
  std::ofstream(path, std::ios::binary) << bytes;
  try {
    load_tensor(path);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shape [4000000000000] needs more"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(path);
}

// An empty past key/value cache ([batch, heads, 0, head_size]) saved by numpy loads back empty.
TEST(TensorIo, AnEmptyNpyTensorLoads) {
  const std::string path = (std::filesystem::temp_directory_path() / "kiln_empty.npy").string();
  save_tensor(Tensor::zeros(DataType::Float32, {1, 4, 0, 64}), path);
  const Tensor back = load_tensor(path);
  EXPECT_EQ(back.shape(), Shape({1, 4, 0, 64}));
  EXPECT_EQ(back.dtype(), DataType::Float32);
  std::filesystem::remove(path);
}

TEST(ElementCount, IsRefusedForNegativeDimsAndProductsPastTheLimit) {
  const std::vector<int64_t> ok{2, 3, 4};
  EXPECT_EQ(element_count_within(ok, 24), 24);
  EXPECT_EQ(element_count_within(ok, 23), std::nullopt);
  const std::vector<int64_t> negative{2, -1};
  EXPECT_EQ(element_count_within(negative, kMaxTensorElements), std::nullopt);
  // Past int64 on the way: the check comes before each multiplication.
  const std::vector<int64_t> huge{int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(element_count_within(huge, INT64_MAX), std::nullopt);
  // A zero dim empties the tensor whatever follows it, but a negative dim is still refused.
  const std::vector<int64_t> empty{0, int64_t{1} << 62, 4};
  EXPECT_EQ(element_count_within(empty, kMaxTensorElements), 0);
  // ... even when the dims before the zero pass the limit (an empty tensor's file has no data).
  const std::vector<int64_t> empty_past_limit{1, 4, 0, 64};
  EXPECT_EQ(element_count_within(empty_past_limit, 0), 0);
  const std::vector<int64_t> empty_negative{0, -2};
  EXPECT_EQ(element_count_within(empty_negative, kMaxTensorElements), std::nullopt);
  EXPECT_EQ(element_count_within({}, 1), 1);  // a scalar
}

TEST(TensorIo, AllCloseFollowsNumpy) {
  Tensor a = Tensor::from_data<float>({3}, {1.f, NAN, 100.f});
  Tensor b = Tensor::from_data<float>({3}, {1.00005f, NAN, 100.09f});
  EXPECT_TRUE(all_close(a, b, 1e-3, 1e-4));
  EXPECT_FALSE(all_close(a, Tensor::from_data<float>({3}, {1.f, 0.f, 100.f})));
  EXPECT_FALSE(all_close(a, Tensor::from_data<double>({3}, {1, NAN, 100})));  // dtype differs
}

// The tampered values of the issue: an int32 off by 1000 in a large bit pattern, an int64 off by
// one, a bool flipped. A relative tolerance would let the first two pass.
TEST(TensorIo, AllCloseComparesIntegersExactly) {
  const Tensor bits = Tensor::from_data<int32_t>({2}, {1065353216, -7});
  EXPECT_TRUE(all_close(bits, Tensor::from_data<int32_t>({2}, {1065353216, -7})));
  EXPECT_FALSE(all_close(bits, Tensor::from_data<int32_t>({2}, {1065353216 + 1000, -7})));
  const Tensor anded = Tensor::from_data<int64_t>({1}, {4096});
  EXPECT_FALSE(all_close(anded, Tensor::from_data<int64_t>({1}, {4097})));
  EXPECT_FALSE(all_close(Tensor::from_data<uint8_t>({1}, {200}),
                         Tensor::from_data<uint8_t>({1}, {201}), 0.1, 1.0));
  EXPECT_FALSE(
      all_close(Tensor::from_data<bool>({1}, {true}), Tensor::from_data<bool>({1}, {false})));
}

TEST(TensorApi, FromDataChecksTheCount) {
  EXPECT_THROW(Tensor::from_data<float>({2, 2}, {1, 2, 3}), Error);
  Tensor t = Tensor::from_data<float>({2}, {1, 2});
  EXPECT_THROW(t.data<int32_t>(), Error);  // wrong element type
  EXPECT_THROW(Tensor().data<float>(), Error);
  EXPECT_EQ(t.reshaped({2, 1}).shape(), (Shape{2, 1}));
  EXPECT_THROW(t.reshaped({3}), Error);
}
