// TfIdfVectorizer (GPU-compute; gpu-pixel keeps it on the CPU): every mode, with and without
// weights, gram lengths 1 to 3, skip counts from 0 to beyond the row, 1-D and 2-D inputs of int32
// and int64 items, a pool that repeats an n-gram, two n-grams counting into one column, unused
// columns, pool values an int32 item must not match, and rows of no items.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

struct Pool {
  std::vector<int64_t> counts, indexes, items;
};

// Unigrams {2, 3, -5, 4}, bigrams {(5, 6), (7, 8), (6, 7), (-5, 2)} and trigrams
// {(7, 8, 6), (3, 3, 3)}, over columns 0..9 with column 8 unused and (6, 7) into column 1 with
// the unigram 3.
const Pool kPool = {{0, 4, 12},
                    {0, 1, 2, 3, 4, 5, 1, 6, 7, 9},
                    {2, 3, -5, 4, 5, 6, 7, 8, 6, 7, -5, 2, 7, 8, 6, 3, 3, 3}};

// Unigrams {7, 1 + 2^32, 2^32 - 1} and the bigram (7, 1 + 2^32): the large values match only
// int64 items (an int32 item compares sign-extended, so -1 is not 2^32 - 1); 7 repeats, and
// counts into the column of its last occurrence.
const Pool kWidePool = {
    {0, 4},
    {0, 1, 2, 3, 4},
    {7, (int64_t{1} << 32) + 1, (int64_t{1} << 32) - 1, 7, 7, (int64_t{1} << 32) + 1}};

OpTest tfidf(const Tensor& x, const Pool& pool, const std::string& mode, int64_t min_gram,
             int64_t max_gram, int64_t skip) {
  OpTest t("TfIdfVectorizer", 9);
  t.input(x)
      .attr("min_gram_length", min_gram)
      .attr("max_gram_length", max_gram)
      .attr("max_skip_count", skip)
      .attr("mode", mode)
      .attr("ngram_counts", pool.counts)
      .attr("ngram_indexes", pool.indexes)
      .attr("pool_int64s", pool.items);
  return t;
}

// Items drawn from the pool's values and a few others, so that n-grams match at many skips.
template <class T>
Tensor tokens(const Shape& shape, unsigned seed) {
  const std::vector<T> values = {2, 3, -5, 4, 5, 6, 7, 8, 1, -1};
  Tensor picks = random_int<int32_t>(shape, seed, 0, static_cast<int>(values.size()) - 1);
  std::vector<T> v;
  for (int32_t k : picks.to_vector<int32_t>()) v.push_back(values[static_cast<size_t>(k)]);
  return Tensor::from_data<T>(shape, v);
}

void add(std::vector<OpCase>& c, std::string name, std::function<OpTest()> make) {
  c.push_back({"TfIdfVectorizer_" + std::move(name), std::move(make)});
  c.back().on_pixel = false;
}

