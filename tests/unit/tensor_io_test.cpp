#include <gtest/gtest.h>

#include <filesystem>

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

TEST(TensorIo, AllCloseFollowsNumpy) {
  Tensor a = Tensor::from_data<float>({3}, {1.f, NAN, 100.f});
  Tensor b = Tensor::from_data<float>({3}, {1.00005f, NAN, 100.09f});
  EXPECT_TRUE(all_close(a, b, 1e-3, 1e-4));
  EXPECT_FALSE(all_close(a, Tensor::from_data<float>({3}, {1.f, 0.f, 100.f})));
  EXPECT_FALSE(all_close(a, Tensor::from_data<double>({3}, {1, NAN, 100})));  // dtype differs
}

TEST(TensorApi, FromDataChecksTheCount) {
  EXPECT_THROW(Tensor::from_data<float>({2, 2}, {1, 2, 3}), Error);
  Tensor t = Tensor::from_data<float>({2}, {1, 2});
  EXPECT_THROW(t.data<int32_t>(), Error);  // wrong element type
  EXPECT_THROW(Tensor().data<float>(), Error);
  EXPECT_EQ(t.reshaped({2, 1}).shape(), (Shape{2, 1}));
  EXPECT_THROW(t.reshaped({3}), Error);
}
