// Cases ported from apimachinery's strategicpatch/patch_test.go (TestCustomStrategicMergePatch,
// TestStrategicMergePatch, TestReplaceWithRawExtension), applied with the schema of the test's
// MergeItem struct. Each case applies the patch to the live object and checks the result.

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "apiserver/patch/schema.h"
#include "apiserver/patch/strategic.h"

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

// MergeItem and RetainKeysMergeItem from patch_test.go; MergeItem is recursive.
const Schema& MergeItemSchema() {
  static const Schema* const kSchema = [] {
    auto* item = new Schema();
    auto* retain = new Schema();
    item->SetField("mergingList", {ListStrategy::kMergeByKey, "name", false, false, item});
    item->SetField("nonMergingList", {ListStrategy::kReplace, "", false, false, item});
    item->SetField("mergingIntList", {ListStrategy::kMergeSet});
    item->SetField("nonMergingIntList", {ListStrategy::kReplace});
    item->SetField("replacingItem", {ListStrategy::kReplace, "", false, /*replace_map=*/true});
    item->SetField("retainKeysMap",
                   {ListStrategy::kReplace, "", /*retain_keys=*/true, false, retain});
    item->SetField("retainKeysMergingList",
                   {ListStrategy::kMergeByKey, "name", /*retain_keys=*/true, false, item});
    retain->SetField("mergingIntList", {ListStrategy::kMergeSet});
    retain->SetField("mergingList", {ListStrategy::kMergeByKey, "name", false, false, item});
    retain->SetField("nonMergingList", {ListStrategy::kReplace, "", false, false, item});
    return item;
  }();
  return *kSchema;
}

struct UpstreamCase {
  const char* name;
  const char* current;
  const char* patch;
  const char* result;  // null when `error` is set
  const char* error = nullptr;
};

void PrintTo(const UpstreamCase& c, std::ostream* os) { *os << c.name; }

class UpstreamStrategicTest : public testing::TestWithParam<UpstreamCase> {};

TEST_P(UpstreamStrategicTest, AppliesAsUpstream) {
  const UpstreamCase& c = GetParam();
  json::value target = json::parse(c.current);
  const json::value before = target;
  Status s = ApplyStrategicMergePatch(target, json::parse(c.patch), MergeItemSchema());
  if (c.error != nullptr) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(c.error), std::string::npos) << s.message();
    EXPECT_EQ(target, before) << "target must be untouched on error";
    return;
  }
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(target, json::parse(c.result)) << "got " << json::serialize(target);
}

