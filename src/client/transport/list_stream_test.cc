#include "client/transport/list_stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/codec/protobuf.h"

namespace svcplane::client::transport {
namespace {

using ::testing::ElementsAre;

constexpr std::string_view kList =
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"c"},)"
    R"( "items" : [ {"metadata":{"name":"a\"}{[","labels":{"x":"]"}}},)"
    "\n"
    R"({"metadata":{"name":"b\\"},"spec":{"containers":[{"name":"c","ports":[1,2]}]}} ],)"
    R"("extra":[true,null,{"k":"}"}]})";

std::vector<std::string> Split(JsonListSplitter& s, std::string_view body, size_t chunk) {
  std::vector<std::string> items;
  for (size_t i = 0; i < body.size(); i += chunk) {
    Status st = s.Feed(body.substr(i, chunk), [&](std::string_view item) {
      items.emplace_back(item);
      return true;
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return items;
}

// Every chunking of the body (one byte at a time up to all at once) yields the same items, with
// braces and quotes inside strings (escaped or not) left alone.
TEST(JsonListSplitterTest, SplitsItemsWhateverTheChunks) {
  for (size_t chunk = 1; chunk <= kList.size(); ++chunk) {
    JsonListSplitter s;
    auto items = Split(s, kList, chunk);
    EXPECT_THAT(
        items,
        ElementsAre(
            R"({"metadata":{"name":"a\"}{[","labels":{"x":"]"}}})",
            R"({"metadata":{"name":"b\\"},"spec":{"containers":[{"name":"c","ports":[1,2]}]}})"))
        << "chunk " << chunk;
    EXPECT_EQ(s.metadata(), R"({"resourceVersion":"42","continue":"c"})");
    EXPECT_TRUE(s.Finish().ok());
  }
}

// Strings longer than the splitter's 8-byte steps, with escaped quotes and backslashes at every
// offset within a step, and multi-byte UTF-8: items come out whole at any chunking.
TEST(JsonListSplitterTest, LongStringsWithEscapesAtEveryOffset) {
  std::vector<std::string> want;
  std::string body = R"({"items":[)";
  for (int offset = 0; offset < 17; ++offset) {
    for (std::string_view esc : {R"(\")", R"(\\)", R"(\\\")", R"(\u00e9)"}) {
      std::string value = std::string(offset, 'x') + std::string(esc) + "}]{[ \xc3\xa9 " +
                          std::string(offset, 'y') + "\\\\";
      std::string item = R"({"a":")" + value + R"(","b":{"c":"]"}})";
      if (!want.empty()) body += ",";
      body += item;
      want.push_back(item);
    }
  }
  body += "]}";
  for (size_t chunk : {1, 3, 7, 8, 9, 64, 1000}) {
    JsonListSplitter s;
    EXPECT_EQ(Split(s, body, chunk), want) << "chunk " << chunk;
    EXPECT_TRUE(s.Finish().ok());
  }
}

TEST(JsonListSplitterTest, EmptyAndNullItems) {
  for (std::string_view body :
       {R"({"metadata":{},"items":[]})", R"({"items":null,"metadata":{}})", R"({"metadata":{}})"}) {
    JsonListSplitter s;
    EXPECT_TRUE(Split(s, body, 3).empty()) << body;
    EXPECT_EQ(s.metadata(), "{}");
    EXPECT_TRUE(s.Finish().ok()) << body;
  }
}

TEST(JsonListSplitterTest, MalformedBodiesAreErrors) {
  for (std::string_view body : {R"([1,2])", R"({"items":{"a":1}})", R"({"items":[1]})",
                                R"({"items":[{}] "x":1})", R"({"items":[{}]}})"}) {
    JsonListSplitter s;
    Status st = s.Feed(body, [](std::string_view) { return true; });
    EXPECT_EQ(st.code(), Code::kBadRequest) << body;
  }
  JsonListSplitter truncated;
  ASSERT_TRUE(
      truncated.Feed(R"({"items":[{"a":1},{"b")", [](std::string_view) { return true; }).ok());
  EXPECT_EQ(truncated.Finish().code(), Code::kBadRequest);
}

TEST(JsonListSplitterTest, HandlerStopsTheSplit) {
  JsonListSplitter s;
  int calls = 0;
  ASSERT_TRUE(s.Feed(kList, [&](std::string_view) { return ++calls < 1; }).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(s.stopped());
  EXPECT_TRUE(s.Feed("garbage", [&](std::string_view) { return true; }).ok());
}

// The protobuf List as the server writes it, split at every chunking, gives back each Pod and
// the list's metadata.
TEST(ProtobufListSplitterTest, SplitsItemsWhateverTheChunks) {
  using api::core::v1::Pod;
  std::vector<Pod> pods(3);
  std::vector<const Pod*> ptrs;
  for (size_t i = 0; i < pods.size(); ++i) {
    pods[i].metadata.name = "pod-" + std::to_string(i);
    pods[i].metadata.labels["app"] = std::string(200 * i, 'x');  // lengths of 1 and 2 bytes
    ptrs.push_back(&pods[i]);
  }
  api::meta::ListMeta meta;
  meta.resource_version = "42";
  meta.continue_ = "next";
  std::string body;
  api::codec::EncodeProtobufList<Pod>(meta, ptrs, "v1", "PodList", &body);
  for (size_t chunk = 1; chunk <= body.size(); chunk += chunk < 40 ? 1 : 37) {
    ProtobufListSplitter s;
    std::vector<std::string> names;
    for (size_t i = 0; i < body.size(); i += chunk) {
      Status st = s.Feed(std::string_view(body).substr(i, chunk), [&](std::string_view item) {
        auto pod = api::codec::DecodeProtobufMessage<Pod>(item);
        EXPECT_TRUE(pod.ok()) << pod.status().ToString();
        if (pod.ok()) names.push_back(pod->metadata.name);
        return true;
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    EXPECT_THAT(names, ElementsAre("pod-0", "pod-1", "pod-2")) << "chunk " << chunk;
    ASSERT_TRUE(s.Finish().ok()) << "chunk " << chunk;
    auto list = api::codec::DecodeProtobufMessage<api::PodList>(s.metadata_field());
    ASSERT_TRUE(list.ok());
    EXPECT_EQ(list->metadata.resource_version, "42");
    EXPECT_EQ(list->metadata.continue_, "next");
    EXPECT_TRUE(list->items.empty());
  }
}

TEST(ProtobufListSplitterTest, TruncatedOrForeignBodiesAreErrors) {
  std::string body;
  api::codec::EncodeProtobufList<api::core::v1::Pod>({}, {}, "v1", "PodList", &body);
  ProtobufListSplitter whole;
  ASSERT_TRUE(whole.Feed(body, [](std::string_view) { return true; }).ok());
  EXPECT_TRUE(whole.Finish().ok());
  ProtobufListSplitter cut;
  ASSERT_TRUE(cut.Feed(std::string_view(body).substr(0, body.size() - 1),
                       [](std::string_view) { return true; })
                  .ok());
  EXPECT_EQ(cut.Finish().code(), Code::kBadRequest);
  ProtobufListSplitter json;
  EXPECT_EQ(json.Feed(R"({"items":[]})", [](std::string_view) { return true; }).code(),
            Code::kBadRequest);
}

}  // namespace
}  // namespace svcplane::client::transport
