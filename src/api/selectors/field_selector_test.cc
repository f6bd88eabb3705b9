#include "api/selectors/field_selector.h"

#include <array>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace svcplane::api::selectors {
namespace {

FieldSelector MustParse(std::string_view s) {
  auto sel = ParseFieldSelector(s);
  EXPECT_TRUE(sel.ok()) << s << ": " << sel.status().message();
  return sel.ok() ? *sel : FieldSelector();
}

std::string ParseError(std::string_view s) {
  auto sel = ParseFieldSelector(s);
  if (sel.ok()) return "<parsed: " + sel->String() + ">";
  EXPECT_EQ(sel.status().code(), Code::kBadRequest);
  return sel.status().message();
}

TEST(FieldSelectorParse, GoodStrings) {
  EXPECT_EQ(MustParse("x=a,y=b,z=c").String(), "x=a,y=b,z=c");
  EXPECT_TRUE(MustParse("").Empty());
  EXPECT_TRUE(MustParse(",").Empty());
  EXPECT_TRUE(MustParse("=").Empty());  // upstream's Transform drops the empty term
  EXPECT_EQ(MustParse("x!=a,y=b").String(), "x!=a,y=b");
  EXPECT_EQ(MustParse("x=").String(), "x=");
  EXPECT_EQ(MustParse("x==a").String(), "x=a");
  EXPECT_EQ(MustParse("=x").String(), "=x");
  // Raw terms are sorted before parsing.
  EXPECT_EQ(MustParse("z=1,a=2,m!=3").String(), "a=2,m!=3,z=1");
  // No whitespace trimming: spaces are part of field and value.
  EXPECT_EQ(MustParse(" a = b ").requirements()[0].field, " a ");
  EXPECT_EQ(MustParse(" a = b ").requirements()[0].value, " b ");
}

TEST(FieldSelectorParse, Operators) {
  EXPECT_EQ(MustParse("a=b").requirements()[0].op, FieldOperator::kEquals);
  EXPECT_EQ(MustParse("a==b").requirements()[0].op, FieldOperator::kDoubleEquals);
  EXPECT_EQ(MustParse("a!=b").requirements()[0].op, FieldOperator::kNotEquals);
  // The first operator position wins; "!" alone is part of the field.
  auto r = MustParse("a!b=c").requirements()[0];
  EXPECT_EQ(r.field, "a!b");
  EXPECT_EQ(r.value, "c");
}

TEST(FieldSelectorParse, Escapes) {
  EXPECT_EQ(MustParse("a=b\\,c").requirements()[0].value, "b,c");
  EXPECT_EQ(MustParse("a=b\\=c").requirements()[0].value, "b=c");
  EXPECT_EQ(MustParse("a=b\\\\c").requirements()[0].value, "b\\c");
  EXPECT_EQ(MustParse("a=b\\,c,d=e").requirements().size(), 2u);
  EXPECT_EQ(MustParse("a=b\\,c").String(), "a=b\\,c");
  EXPECT_EQ(MustParse("a=\\=\\\\\\,").String(), "a=\\=\\\\\\,");
  EXPECT_EQ(EscapeFieldValue("a,b=c\\d"), "a\\,b\\=c\\\\d");
  EXPECT_EQ(*UnescapeFieldValue("a\\,b\\=c\\\\d"), "a,b=c\\d");
  EXPECT_EQ(*UnescapeFieldValue("plain"), "plain");
}

TEST(FieldSelectorParse, Errors) {
  EXPECT_EQ(ParseError("x"), "invalid selector: 'x'; can't understand 'x'");
  EXPECT_EQ(ParseError("a=b,x"), "invalid selector: 'a=b,x'; can't understand 'x'");
  EXPECT_EQ(ParseError("x=a||y=b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(ParseError("x==a==b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(ParseError("a=b\\n"), "invalid field selector: invalid escape sequence: \\n");
  EXPECT_EQ(ParseError("a=b\\"), "invalid field selector: invalid escape sequence: \\");
  EXPECT_EQ(ParseError("a=\\\xC3\xA9"),
            "invalid field selector: invalid escape sequence: \\\xC3\xA9");
  // Invalid UTF-8 after a backslash reads as U+FFFD, as Go's range loop does.
  EXPECT_EQ(ParseError("a=\\\xC0\x80"),
            "invalid field selector: invalid escape sequence: \\\xEF\xBF\xBD");
  EXPECT_EQ(MustParse("a=\xff\\,").requirements()[0].value, "\xEF\xBF\xBD,");
  EXPECT_EQ(MustParse("a=\xff").requirements()[0].value, "\xff");  // fast path keeps bytes
  EXPECT_EQ(UnescapeFieldValue("a,b").status().message(),
            "invalid field selector: unescaped character in value: 44");
}

TEST(FieldSelectorMatch, PairsAndAbsentFields) {
  std::array<FieldValue, 3> pod = {
      {{"metadata.name", "p1"}, {"spec.nodeName", "n1"}, {"status.phase", "Running"}}};
  EXPECT_TRUE(MustParse("").Matches(pod));
  EXPECT_TRUE(MustParse("metadata.name=p1").Matches(pod));
  EXPECT_TRUE(MustParse("metadata.name==p1").Matches(pod));
  EXPECT_FALSE(MustParse("metadata.name=p2").Matches(pod));
  EXPECT_TRUE(
      MustParse("spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed").Matches(pod));
  EXPECT_FALSE(MustParse("spec.nodeName=n1,status.phase!=Running").Matches(pod));
  // A missing field reads as "".
  EXPECT_TRUE(MustParse("spec.restartPolicy=").Matches(pod));
  EXPECT_TRUE(MustParse("spec.restartPolicy!=Always").Matches(pod));
  EXPECT_FALSE(MustParse("spec.restartPolicy=Always").Matches(pod));
}

TEST(FieldSelectorMatch, Getter) {
  auto sel = MustParse("metadata.name=a\\,b,metadata.namespace!=kube-system");
  auto get = [](std::string_view f) -> std::optional<std::string_view> {
    if (f == "metadata.name") return "a,b";
    if (f == "metadata.namespace") return "default";
    return std::nullopt;
  };
  EXPECT_TRUE(sel.MatchesWith(get));
}

TEST(FieldSelector, RequiresExactMatchAndItemName) {
  EXPECT_EQ(MustParse("metadata.name=x").RequiresExactMatch("metadata.name"), "x");
  EXPECT_EQ(MustParse("metadata.name==x").RequiresExactMatch("metadata.name"), "x");
  EXPECT_EQ(MustParse("metadata.name!=x").RequiresExactMatch("metadata.name"), std::nullopt);
  EXPECT_EQ(MustParse("metadata.name!=y,metadata.name=x").RequiresExactMatch("metadata.name"), "x");
  EXPECT_EQ(RequiredName(MustParse("metadata.name=web,spec.type=ClusterIP")), "web");
  EXPECT_EQ(RequiredName(MustParse("spec.type=ClusterIP")), std::nullopt);

  auto item = SelectorForItemName(FieldSelector(), "web");
  ASSERT_TRUE(item.ok());
  EXPECT_EQ(item->String(), "metadata.name=web");
  EXPECT_TRUE(SelectorForItemName(MustParse("metadata.name=web"), "web").ok());
  auto conflict = SelectorForItemName(MustParse("metadata.name=db"), "web");
  EXPECT_EQ(conflict.status().code(), Code::kBadRequest);
  EXPECT_EQ(conflict.status().message(),
            "fieldSelector metadata.name doesn't match requested name");
  EXPECT_FALSE(SelectorForItemName(MustParse("spec.type=X"), "web").ok());
}

TEST(FieldSelector, LabelChecks) {
  constexpr std::string_view kNodeFields[] = {"metadata.name", "spec.unschedulable"};
  EXPECT_TRUE(CheckFieldLabels(MustParse("metadata.name=n1"), kNodeFields).ok());
  Status st = CheckFieldLabels(MustParse("metadata.name=n1,metadata.namespace=x"), kNodeFields);
  EXPECT_EQ(st.code(), Code::kBadRequest);
  EXPECT_EQ(st.message(), "field label not supported: metadata.namespace");

  EXPECT_TRUE(CheckDefaultFieldLabels(MustParse("metadata.name=a,metadata.namespace=b")).ok());
  Status def = CheckDefaultFieldLabels(MustParse("spec.foo=bar"));
  EXPECT_EQ(def.code(), Code::kBadRequest);
  EXPECT_EQ(def.message(),
            "\"spec.foo\" is not a known field selector: only \"metadata.name\", "
            "\"metadata.namespace\"");
}

TEST(FieldSelector, TransformRenamesAndFails) {
  auto sel = MustParse("spec.host=n1,status.phase=Running");
  auto renamed = sel.Transform(
      [](std::string_view f, std::string_view v) -> Result<std::pair<std::string, std::string>> {
        if (f == "spec.host") return std::pair<std::string, std::string>("spec.nodeName", v);
        return std::pair<std::string, std::string>(f, v);
      });
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->String(), "spec.nodeName=n1,status.phase=Running");
  auto failed = sel.Transform(
      [](std::string_view, std::string_view) -> Result<std::pair<std::string, std::string>> {
        return BadRequestError("nope");
      });
  EXPECT_EQ(failed.status().message(), "nope");
}

}  // namespace
}  // namespace svcplane::api::selectors
