// The muParser wrapper behind dg::expr::Expression: variables x, y, z, t, the constant pi, the
// user parameters, muParser's functions plus pow, atan2, floor, ceil, mod and if(c, a, b), and
// muParser's errors turned into one-line input errors with the key and the column.
#include "dg/physics/expression.hpp"

#include "dg/core/error.hpp"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace dg::expr {

namespace {

double fn_pow(double a, double b) {
  return std::pow(a, b);
}
double fn_atan2(double a, double b) {
  return std::atan2(a, b);
}
double fn_floor(double a) {
  return std::floor(a);
}
double fn_ceil(double a) {
  return std::ceil(a);
}
double fn_mod(double a, double b) {
  return std::fmod(a, b);
}
double fn_if(double c, double a, double b) {
  return c != 0.0 ? a : b;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + v[i];
  return s;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

[[noreturn]] void expression_error(const std::string& where, const std::string& key,
                                   const std::string& text, const std::string& what) {
  DG_INPUT_ERROR(where << ": " << key << " = \"" << text << "\": " << what);
}

} // namespace

const std::vector<std::string>& variable_names() {
  static const std::vector<std::string> v{"x", "y", "z", "t"};
  return v;
}
const std::vector<std::string>& constant_names() {
  static const std::vector<std::string> v{"pi"};
  return v;
}
const std::vector<std::string>& function_names() {
  static const std::vector<std::string> v{
      "sin",   "cos",   "tan",  "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
      "acosh", "atanh", "exp",  "log",  "ln",   "log2", "log10", "sqrt", "pow",  "abs",  "sign",
      "rint",  "floor", "ceil", "mod",  "min",  "max",  "sum",   "avg",  "if"};
  return v;
}

struct Expression::Impl {
  mu::Parser parser;
  double x = 0.0, y = 0.0, z = 0.0, t = 0.0;
};

Expression::Expression() = default;

Expression::Expression(const std::string& text, const Parameters& params, bool allow_t,
                       const std::string& where, const std::string& key)
    : impl_(std::make_shared<Impl>()), text_(text), key_(key), where_(where) {
  Impl& m = *impl_;
  mu::Parser& p = m.parser;
  auto fail = [&](const std::string& what) { expression_error(where, key, text, what); };
  std::vector<std::string> names = variable_names();
  if (!allow_t) names.pop_back();
  try {
    p.DefineVar("x", &m.x);
    p.DefineVar("y", &m.y);
    p.DefineVar("z", &m.z);
    if (allow_t) p.DefineVar("t", &m.t);
    p.DefineConst("pi", M_PI);
    for (const auto& kv : params)
      p.DefineConst(kv.first, kv.second);
    p.DefineFun("pow", fn_pow);
    p.DefineFun("atan2", fn_atan2);
    p.DefineFun("floor", fn_floor);
    p.DefineFun("ceil", fn_ceil);
    p.DefineFun("mod", fn_mod);
    p.DefineFun("if", fn_if, false);
    p.SetExpr(text);
    p.Eval(); // parses; syntax errors surface here
  } catch (const mu::ParserError& e) {
    const int len = static_cast<int>(text.size());
    const std::string tok = e.GetToken();
    switch (e.GetCode()) {
    case mu::ecEMPTY_EXPRESSION:
      fail("empty expression (write 0 for zero)");
      break;
    case mu::ecMISSING_PARENS:
      fail("missing ')' at column " + std::to_string(len + 1));
      break;
    case mu::ecUNEXPECTED_EOF:
      fail("unexpected end of expression at column " + std::to_string(len + 1));
      break;
    case mu::ecUNASSIGNABLE_TOKEN:
    case mu::ecUNEXPECTED_VAR:
      if (is_identifier(tok)) {
        std::vector<std::string> consts = constant_names();
        for (const auto& kv : params)
          consts.push_back(kv.first);
        if (!allow_t && tok == "t")
          fail("t at column " + std::to_string(e.GetPos() + 1) +
               ": this field must not depend on time (variables: x, y, z)");
        fail("unknown name '" + tok + "' at column " + std::to_string(e.GetPos() + 1) +
             "; valid: variables " + join(names) + "; constants and parameters " + join(consts) +
             "; functions " + join(function_names()));
      }
      break;
    default:
      break;
    }
    std::string msg = e.GetMsg();
    // muParser's messages end in "at position N." (0-based) or a full stop: use columns.
    const auto at = msg.find(" at position");
    const auto at2 = msg.find(" at expression position");
    msg = msg.substr(0, std::min(at, at2));
    while (!msg.empty() && msg.back() == '.')
      msg.pop_back();
    if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
    if (e.GetPos() >= 0) msg += " at column " + std::to_string(std::min(e.GetPos(), len) + 1);
    fail(msg);
  }
  const auto& used = p.GetUsedVar();
  uses_t_ = used.count("t") > 0;
  constant_ = used.empty();
}

double Expression::operator()(double x, double y, double z, double t) const {
  if (!impl_) return 0.0;
  Impl& m = *impl_;
  m.x = x;
  m.y = y;
  m.z = z;
  m.t = t;
  return m.parser.Eval();
}

void check_parameter_name(const std::string& name, const std::string& where) {
  if (!is_identifier(name))
    DG_INPUT_ERROR(where << ": parameters." << name
                         << ": a parameter name must be a letter or _ followed by letters, "
                            "digits or _");
  auto in = [&](const std::vector<std::string>& v) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  if (in(variable_names()) || in(constant_names()))
    DG_INPUT_ERROR(where << ": parameters." << name << ": shadows the "
                         << (in(variable_names()) ? "variable " : "constant ") << name
                         << "; the names x, y, z, t and pi are taken");
  if (in(function_names()))
    DG_INPUT_ERROR(where << ": parameters." << name << ": shadows the function " << name
                         << "; choose another name");
}

double parameter_value(const std::string& text, const Parameters& before, const std::string& where,
                       const std::string& key) {
  const Expression e(text, before, false, where, key);
  if (!e.is_constant())
    DG_INPUT_ERROR(where << ": " << key << " = \"" << text
                         << "\": a parameter is a number or an expression of pi and the "
                            "parameters before it, not of x, y, z");
  const double v = e.value();
  if (!std::isfinite(v))
    DG_INPUT_ERROR(where << ": " << key << " = \"" << text << "\": evaluates to " << v
                         << "; must be finite");
  return v;
}

} // namespace dg::expr