const UpstreamCase kCases[] = {
    // customStrategicMergePatchTestCaseData
    {"unique_scalars_when_merging_lists", R"({"mergingIntList":[1,2]})",
     R"({"mergingIntList":[2,3]})", R"({"mergingIntList":[1,2,3]})"},
    {"delete_map_from_nested_map", R"({"simpleMap":{"key1":1,"key2":1}})",
     R"({"simpleMap":{"$patch":"delete"}})", R"({"simpleMap":{}})"},
    {"delete_all_items_from_merging_list", R"({"mergingList":[{"name":1},{"name":2}]})",
     R"({"mergingList":[{"$patch":"replace"}]})", R"({"mergingList":[]})"},
    {"merge_empty_merging_lists", R"({"mergingList":[]})", R"({"mergingList":[]})",
     R"({"mergingList":[]})"},
    {"delete_all_keys_from_map", R"({"name":1,"value":1})", R"({"$patch":"replace"})", "{}"},
    {"add_key_and_delete_all_keys_from_map", R"({"name":1,"value":1})",
     R"({"other":"a","$patch":"replace"})", R"({"other":"a"})"},
    {"retainKeys_map_can_add_a_field_without_directive", R"({"retainKeysMap":{"name":"foo"}})",
     R"({"retainKeysMap":{"value":"bar"}})", R"({"retainKeysMap":{"name":"foo","value":"bar"}})"},
    {"retainKeys_map_can_change_a_field_without_directive",
     R"({"retainKeysMap":{"name":"foo","value":"a"}})", R"({"retainKeysMap":{"value":"b"}})",
     R"({"retainKeysMap":{"name":"foo","value":"b"}})"},
    {"retainKeys_map_can_delete_a_field_without_directive",
     R"({"retainKeysMap":{"name":"foo","value":"a"}})", R"({"retainKeysMap":{"value":null}})",
     R"({"retainKeysMap":{"name":"foo"}})"},
    {"retainKeys_map_merge_an_empty_map", R"({"retainKeysMap":{"name":"foo","value":"a"}})",
     R"({"retainKeysMap":{}})", R"({"retainKeysMap":{"name":"foo","value":"a"}})"},
    {"retainKeys_list_can_add_a_field_without_directive",
     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]})",
     R"({"retainKeysMergingList":[{"name":"foo","value":"a"}]})",
     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]})"},
    {"retainKeys_list_can_delete_a_field_without_directive",
     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]})",
     R"({"retainKeysMergingList":[{"name":"foo","value":null}]})",
     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]})"},
    {"preserve_the_order_from_the_patch_in_a_merging_list",
     R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"other":"x"}]})",
     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},
                        {"name":2,"value":"b","other":"x"}]})"},
    {"preserve_the_order_from_the_patch_in_a_merging_list_2",
     R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"}]})",
     R"({"mergingList":[{"name":2,"value":"b"},{"name":3,"value":"c"},{"name":1,"value":"a"}]})"},
    {"preserve_the_order_from_the_patch_in_a_merging_int_list", R"({"mergingIntList":[1,2,3]})",
     R"({"mergingIntList":[3,1,2]})", R"({"mergingIntList":[3,1,2]})"},
    {"preserve_the_order_from_the_patch_in_a_merging_int_list_2", R"({"mergingIntList":[1,2,3]})",
     R"({"mergingIntList":[3,1]})", R"({"mergingIntList":[2,3,1]})"},
    // customStrategicMergePatchRawTestCases
    {"setElementOrder_contains_item_not_in_the_list", R"({"mergingList":[{"name":1},{"name":3}]})",
     R"({"$setElementOrder/mergingList":[{"name":3},{"name":2},{"name":1}],
         "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
     R"({"mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})"},
    {"setElementOrder_contains_item_not_in_the_int_list", R"({"mergingIntList":[1,3]})",
     R"({"$setElementOrder/mergingIntList":[3,2,1]})", R"({"mergingIntList":[3,1]})"},
    {"setElementOrder_and_patch_list_order_must_match",
     R"({"mergingList":[{"name":1},{"name":3},{"name":2}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
         "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
     nullptr, "doesn't match"},
    {"setElementOrder_and_patch_int_list_order_must_match", R"({"mergingIntList":[1,3,2]})",
     R"({"$setElementOrder/mergingIntList":[1,2,3],"mergingIntList":[3,1]})", nullptr,
     "doesn't match"},
    {"missing_merge_key_should_error_out", R"({"mergingList":[{"name":1,"value":"a"}]})",
     R"({"mergingList":[{"value":"b"}]})", nullptr,
     "map: map[value:b] does not contain declared merge key: name"},
    // createStrategicMergePatchTestCaseData: three-way patch applied to current
    {"add_field_to_map", R"({"name":1,"other":"a"})", R"({"value":1})",
     R"({"name":1,"value":1,"other":"a"})"},
    {"add_field_and_delete_field_from_map", R"({"name":1,"other":"a"})",
     R"({"name":null,"value":1})", R"({"value":1,"other":"a"})"},
    {"delete_field_from_nested_map", R"({"simpleMap":{"key1":1,"key2":1,"other":"a"}})",
     R"({"simpleMap":{"key2":null}})", R"({"simpleMap":{"key1":1,"other":"a"}})"},
    {"delete_all_fields_from_map", R"({"name":1,"value":1,"other":"a"})",
     R"({"name":null,"value":null})", R"({"other":"a"})"},
    {"replace_list_of_scalars_with_conflict", R"({"nonMergingIntList":[1,4]})",
     R"({"nonMergingIntList":[2,3]})", R"({"nonMergingIntList":[2,3]})"},
    {"delete_all_maps_from_merging_list_with_conflict",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"other":"b"}]})",
     R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":2,"$patch":"delete"}]})",
     R"({"mergingList":[]})"},
    {"delete_all_maps_from_empty_merging_list", R"({"mergingList":[]})",
     R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":2,"$patch":"delete"}]})",
     R"({"mergingList":[]})"},
    {"defined_null_values_overwrite_current_fields", R"({"name":"a","other":"a"})",
     R"({"name":1,"value":1,"other":null})", R"({"name":1,"value":1})"},
    {"nil_patch_with_retainKeys_map", R"({"name":"a","value":"b","retainKeysMap":{"name":"foo"}})",
     "{}", R"({"name":"a","value":"b","retainKeysMap":{"name":"foo"}})"},
    // strategicMergePatchRawTestCases
    {"delete_items_in_lists_of_scalars", R"({"mergingIntList":[1,2,3,4]})",
     R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
     R"({"mergingIntList":[1,2,4]})"},
    {"delete_all_duplicate_items_in_lists_of_scalars", R"({"mergingIntList":[1,2,3,3,4]})",
     R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
     R"({"mergingIntList":[1,2,4]})"},
    {"add_and_delete_items_in_lists_of_scalars", R"({"mergingIntList":[1,2,3,4]})",
     R"({"$setElementOrder/mergingIntList":[1,2,4],
         "$deleteFromPrimitiveList/mergingIntList":[3],"mergingIntList":[4]})",
     R"({"mergingIntList":[1,2,4]})"},
    {"merge_lists_of_maps",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":4},{"name":1},{"name":2},{"name":3}],
         "mergingList":[{"name":4,"value":4},{"name":3,"value":3}]})",
     R"({"mergingList":[{"name":4,"value":4},{"name":1,"other":"a"},
                        {"name":2,"value":2,"other":"b"},{"name":3,"value":3}]})"},
    {"merge_lists_of_maps_with_conflict",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":3,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
         "mergingList":[{"name":2,"value":2},{"name":3,"value":3}]})",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},
                        {"name":3,"value":3}]})"},
    {"add_field_to_map_in_merging_list",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2}],
         "mergingList":[{"name":1,"value":1}]})",
     R"({"mergingList":[{"name":1,"value":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})"},
    // replaceRawExtensionPatchTestCases
    {"replace_RawExtension_field_and_merge_list",
     R"({"name":"my-object","mergingList":[{"name":1},{"name":3}],
         "replacingItem":{"Some":"Generic","Yaml":"Inside","Field":"Period"}})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"name":2}],
         "replacingItem":{"Newly":"Modified","Yaml":"Inside"}})",
     R"({"name":"my-object","mergingList":[{"name":1},{"name":2},{"name":3}],
         "replacingItem":{"Newly":"Modified","Yaml":"Inside"}})"},
};

INSTANTIATE_TEST_SUITE_P(PatchTestGo, UpstreamStrategicTest, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<UpstreamCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace svcplane::apiserver::patch
