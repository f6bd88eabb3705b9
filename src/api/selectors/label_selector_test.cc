#include "api/selectors/label_selector.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace svcplane::api::selectors {
namespace {

using meta::StringMap;

constexpr std::string_view kNameRegexTail =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

LabelSelector MustParse(std::string_view s) {
  auto sel = ParseLabelSelector(s);
  EXPECT_TRUE(sel.ok()) << s << ": " << sel.status().message();
  return sel.ok() ? *sel : LabelSelector::Nothing();
}

std::string ParseError(std::string_view s) {
  auto sel = ParseLabelSelector(s);
  if (sel.ok()) return "<parsed: " + sel->String() + ">";
  EXPECT_EQ(sel.status().code(), Code::kBadRequest);
  return sel.status().message();
}

// Upstream TestSelectorParse: good strings print back without their spaces.
TEST(LabelSelectorParse, GoodStringsRoundTrip) {
  for (std::string_view s :
       {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"}) {
    std::string want(s);
    std::erase(want, ' ');
    EXPECT_EQ(MustParse(s).String(), want) << s;
  }
}

TEST(LabelSelectorParse, CanonicalFormSortsByKeyAndValues) {
  EXPECT_EQ(MustParse("x=a,a=x").String(), "a=x,x=a");
  EXPECT_EQ(MustParse("a=x,x=a").String(), "a=x,x=a");
  EXPECT_EQ(MustParse("x notin (def,abc),bar,z in (),w").String(),
            "bar,w,x notin (abc,def),z in ()");
  EXPECT_EQ(MustParse("x in (b,a,b)").String(), "x in (a,b)");
  EXPECT_EQ(MustParse("x in (abc,)").String(), "x in (,abc)");
  EXPECT_EQ(MustParse("x in (a,,b)").requirements()[0].values(),
            (std::vector<std::string>{"", "a", "b"}));
  EXPECT_EQ(MustParse("x in (,a)").requirements()[0].values(), (std::vector<std::string>{"", "a"}));
  EXPECT_EQ(MustParse("x == y").String(), "x==y");
  EXPECT_EQ(MustParse("x != y").String(), "x!=y");
  EXPECT_EQ(MustParse("  !  x  ").String(), "!x");
  EXPECT_EQ(MustParse("x<5").String(), "x<5");
  // Stable for duplicate keys, like Go's insertion sort for small inputs.
  EXPECT_EQ(MustParse("z!=a,z,a=b").String(), "a=b,z!=a,z");
}

TEST(LabelSelectorParse, Operators) {
  auto ops = [](std::string_view s) { return MustParse(s).requirements()[0].op(); };
  EXPECT_EQ(ops("x=a"), Operator::kEquals);
  EXPECT_EQ(ops("x==a"), Operator::kDoubleEquals);
  EXPECT_EQ(ops("x!=a"), Operator::kNotEquals);
  EXPECT_EQ(ops("x in (a)"), Operator::kIn);
  EXPECT_EQ(ops("x notin (a)"), Operator::kNotIn);
  EXPECT_EQ(ops("x"), Operator::kExists);
  EXPECT_EQ(ops("!x"), Operator::kDoesNotExist);
  EXPECT_EQ(ops("x>1"), Operator::kGreaterThan);
  EXPECT_EQ(ops("x<1"), Operator::kLessThan);
}

TEST(LabelSelectorParse, WhitespaceRules) {
  EXPECT_EQ(MustParse("\rx").String(), "x");
  EXPECT_EQ(MustParse("foo  in\t (abc)").String(), "foo in (abc)");
  EXPECT_EQ(MustParse("x notin\n (abc)").String(), "x notin (abc)");
  EXPECT_EQ(MustParse("x  notin\t\t\t(abc,def)").String(), "x notin (abc,def)");
  EXPECT_EQ(MustParse(" a = b , c != d ").String(), "a=b,c!=d");
  EXPECT_EQ(MustParse("x in ( a , b )").String(), "x in (a,b)");
  EXPECT_TRUE(MustParse("   ").Empty());
}

TEST(LabelSelectorParse, KeywordsAreValuesInValuePosition) {
  EXPECT_EQ(MustParse("notin=in").String(), "notin=in");
  EXPECT_EQ(MustParse("in in (in,notin)").String(), "in in (in,notin)");
  EXPECT_EQ(MustParse("in").requirements()[0].op(), Operator::kExists);
  EXPECT_TRUE(MustParse("notin=in").Matches({{"notin", "in"}}));
}

TEST(LabelSelectorParse, QualifiedKeys) {
  EXPECT_EQ(MustParse("this-is-a-dns.domain.com/key-with-dash").String(),
            "this-is-a-dns.domain.com/key-with-dash");
  EXPECT_EQ(MustParse("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)").String(),
            "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)");
  EXPECT_EQ(MustParse("kubernetes.io/service-name=web").String(), "kubernetes.io/service-name=web");
  EXPECT_EQ(MustParse("!service.kubernetes.io/headless").String(),
            "!service.kubernetes.io/headless");
  EXPECT_EQ(
      MustParse("endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io").String(),
      "endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io");
}

// Upstream TestSetSelectorParser: inputs, validity and canonical form.
TEST(LabelSelectorParse, UpstreamSetSelectorTable) {
  struct Case {
    std::string_view in;
    std::string_view canonical;  // empty with ok=false
    bool ok;
  };
  const Case cases[] = {
      {"", "", true},
      {"x,y in (a)", "x,y in (a)", true},
      {"x=a", "x=a", true},
      {"x>1", "x>1", true},
      {"x<7", "x<7", true},
      {"x=a,y!=b", "x=a,y!=b", true},
      {"x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)", true},
      {"x notin ( )", "x notin ()", true},
      {"x notin (, a)", "x notin (,a)", true},
      {"a ", "a", true},
      {"a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)", true},
      {"x=a||y=b", "", false},
      {"x,,y", "", false},
      {",x,y", "", false},
      {"x nott in (y)", "", false},
      {"a in (xyz),", "", false},
      {"a in (xyz)b notin ()", "", false},
      {"a in (xyz abc)", "", false},
      {"a notin(", "", false},
      {"a (", "", false},
      {"(", "", false},
      {"x>a", "", false},
      {"x<a", "", false},
      {"x>1,y", "x>1,y", true},
  };
  for (const Case& c : cases) {
    auto sel = ParseLabelSelector(c.in);
    EXPECT_EQ(sel.ok(), c.ok) << c.in;
    if (sel.ok()) {
      EXPECT_EQ(sel->String(), c.canonical) << c.in;
    }
  }
  EXPECT_EQ(ParseError("x nott in (y)"),
            "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(ParseError("a in (xyz)b notin ()"), "found 'b', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseError("a notin("),
            "unable to parse requirement: found '', expected: ',', ')' or identifier");
}

TEST(LabelSelectorParse, OperatorErrors) {
  EXPECT_EQ(ParseError("app IN (a)"),
            "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(ParseError("x ("),
            "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(ParseError("x )"),
            "unable to parse requirement: found ')', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(ParseError("x y"),
            "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(ParseError("x !"),
            "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt");
}

TEST(LabelSelectorParse, StructureErrors) {
  EXPECT_EQ(ParseError("x==a==b"), "found '==', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseError("!x=a"), "found '=', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseError("!x in (a)"), "found 'in', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseError("a,"), "found '', expected: identifier after ','");
  EXPECT_EQ(ParseError("a,,b"), "found ',', expected: identifier after ','");
  EXPECT_EQ(ParseError("a,=b"), "found '=', expected: identifier after ','");
  EXPECT_EQ(ParseError(",a"), "found ',', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(ParseError("("), "found '(', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(ParseError("=a"), "found '=', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(ParseError("!"), "unable to parse requirement: found '', expected: identifier");
  EXPECT_EQ(ParseError("!!x"), "unable to parse requirement: found '!', expected: identifier");
  EXPECT_EQ(ParseError("!=x"), "found '!=', expected: !, identifier, or 'end of string'");
}

TEST(LabelSelectorParse, ValueListErrors) {
  EXPECT_EQ(ParseError("x in a"), "unable to parse requirement: found 'a' expected: '('");
  EXPECT_EQ(ParseError("x in"), "unable to parse requirement: found '' expected: '('");
  EXPECT_EQ(ParseError("x in (a"), "unable to parse requirement: found '', expected: ',' or ')'");
  EXPECT_EQ(ParseError("x in (a b)"),
            "unable to parse requirement: found 'b', expected: ',' or ')'");
  EXPECT_EQ(ParseError("x in (="),
            "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  EXPECT_EQ(ParseError("x in ("),
            "unable to parse requirement: found '', expected: ',', ')' or identifier");
  EXPECT_EQ(ParseError("x in (,=)"),
            "unable to parse requirement: found '=', expected: ',', or identifier");
  // After ",," upstream has consumed both commas (verified with kubectl 1.27-1.33).
  EXPECT_EQ(ParseError("x in (,,)"),
            "unable to parse requirement: found ')', expected: ',', or identifier");
  EXPECT_EQ(ParseError("x in (a,,)"),
            "unable to parse requirement: found ')', expected: ',', or identifier");
  EXPECT_EQ(MustParse("x in (,,,)").String(), "x in ()");
  EXPECT_EQ(MustParse("x in (a,,,b)").String(), "x in (,a,b)");
  EXPECT_EQ(ParseError("x=("), "unable to parse requirement: found '(', expected: identifier");
  EXPECT_EQ(ParseError("x!=)"), "unable to parse requirement: found ')', expected: identifier");
}

TEST(LabelSelectorParse, KeyValidationErrors) {
  EXPECT_EQ(ParseError("-a"),
            "unable to parse requirement: <nil>: Invalid value: \"-a\": name part " +
                std::string(kNameRegexTail));
  EXPECT_EQ(ParseError("a/"),
            "unable to parse requirement: <nil>: Invalid value: \"a/\": name part "
            "must be non-empty; name part " +
                std::string(kNameRegexTail));
  EXPECT_EQ(ParseError("/a=b"),
            "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be "
            "non-empty");
  EXPECT_EQ(ParseError(std::string(64, 'k') + "=v"),
            "unable to parse requirement: <nil>: Invalid value: \"" + std::string(64, 'k') +
                "\": name part must be no more than 63 characters");
  EXPECT_EQ(ParseError("Foo.com/x"),
            "unable to parse requirement: <nil>: Invalid value: \"Foo.com/x\": prefix part a "
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(ParseError("a/b/c"),
            "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " +
                std::string(kNameRegexTail) +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(ParseError("x=a||y=b").substr(0, 27), "unable to parse requirement");
}

TEST(LabelSelectorParse, ValueValidationErrors) {
  EXPECT_EQ(ParseError("a=-b"),
            "unable to parse requirement: values[0][a]: Invalid value: "
            "\"-b\": " +
                std::string(kLabelValueMsg));
  EXPECT_EQ(ParseError("a in (ok,zz-)"),
            "unable to parse requirement: values[1][a]: Invalid value: \"zz-\": " +
                std::string(kLabelValueMsg));
  EXPECT_EQ(ParseError("a=" + std::string(64, 'v')),
            "unable to parse requirement: values[0][a]: Invalid value: \"" + std::string(64, 'v') +
                "\": must be no more than 63 characters");
  EXPECT_EQ(ParseError("x<a"),
            "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' "
            "operators, the value must be an integer");
  EXPECT_EQ(ParseError("x>-1"),
            "unable to parse requirement: values[0][x]: Invalid value: "
            "\"-1\": " +
                std::string(kLabelValueMsg));
  // Several errors aggregate as "[a, b]".
  EXPECT_EQ(ParseError("x>abc-"),
            "unable to parse requirement: [values[0]: Invalid value: \"abc-\": for 'Gt', 'Lt' "
            "operators, the value must be an integer, values[0][x]: Invalid value: \"abc-\": " +
                std::string(kLabelValueMsg) + "]");
}

TEST(LabelSelectorParse, NulByteEndsInputLikeGo) {
  // Go's lexer.read() returns 0 at the end and for a NUL byte alike.
  EXPECT_EQ(MustParse(std::string_view("a \0junk!!", 9)).String(), "a");
  EXPECT_EQ(MustParse(std::string_view("a=b\0", 4)).String(), "a=b");
}

TEST(LabelSelectorMatch, UpstreamCases) {
  struct Case {
    std::string_view selector;
    StringMap labels;
    bool match;
  };
  const Case cases[] = {
      {"", {{"x", "y"}}, true},
      {"x=y", {{"x", "y"}}, true},
      {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, true},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "a"}}, true},
      {"x", {{"x", "z"}}, true},
      {"!x", {{"y", "z"}}, true},
      {"x>1", {{"x", "2"}}, true},
      {"x<1", {{"x", "0"}}, true},
      {"x=z", {}, false},
      {"x=y", {{"x", "z"}}, false},
      {"x=y,z=w", {{"x", "w"}, {"z", "w"}}, false},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "w"}}, false},
      {"x", {{"y", "z"}}, false},
      {"!x", {{"x", "z"}}, false},
      {"x>1", {{"x", "0"}}, false},
      {"x<1", {{"x", "2"}}, false},
      {"foo=bar,foobar=bar,baz=blah", {{"foo", "bar"}, {"baz", "blah"}}, false},
      // != and notin match an absent key; in and = do not.
      {"x!=a", {}, true},
      {"x notin (a)", {}, true},
      {"x in (a)", {}, false},
      {"x in (a,b)", {{"x", "b"}}, true},
      {"x notin (a,b)", {{"x", "b"}}, false},
      {"x in ()", {{"x", ""}}, true},
      {"x in ()", {{"y", "baz"}}, false},
      {"x=", {{"x", ""}}, true},
      {"x=", {}, false},
      // gt/lt need an integer label value; Go's ParseInt accepts a sign.
      {"x>5", {{"x", "abc"}}, false},
      {"x>5", {}, false},
      {"x>5", {{"x", "+6"}}, true},
      {"x<5", {{"x", "-9223372036854775808"}}, true},
      {"x<5", {{"x", "9223372036854775808"}}, false},
      {"x>5", {{"x", " 6"}}, false},
      {"x>9", {{"x", "10"}}, true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MustParse(c.selector).Matches(c.labels), c.match) << c.selector;
  }
}

TEST(LabelSelectorMatch, Scenario21InAndNotEquals) {
  LabelSelector sel = MustParse("app in (a,b),tier!=db");
  EXPECT_TRUE(sel.Matches({{"app", "a"}}));
  EXPECT_TRUE(sel.Matches({{"app", "b"}, {"tier", "web"}}));
  EXPECT_FALSE(sel.Matches({{"app", "b"}, {"tier", "db"}}));
  EXPECT_FALSE(sel.Matches({{"app", "c"}}));
  EXPECT_FALSE(sel.Matches({{"tier", "web"}}));
}

TEST(LabelSelector, EverythingAndNothing) {
  EXPECT_TRUE(LabelSelector::Everything().Empty());
  EXPECT_TRUE(LabelSelector::Everything().Matches({{"x", "y"}}));
  EXPECT_TRUE(MustParse("").Empty());
  EXPECT_FALSE(LabelSelector::Nothing().Empty());
  EXPECT_TRUE(LabelSelector::Nothing().MatchesNothing());
  EXPECT_FALSE(LabelSelector::Nothing().Matches({}));
  EXPECT_EQ(LabelSelector::Nothing().String(), "");
  EXPECT_FALSE(MustParse("x").Empty());
}

TEST(LabelSelector, RequiresExactMatch) {
  EXPECT_EQ(MustParse("a=b,c=d").RequiresExactMatch("c"), "d");
  EXPECT_EQ(MustParse("a==b").RequiresExactMatch("a"), "b");
  EXPECT_EQ(MustParse("a in (b)").RequiresExactMatch("a"), "b");
  EXPECT_EQ(MustParse("a in (b,c)").RequiresExactMatch("a"), std::nullopt);
  EXPECT_EQ(MustParse("a!=b").RequiresExactMatch("a"), std::nullopt);
  EXPECT_EQ(MustParse("a").RequiresExactMatch("a"), std::nullopt);
  EXPECT_EQ(MustParse("a=b").RequiresExactMatch("x"), std::nullopt);
  // Only the first requirement on the key counts.
  EXPECT_EQ(MustParse("a,a=b").RequiresExactMatch("a"), std::nullopt);
}

TEST(Requirement, ConstructorRules) {
  struct Case {
    std::string key;
    Operator op;
    std::vector<std::string> values;
    bool ok;
  };
  const Case cases[] = {
      {"x", Operator::kIn, {}, false},
      {"x", Operator::kNotIn, {}, false},
      {"x", Operator::kIn, {"foo"}, true},
      {"x", Operator::kNotIn, {"foo"}, true},
      {"x", Operator::kExists, {}, true},
      {"x", Operator::kDoesNotExist, {}, true},
      {"x", Operator::kExists, {"a"}, false},
      {"x", Operator::kEquals, {"a", "b"}, false},
      {"x", Operator::kEquals, {}, false},
      {"1foo", Operator::kIn, {"bar"}, true},
      {"1234", Operator::kIn, {"bar"}, true},
      {"y", Operator::kGreaterThan, {"1"}, true},
      {"z", Operator::kLessThan, {"6"}, true},
      {"foo", Operator::kGreaterThan, {"bar"}, false},
      {"barz", Operator::kLessThan, {"blah"}, false},
      {"y", Operator::kGreaterThan, {"1", "2"}, false},
      {std::string(254, 'a'), Operator::kExists, {}, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Requirement::Create(c.key, c.op, c.values).ok(), c.ok) << c.key;
  }
}

TEST(Requirement, ConstructorMessages) {
  auto msg = [](std::string key, Operator op, std::vector<std::string> values,
                bool values_nil = false) {
    auto r = Requirement::Create(std::move(key), op, std::move(values), {}, values_nil);
    return r.ok() ? std::string("<ok>") : r.status().message();
  };
  EXPECT_EQ(msg("x", Operator::kIn, {}),
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be "
            "empty");
  EXPECT_EQ(msg("x", Operator::kIn, {}, true),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't "
            "be empty");
  EXPECT_EQ(msg("x", Operator::kEquals, {"a", "b"}),
            "values: Invalid value: []string{\"a\", \"b\"}: exact-match compatibility requires "
            "one single value");
  EXPECT_EQ(msg("x", Operator::kExists, {"a"}),
            "values: Invalid value: []string{\"a\"}: values set must be empty for exists and does "
            "not exist");
  EXPECT_EQ(msg("x", Operator::kGreaterThan, {"1", "2"}),
            "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one "
            "value is required");
  EXPECT_EQ(msg("-x", Operator::kExists, {}),
            "key: Invalid value: \"-x\": name part " + std::string(kNameRegexTail));
  auto path = validation::Path("spec").Child("selector");
  auto r = Requirement::Create("x", Operator::kEquals, {"-"}, path);
  EXPECT_EQ(r.status().message(),
            "spec.selector.values[0][x]: Invalid value: \"-\": " + std::string(kLabelValueMsg));
}

TEST(Requirement, StringForms) {
  auto str = [](Operator op, std::vector<std::string> values) {
    return Requirement::Create("x", op, std::move(values))->String();
  };
  EXPECT_EQ(str(Operator::kIn, {"def", "abc"}), "x in (abc,def)");
  EXPECT_EQ(str(Operator::kNotIn, {"jkl"}), "x notin (jkl)");
  EXPECT_EQ(str(Operator::kNotIn, {""}), "x notin ()");
  EXPECT_EQ(str(Operator::kExists, {}), "x");
  EXPECT_EQ(str(Operator::kDoesNotExist, {}), "!x");
  EXPECT_EQ(str(Operator::kEquals, {"abc"}), "x=abc");
  EXPECT_EQ(str(Operator::kDoubleEquals, {"jkl"}), "x==jkl");
  EXPECT_EQ(str(Operator::kNotEquals, {"a"}), "x!=a");
  EXPECT_EQ(str(Operator::kGreaterThan, {"2"}), "x>2");
  EXPECT_EQ(str(Operator::kLessThan, {"8"}), "x<8");
  // Values keep the caller's order in memory but print sorted.
  auto r = Requirement::Create("x", Operator::kIn, {"b", "a"});
  EXPECT_EQ(r->values(), (std::vector<std::string>{"b", "a"}));
}

TEST(SelectorFromSpec, NilEmptyAndFull) {
  EXPECT_TRUE(SelectorFromSpec(nullptr)->MatchesNothing());
  LabelSelectorSpec empty;
  EXPECT_TRUE(SelectorFromSpec(&empty)->Empty());

  LabelSelectorSpec spec;
  spec.match_labels = {{"app", "web"}};
  spec.match_expressions = {{"tier", "In", {"fe", "be"}},
                            {"canary", "DoesNotExist", {}},
                            {"env", "NotIn", {"prod"}},
                            {"zone", "Exists", {}}};
  auto sel = SelectorFromSpec(&spec);
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  EXPECT_EQ(sel->String(), "app=web,!canary,env notin (prod),tier in (be,fe),zone");
  EXPECT_TRUE(sel->Matches({{"app", "web"}, {"tier", "fe"}, {"zone", "a"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "fe"}, {"zone", "a"}, {"canary", "1"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "fe"}, {"zone", "a"}, {"env", "prod"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "x"}, {"zone", "a"}}));
}

TEST(SelectorFromSpec, Errors) {
  LabelSelectorSpec bad_op;
  bad_op.match_expressions = {{"a", "Gt", {"1"}}};
  EXPECT_EQ(SelectorFromSpec(&bad_op).status().message(),
            "\"Gt\" is not a valid label selector operator");
  LabelSelectorSpec no_values;
  no_values.match_expressions = {{"a", "In", {}}};
  EXPECT_EQ(SelectorFromSpec(&no_values).status().message(),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't "
            "be empty");
  LabelSelectorSpec exists_values;
  exists_values.match_expressions = {{"a", "Exists", {"x"}}};
  EXPECT_EQ(SelectorFromSpec(&exists_values).status().message(),
            "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does "
            "not exist");
  LabelSelectorSpec bad_label;
  bad_label.match_labels = {{"a", "-b"}};
  EXPECT_EQ(SelectorFromSpec(&bad_label).status().code(), Code::kBadRequest);
}

TEST(ValidateLabelSelectorSpec, UpstreamMessages) {
  LabelSelectorSpec spec;
  spec.match_labels = {{"ok", "-bad"}};
  spec.match_expressions = {{"a", "In", {}},
                            {"b", "Exists", {"x"}},
                            {"c", "Foo", {}},
                            {"-d", "DoesNotExist", {}},
                            {"e", "NotIn", {"ok", "bad-"}}};
  auto errs = ValidateLabelSelectorSpec(spec, validation::Path("spec").Child("selector"));
  std::vector<std::string> got;
  for (const auto& e : errs) got.push_back(e.Error());
  EXPECT_THAT(
      got, testing::ElementsAre(
               "spec.selector.matchLabels: Invalid value: \"-bad\": " + std::string(kLabelValueMsg),
               "spec.selector.matchExpressions[0].values: Required value: must be specified when "
               "`operator` is 'In' or 'NotIn'",
               "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when "
               "`operator` is 'Exists' or 'DoesNotExist'",
               "spec.selector.matchExpressions[2].operator: Invalid value: \"Foo\": not a valid "
               "selector operator",
               "spec.selector.matchExpressions[3].key: Invalid value: \"-d\": name part " +
                   std::string(kNameRegexTail),
               "spec.selector.matchExpressions[4].values[1]: Invalid value: \"bad-\": " +
                   std::string(kLabelValueMsg)));
  EXPECT_EQ(errs[1].type, validation::FieldErrorType::kRequired);
  EXPECT_EQ(errs[2].type, validation::FieldErrorType::kForbidden);
}

TEST(SetSelectors, EmptySetSemantics) {
  StringMap pod = {{"foo", "bar"}, {"baz", "blah"}};
  EXPECT_TRUE(SelectorFromSet({}).Empty());
  EXPECT_TRUE(SelectorFromSet({}).Matches(pod));
  EXPECT_TRUE(SelectorFromSet({{"foo", "bar"}}).Matches(pod));
  EXPECT_TRUE(SelectorFromSet({{"foo", "bar"}, {"baz", "blah"}}).Matches(pod));
  EXPECT_FALSE(SelectorFromSet({{"foo", "bar"}, {"x", "y"}}).Matches(pod));
  EXPECT_EQ(SelectorFromSet({{"b", "2"}, {"a", "1"}}).String(), "a=1,b=2");
  // Pre-validated: no validation even of nonsense.
  EXPECT_FALSE(SelectorFromSet({{"foo", "=bar"}}).Matches(pod));

  // A Service without a selector selects no pods for the endpoints controllers.
  EXPECT_TRUE(ServiceEndpointsSelector({}).MatchesNothing());
  EXPECT_FALSE(ServiceEndpointsSelector({}).Matches(pod));
  EXPECT_TRUE(ServiceEndpointsSelector({{"foo", "bar"}}).Matches(pod));
}

TEST(SetSelectors, Validated) {
  EXPECT_TRUE(ValidatedSelectorFromSet({})->Empty());
  EXPECT_EQ(ValidatedSelectorFromSet({{"a", "b"}})->String(), "a=b");
  auto bad = ValidatedSelectorFromSet({{"a", "-b"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "values[0][a]: Invalid value: \"-b\": " + std::string(kLabelValueMsg));
}

TEST(LabelSelector, AddKeepsSortedAndNothingAbsorbs) {
  LabelSelector sel = MustParse("b=1");
  sel = sel.Add({*Requirement::Create("a", Operator::kExists, {})});
  EXPECT_EQ(sel.String(), "a,b=1");
  EXPECT_TRUE(LabelSelector::Nothing()
                  .Add({*Requirement::Create("a", Operator::kExists, {})})
                  .MatchesNothing());
}

}  // namespace
}  // namespace svcplane::api::selectors
