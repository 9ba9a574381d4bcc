// Tests of StringConcat, StringSplit, StringNormalizer, RegexFullMatch and TfIdfVectorizer
// against hand-computed values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

using Strings = std::vector<std::string>;

Tensor str(const Shape& shape, Strings values) {
  return Tensor::from_data<std::string>(shape, values);
}
Strings strings_of(const Tensor& t) { return t.to_vector<std::string>(); }

// --- StringConcat ----------------------------------------------------------------------------

TEST(StringConcat, ElementwiseAndUtf8) {
  auto out = OpTest("StringConcat", 20)
                 .input(str({3}, {"abc", "", "naïve "}))
                 .input(str({3}, {"def", "x", "café"}))
                 .run();
  EXPECT_EQ(out[0].shape(), Shape{3});
  EXPECT_EQ(strings_of(out[0]), (Strings{"abcdef", "x", "naïve café"}));
}

TEST(StringConcat, Broadcasts) {
  auto out = OpTest("StringConcat", 20)
                 .input(str({2, 1}, {"a", "b"}))
                 .input(str({3}, {"1", "2", "3"}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(strings_of(out[0]), (Strings{"a1", "a2", "a3", "b1", "b2", "b3"}));
  auto scalar = OpTest("StringConcat", 20)
                    .input(Tensor::scalar<std::string>("x"))
                    .input(Tensor::scalar<std::string>("y"))
                    .run();
  EXPECT_EQ(scalar[0].shape(), Shape{});
  EXPECT_EQ(strings_of(scalar[0]), Strings{"xy"});
}

TEST(StringConcat, EmptyAndBadInputs) {
  auto out = OpTest("StringConcat", 20).input(str({0, 2}, {})).input(str({2}, {"a", "b"})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 2}));
  EXPECT_THROW(
      OpTest("StringConcat", 20).input(str({2}, {"a", "b"})).input(str({3}, {"", "", ""})).run(),
      Error);
  EXPECT_THROW(OpTest("StringConcat", 20).input(f32({1}, {1})).input(str({1}, {"a"})).run(), Error);
}

// --- StringSplit -----------------------------------------------------------------------------

TEST(StringSplit, DelimiterPadsToTheLongestSplit) {
  auto out = OpTest("StringSplit", 20)
                 .outputs(2)
                 .input(str({3}, {"a,b,c", "d", ""}))
                 .attr("delimiter", ",")
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{3, 3}));
  EXPECT_EQ(strings_of(out[0]), (Strings{"a", "b", "c", "d", "", "", "", "", ""}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 1}));
}

TEST(StringSplit, ConsecutiveAndMultiCharDelimiters) {
  auto out = OpTest("StringSplit", 20)
                 .outputs(2)
                 .input(str({2}, {"1--2----3", "--"}))
                 .attr("delimiter", "--")
                 .run();
  EXPECT_EQ(strings_of(out[0]), (Strings{"1", "2", "", "3", "", "", "", ""}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{4, 2}));
}

TEST(StringSplit, WhitespaceRunsWithoutDelimiter) {
  auto out =
      OpTest("StringSplit", 20).outputs(2).input(str({2, 1}, {"  hello \t world ", "   "})).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(strings_of(out[0]), (Strings{"hello", "world", "", ""}));
  EXPECT_EQ(out[1].shape(), (Shape{2, 1}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{2, 0}));
  // An empty delimiter means whitespace too.
  auto empty =
      OpTest("StringSplit", 20).outputs(2).input(str({1}, {"a  b"})).attr("delimiter", "").run();
  EXPECT_EQ(strings_of(empty[0]), (Strings{"a", "b"}));
}

TEST(StringSplit, MaxSplitKeepsTheRemainder) {
  auto out = OpTest("StringSplit", 20)
                 .outputs(2)
                 .input(str({2}, {"a b c d", " x  y z "}))
                 .attr("maxsplit", 2)
                 .run();
  EXPECT_EQ(strings_of(out[0]), (Strings{"a", "b", "c d", "x", "y", "z "}));
  auto delim = OpTest("StringSplit", 20)
                   .outputs(2)
                   .input(str({1}, {"1:2:3"}))
                   .attr("delimiter", ":")
                   .attr("maxsplit", 1)
                   .run();
  EXPECT_EQ(strings_of(delim[0]), (Strings{"1", "2:3"}));
}

