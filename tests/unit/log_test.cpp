// kiln's log (kiln/log.h): levels, the user's handler, events logged once, and what the CPU
// runtime reports on its own.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/log.h"
#include "graph_builder.h"
#include "kiln/kiln.h"

namespace kiln::testing {
namespace {

// Captures what kiln logs while it lives, and restores the default handler and level after.
class CapturedLog {
 public:
  explicit CapturedLog(LogLevel level) {
    set_log_level(level);
    set_log_handler([this](LogLevel l, std::string_view m) { messages.emplace_back(l, m); });
  }
  ~CapturedLog() {
    set_log_handler({});
    set_log_level(LogLevel::Warn);
  }
  int count_containing(const std::string& text) const {
    int n = 0;
    for (const auto& [level, m] : messages) n += m.find(text) != std::string::npos;
    return n;
  }
  std::vector<std::pair<LogLevel, std::string>> messages;
};

TEST(Log, ParsesTheLevelsKilnLogTakes) {
  EXPECT_EQ(parse_log_level("debug"), LogLevel::Debug);
  EXPECT_EQ(parse_log_level("info"), LogLevel::Info);
  EXPECT_EQ(parse_log_level("warn"), LogLevel::Warn);
  EXPECT_EQ(parse_log_level("warning"), LogLevel::Warn);
  EXPECT_EQ(parse_log_level("off"), LogLevel::Off);
  EXPECT_THROW(parse_log_level("loud"), Error);
  EXPECT_EQ(log_level_name(LogLevel::Info), "info");
}

TEST(Log, TheHandlerGetsMessagesAtOrAboveTheLevel) {
  CapturedLog log(LogLevel::Warn);
  log_message(LogLevel::Info, "quiet detail");
  log_message(LogLevel::Warn, "something slow");
  log_message(LogLevel::Error, "something wrong");
  ASSERT_EQ(log.messages.size(), 2u);
  EXPECT_EQ(log.messages[0], std::make_pair(LogLevel::Warn, std::string("something slow")));
  EXPECT_EQ(log.messages[1].first, LogLevel::Error);
  set_log_level(LogLevel::Off);
  log_message(LogLevel::Error, "silenced");
  EXPECT_EQ(log.messages.size(), 2u);
}

TEST(Log, AnEventIsLoggedOnceButOnlyOnceItIsShown) {
  CapturedLog log(LogLevel::Warn);
  log_once(LogLevel::Info, "log-test-event", "hidden at warn");
  set_log_level(LogLevel::Info);
  // Hidden the first time, so raising the level shows it once.
  log_once(LogLevel::Info, "log-test-event", "shown");
  log_once(LogLevel::Info, "log-test-event", "shown again");
  EXPECT_EQ(log.count_containing("hidden"), 0);
  EXPECT_EQ(log.count_containing("shown"), 1);
}

// A CPU worker logs at info when new input shapes make it plan memory again, and not for the
// shapes it has planned already.
TEST(Log, ANewInputShapeIsLoggedWhenTheWorkerPlansAgain) {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"n"});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  const Model model = b.build();
  Worker worker(model, Backend::Cpu);
  CapturedLog log(LogLevel::Info);
  auto run = [&](int64_t n) {
    worker.schedule({{"x", Tensor::zeros(DataType::Float32, {n})}});
    worker.peek_output("y").readback_and_clone();
  };
  run(4);
  run(4);
  EXPECT_EQ(log.count_containing("new input shapes"), 0);
  run(8);
  EXPECT_EQ(log.count_containing("new input shapes"), 1);
  run(8);
  run(4);
  EXPECT_EQ(log.count_containing("new input shapes"), 1);
}

}  // namespace
}  // namespace kiln::testing