void add_tfidf_cases(std::vector<OpCase>& c) {
  const std::vector<float> weights = {0.5f, 2.0f, -1.5f, 3.0f, 0.25f, 7.0f, 1.0f, 4.0f, 9.0f, 1.5f};
  for (const std::string mode : {"TF", "IDF", "TFIDF"}) {
    const bool weighted = mode != "TF";
    add(c, mode + "_int32_1d_uni_bi_skip0", [=] {
      OpTest t = tfidf(tokens<int32_t>({40}, 600), kPool, mode, 1, 2, 0);
      if (weighted) t.attr("weights", weights);
      return t;
    });
    add(c, mode + "_int64_2d_bigrams_skip5", [=] {
      OpTest t = tfidf(tokens<int64_t>({3, 17}, 601), kPool, mode, 2, 2, 5);
      if (weighted) t.attr("weights", weights);
      return t;
    });
    add(c, mode + "_int32_2d_up_to_trigrams_skip2", [=] {
      OpTest t = tfidf(tokens<int32_t>({4, 25}, 602), kPool, mode, 1, 3, 2);
      if (weighted) t.attr("weights", weights);
      return t;
    });
    add(c, mode + "_int64_1d_trigrams_only_skip1",
        [=] { return tfidf(tokens<int64_t>({30}, 603), kPool, mode, 3, 3, 1); });
  }
  // A skip count far beyond the row (the CPU bounds it by the row's length).
  add(c, "TF_int64_2d_huge_skip", [] {
    return tfidf(tokens<int64_t>({2, 9}, 604), kPool, "TF", 1, 3, int64_t{1} << 40);
  });
  // Unigrams only, with the repeated pool entries of kWidePool.
  for (DataType dt : {DataType::Int32, DataType::Int64}) {
    const std::string type = dt == DataType::Int32 ? "int32" : "int64";
    add(c, "TFIDF_" + type + "_wide_pool", [dt] {
      const std::vector<int64_t> items = {7, -1, 1, 7, (int64_t{1} << 32) + 1, 7, 0, -1};
      Tensor x = Tensor::from_data<int64_t>({8}, items);
      if (dt == DataType::Int32) {
        std::vector<int32_t> narrow;
        for (int64_t v : items) narrow.push_back(static_cast<int32_t>(v));
        x = Tensor::from_data<int32_t>({8}, narrow);
      }
      return tfidf(x, kWidePool, "TFIDF", 1, 2, 3)
          .attr("weights", std::vector<float>{2.0f, 3.0f, 5.0f, 7.0f, 11.0f});
    });
  }
  add(c, "IDF_int64_2d_empty_rows", [weights] {
    return tfidf(Tensor::zeros(DataType::Int64, {3, 0}), kPool, "IDF", 1, 2, 1)
        .attr("weights", weights);
  });
  add(c, "TF_int32_1d_one_item",
      [] { return tfidf(Tensor::from_data<int32_t>({1}, {3}), kPool, "TF", 1, 3, 4); });
}

REGISTER_OP_CASES(add_tfidf_cases);

// A GPU-compute worker for `test`'s model; nullopt without a device.
std::optional<Worker> gpu_compute_worker(const OpTest& test) {
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
  }
  return worker;
}

// A pool of strings stays on the CPU, saying why.
TEST(GpuComputeTfIdfVectorizer, AStringPoolStaysOnTheCpu) {
  const OpTest test = OpTest("TfIdfVectorizer", 9)
                          .input(Tensor::from_data<std::string>({4}, {"a", "b", "a", "c"}))
                          .attr("min_gram_length", int64_t{1})
                          .attr("max_gram_length", int64_t{1})
                          .attr("max_skip_count", int64_t{0})
                          .attr("mode", "TF")
                          .attr("ngram_counts", std::vector<int64_t>{0})
                          .attr("ngram_indexes", std::vector<int64_t>{0, 1})
                          .attr("pool_strings", std::vector<std::string>{"a", "c"});
  std::optional<Worker> worker = gpu_compute_worker(test);
  if (!worker) GTEST_SKIP() << "gpu-compute is not available here";
  const std::vector<NodePlacement> placements = worker->placements();
  ASSERT_EQ(placements.size(), 1u);
  const NodePlacement& p = placements[0];
  EXPECT_EQ(p.backend, Backend::Cpu);
  EXPECT_NE(p.fallback_reason.find("a pool of strings stays on the CPU"), std::string::npos)
      << p.fallback_reason;
}

// Attributes the definition rejects leave the node to the CPU kernel, which reports them when
// the model loads.
TEST(GpuComputeTfIdfVectorizer, BadAttributesAreTheCpuKernelsErrorAtLoad) {
  const OpTest test = tfidf(tokens<int64_t>({6}, 610), kPool, "BM25", 1, 2, 0);
  try {
    gpu_compute_worker(test);
    ADD_FAILURE() << "no error for mode BM25";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mode must be TF, IDF or TFIDF, got 'BM25'"),
              std::string::npos)
        << e.what();
  }
}

// An X of rank 3 placed on the GPU fails the run with the definition's error, as on the CPU.
TEST(GpuComputeTfIdfVectorizer, XOfRankThreeIsAnError) {
  const OpTest test = tfidf(tokens<int32_t>({2, 2, 3}, 611), kPool, "TF", 1, 2, 0);
  std::optional<Worker> worker = gpu_compute_worker(test);
  if (!worker) GTEST_SKIP() << "gpu-compute is not available here";
  for (const NodePlacement& p : worker->placements()) EXPECT_EQ(p.backend, Backend::GpuCompute);
  try {
    test.run(*worker);
    ADD_FAILURE() << "no error for X of shape [2,2,3]";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("X must have shape [C] or [B, C], got [2, 2, 3]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