TEST(StringSplit, EmptyTensor) {
  auto out = OpTest("StringSplit", 20).outputs(2).input(str({0}, {})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 0}));
  EXPECT_EQ(out[1].shape(), Shape{0});
}

// --- StringNormalizer ------------------------------------------------------------------------

TEST(StringNormalizer, DropsStopwordsAndChangesCase) {
  auto out = OpTest("StringNormalizer", 10)
                 .input(str({4}, {"monday", "Monday", "tuesday", "Été"}))
                 .attr("stopwords", Strings{"monday"})
                 .attr("is_case_sensitive", 1)
                 .attr("case_change_action", "UPPER")
                 .run();
  EXPECT_EQ(strings_of(out[0]), (Strings{"MONDAY", "TUESDAY", "ÉTÉ"}));
}

TEST(StringNormalizer, CaseInsensitiveStopwordsOnARow) {
  auto out = OpTest("StringNormalizer", 10)
                 .input(str({1, 4}, {"Monday", "ÉCOLE", "MONDAY", "x"}))
                 .attr("stopwords", Strings{"monday", "école"})
                 .attr("case_change_action", "LOWER")
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(strings_of(out[0]), Strings{"x"});
}

TEST(StringNormalizer, EverythingDroppedGivesOneEmptyString) {
  auto out = OpTest("StringNormalizer", 10)
                 .input(str({2}, {"monday", "monday"}))
                 .attr("stopwords", Strings{"monday"})
                 .run();
  EXPECT_EQ(out[0].shape(), Shape{1});
  EXPECT_EQ(strings_of(out[0]), Strings{""});
  auto row = OpTest("StringNormalizer", 10)
                 .input(str({1, 1}, {"monday"}))
                 .attr("stopwords", Strings{"monday"})
                 .run();
  EXPECT_EQ(row[0].shape(), (Shape{1, 1}));
}

TEST(StringNormalizer, NoStopwordsNoChange) {
  auto out = OpTest("StringNormalizer", 10).input(str({2}, {"Ab", ""})).run();
  EXPECT_EQ(strings_of(out[0]), (Strings{"Ab", ""}));
}

TEST(StringNormalizer, BadInput) {
  EXPECT_THROW(OpTest("StringNormalizer", 10).input(str({2, 2}, {"a", "b", "c", "d"})).run(),
               Error);
  EXPECT_THROW(OpTest("StringNormalizer", 10)
                   .input(str({1}, {"a"}))
                   .attr("case_change_action", "TITLE")
                   .run(),
               Error);
}

// --- RegexFullMatch --------------------------------------------------------------------------

TEST(RegexFullMatch, MatchesWholeStrings) {
  auto out = OpTest("RegexFullMatch", 20)
                 .input(str({2, 2}, {"www.google.com", "www.facebook.com", "google.com", ""}))
                 .attr("pattern", "www\\.[\\w.-]+\\.\\bcom\\b")
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{true, true, false, false}));
  // A match of a prefix is not a full match.
  auto prefix = OpTest("RegexFullMatch", 20).input(str({1}, {"abc"})).attr("pattern", "ab").run();
  EXPECT_FALSE(prefix[0].data<bool>()[0]);
}

TEST(RegexFullMatch, EmptyInputAndBadPattern) {
  auto out = OpTest("RegexFullMatch", 20).input(str({0}, {})).attr("pattern", "a*").run();
  EXPECT_EQ(out[0].shape(), Shape{0});
  EXPECT_THROW(OpTest("RegexFullMatch", 20).input(str({1}, {"a"})).attr("pattern", "(a").run(),
               Error);
  EXPECT_THROW(OpTest("RegexFullMatch", 20).input(str({1}, {"a"})).run(), Error);
}

// --- TfIdfVectorizer -------------------------------------------------------------------------

// Pool: unigrams {2, 3, 5, 4} and bigrams {(5, 6), (7, 8), (6, 7)}, mapped to columns 0..6.
OpTest tfidf(const Tensor& x, int64_t min_gram, int64_t max_gram, int64_t skip,
             const std::string& mode = "TF") {
  OpTest t("TfIdfVectorizer", 9);
  t.input(x)
      .attr("min_gram_length", min_gram)
      .attr("max_gram_length", max_gram)
      .attr("max_skip_count", skip)
      .attr("mode", mode)
      .attr("ngram_counts", std::vector<int64_t>{0, 4})
      .attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6})
      .attr("pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
  return t;
}

