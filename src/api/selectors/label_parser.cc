// labels.Parse, ported token for token from apimachinery's lexer and recursive-descent parser so
// that the accepted language and every error text match upstream, quirks included (a NUL byte
// reads as end of input, as Go's lexer.read() returns 0 for both).

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/selectors/internal/label_lexer.h"
#include "api/selectors/label_selector.h"
#include "api/validation/names.h"

namespace svcplane::api::selectors {
namespace {

using internal::ScannedItem;
using internal::Token;

// In the Values context the keywords "in"/"notin" are plain identifiers ("x in (in)").
enum class Context { kKeyAndOperator, kValues };

std::string Found(std::string_view lit, std::string_view expected) {
  std::string out = "found '";
  out += lit;
  out += "', expected: ";
  out += expected;
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view s) : items_(internal::ScanAll(s)) {}

  Result<std::vector<Requirement>> Parse() {
    std::vector<Requirement> reqs;
    while (true) {
      ScannedItem next = Lookahead(Context::kValues);
      switch (next.tok) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          auto r = ParseRequirement();
          if (!r.ok()) {
            return BadRequestError("unable to parse requirement: " + r.status().message());
          }
          reqs.push_back(std::move(r).value());
          ScannedItem t = Consume(Context::kValues);
          if (t.tok == Token::kEndOfString) return reqs;
          if (t.tok == Token::kComma) {
            ScannedItem t2 = Lookahead(Context::kValues);
            if (t2.tok != Token::kIdentifier && t2.tok != Token::kDoesNotExist) {
              return BadRequestError(Found(t2.literal, "identifier after ','"));
            }
            break;
          }
          return BadRequestError(Found(t.literal, "',' or 'end of string'"));
        }
        case Token::kEndOfString:
          return reqs;
        default:
          return BadRequestError(Found(next.literal, "!, identifier, or 'end of string'"));
      }
    }
  }

 private:
  ScannedItem At(size_t i, Context ctx) const {
    ScannedItem item = items_[i < items_.size() ? i : items_.size() - 1];
    if (ctx == Context::kValues && (item.tok == Token::kIn || item.tok == Token::kNotIn)) {
      item.tok = Token::kIdentifier;
    }
    return item;
  }
  ScannedItem Lookahead(Context ctx) const { return At(position_, ctx); }
  ScannedItem Consume(Context ctx) { return At(position_++, ctx); }

  static Status Error(std::string msg) { return BadRequestError(std::move(msg)); }

  Result<Requirement> ParseRequirement() {
    std::optional<Operator> op;
    ScannedItem t = Consume(Context::kValues);
    if (t.tok == Token::kDoesNotExist) {
      op = Operator::kDoesNotExist;
      t = Consume(Context::kValues);
    }
    if (t.tok != Token::kIdentifier) return Error(Found(t.literal, "identifier"));
    std::string_view key = t.literal;
    if (auto msgs = validation::IsQualifiedName(key); !msgs.empty()) {
      std::string joined;
      for (size_t i = 0; i < msgs.size(); ++i) joined += (i > 0 ? "; " : "") + msgs[i];
      // Upstream validates with the parser's (nil) path, hence "<nil>: Invalid value: ...".
      return Error(validation::Invalid(path_, key, std::move(joined)).Error());
    }
    Token after = Lookahead(Context::kValues).tok;
    if ((after == Token::kEndOfString || after == Token::kComma) && !op) op = Operator::kExists;
    if (op) return Requirement::Create(std::string(key), *op, {}, path_);

    ScannedItem op_tok = Consume(Context::kKeyAndOperator);
    Operator binary;
    switch (op_tok.tok) {
      case Token::kIn:
        binary = Operator::kIn;
        break;
      case Token::kEquals:
        binary = Operator::kEquals;
        break;
      case Token::kDoubleEquals:
        binary = Operator::kDoubleEquals;
        break;
      case Token::kGreaterThan:
        binary = Operator::kGreaterThan;
        break;
      case Token::kLessThan:
        binary = Operator::kLessThan;
        break;
      case Token::kNotIn:
        binary = Operator::kNotIn;
        break;
      case Token::kNotEquals:
        binary = Operator::kNotEquals;
        break;
      default:
        return Error(Found(op_tok.literal, "in, notin, =, ==, !=, gt, lt"));
    }
    std::set<std::string_view> values;
    Status st = (binary == Operator::kIn || binary == Operator::kNotIn) ? ParseValues(&values)
                                                                        : ParseExactValue(&values);
    if (!st.ok()) return st;
    return Requirement::Create(std::string(key), binary,
                               std::vector<std::string>(values.begin(), values.end()), path_);
  }

  // "(" values ")"
  Status ParseValues(std::set<std::string_view>* out) {
    ScannedItem t = Consume(Context::kValues);
    if (t.tok != Token::kOpenPar) {
      return Error("found '" + std::string(t.literal) + "' expected: '('");
    }
    ScannedItem next = Lookahead(Context::kValues);
    switch (next.tok) {
      case Token::kIdentifier:
      case Token::kComma: {
        Status st = ParseIdentifiersList(out);
        if (!st.ok()) return st;
        if (Consume(Context::kValues).tok != Token::kClosedPar) {
          return Error(Found(next.literal, "')'"));
        }
        return Status::Ok();
      }
      case Token::kClosedPar:
        Consume(Context::kValues);
        out->insert("");
        return Status::Ok();
      default:
        return Error(Found(next.literal, "',', ')' or identifier"));
    }
  }

  // Comma-separated, possibly empty identifiers: "(a,,b)" is {a, "", b}.
  Status ParseIdentifiersList(std::set<std::string_view>* out) {
    while (true) {
      ScannedItem t = Consume(Context::kValues);
      switch (t.tok) {
        case Token::kIdentifier: {
          out->insert(t.literal);
          ScannedItem t2 = Lookahead(Context::kValues);
          if (t2.tok == Token::kComma) continue;
          if (t2.tok == Token::kClosedPar) return Status::Ok();
          return Error(Found(t2.literal, "',' or ')'"));
        }
        case Token::kComma: {
          if (out->empty()) out->insert("");
          Token t2 = Lookahead(Context::kValues).tok;
          if (t2 == Token::kClosedPar) {
            out->insert("");
            return Status::Ok();
          }
          if (t2 == Token::kComma) {
            // Upstream consumes the second comma here, so "(,,)" fails on ')' while "(,,,)"
            // parses (checked against kubectl 1.27-1.33).
            Consume(Context::kValues);
            out->insert("");
          }
          continue;
        }
        default:
          return Error(Found(t.literal, "',', or identifier"));
      }
    }
  }

  Status ParseExactValue(std::set<std::string_view>* out) {
    Token next = Lookahead(Context::kValues).tok;
    if (next == Token::kEndOfString || next == Token::kComma) {
      out->insert("");
      return Status::Ok();
    }
    ScannedItem t = Consume(Context::kValues);
    if (t.tok == Token::kIdentifier) {
      out->insert(t.literal);
      return Status::Ok();
    }
    return Error(Found(t.literal, "identifier"));
  }

  std::vector<ScannedItem> items_;
  size_t position_ = 0;
  validation::FieldPath path_;  // nil, as labels.Parse without options
};

}  // namespace

Result<LabelSelector> ParseLabelSelector(std::string_view selector) {
  Parser parser(selector);
  auto reqs = parser.Parse();
  if (!reqs.ok()) return reqs.status();
  return LabelSelector().Add(std::move(reqs).value());
}

}  // namespace svcplane::api::selectors