const Tensor kTokens = i64({12}, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});

TEST(TfIdfVectorizer, BigramsWithoutSkips) {
  auto out = tfidf(kTokens, 2, 2, 0).run();
  EXPECT_EQ(out[0].shape(), Shape{7});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 1, 1, 1}));
}

TEST(TfIdfVectorizer, UnigramsAndBigramsWithSkips) {
  // Unigrams counted once; bigrams (7,8) at distances 1 and 5 (7 ... 8), (6,7) at 1, (5,6) at 1.
  auto out = tfidf(kTokens, 1, 2, 5).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 3, 1, 0, 1, 3, 1}));
}

TEST(TfIdfVectorizer, BatchAndWeightedModes) {
  const Tensor batch = i64({2, 6}, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});
  auto tf = tfidf(batch, 2, 2, 0).run();
  EXPECT_EQ(tf[0].shape(), (Shape{2, 7}));
  EXPECT_EQ(tf[0].to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}));
  const std::vector<float> weights{1, 2, 3, 4, 5, 6, 7};
  auto tfidf_out = tfidf(kTokens, 1, 1, 0, "TFIDF").attr("weights", weights).run();
  EXPECT_EQ(tfidf_out[0].to_vector<float>(), (std::vector<float>{0, 6, 3, 0, 0, 0, 0}));
  auto idf = tfidf(kTokens, 1, 1, 0, "IDF").attr("weights", weights).run();
  EXPECT_EQ(idf[0].to_vector<float>(), (std::vector<float>{0, 2, 3, 0, 0, 0, 0}));
}

TEST(TfIdfVectorizer, StringPool) {
  auto out = OpTest("TfIdfVectorizer", 9)
                 .input(str({5}, {"a", "b", "a", "b", "c"}))
                 .attr("min_gram_length", int64_t{1})
                 .attr("max_gram_length", int64_t{2})
                 .attr("max_skip_count", int64_t{0})
                 .attr("mode", "TF")
                 .attr("ngram_counts", std::vector<int64_t>{0, 2})
                 .attr("ngram_indexes", std::vector<int64_t>{1, 0, 2})
                 .attr("pool_strings", Strings{"a", "c", "a", "b"})
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 2, 2}));
}

TEST(TfIdfVectorizer, EmptyInputAndBadAttributes) {
  auto out = tfidf(i64({0}, {}), 1, 2, 0).run();
  EXPECT_EQ(out[0].to_vector<float>(), std::vector<float>(7, 0.0f));
  EXPECT_THROW(tfidf(kTokens, 1, 2, 0, "BM25").run(), Error);
  EXPECT_THROW(tfidf(kTokens, 3, 2, 0).run(), Error);
  EXPECT_THROW(tfidf(str({1}, {"a"}), 1, 2, 0).run(), Error);
  // An output column at the top of the int64 range (column + 1 overflowed).
  EXPECT_THROW(OpTest("TfIdfVectorizer", 9)
                   .input(kTokens)
                   .attr("min_gram_length", int64_t{1})
                   .attr("max_gram_length", int64_t{1})
                   .attr("max_skip_count", int64_t{0})
                   .attr("mode", "TF")
                   .attr("ngram_counts", std::vector<int64_t>{0})
                   .attr("ngram_indexes", std::vector<int64_t>{INT64_MAX})
                   .attr("pool_int64s", std::vector<int64_t>{3})
                   .run(),
               Error);
}

TEST(TfIdfVectorizer, HugeSkipCountsAndGramLengths) {
  // A skip count past the row's length finds nothing more than one of the row's length (it used
  // to loop 2^50 times, or to overflow); a huge min_gram_length finds nothing at all.
  const std::vector<float> all_skips = tfidf(kTokens, 2, 2, 11).run()[0].to_vector<float>();
  EXPECT_EQ(tfidf(kTokens, 2, 2, int64_t{1} << 50).run()[0].to_vector<float>(), all_skips);
  EXPECT_EQ(tfidf(kTokens, 2, 2, INT64_MAX).run()[0].to_vector<float>(), all_skips);
  EXPECT_EQ(tfidf(kTokens, int64_t{1} << 62, INT64_MAX, 3).run()[0].to_vector<float>(),
            std::vector<float>(7, 0.0f));
}

}  // namespace
}  // namespace kiln::testing
