// User expressions of x, y, z and t (initial state, velocity, diffusivity, source, boundary data,
// exact solution): compiled once by muParser on the host, evaluated on the host at set-up (and,
// for time-dependent boundary data and sources, at each stage time) at the points the kernels
// read. Never called inside a kernel.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dg::expr {

/// User parameters (the YAML `parameters:` map), in the order given: constants in every
/// expression.
using Parameters = std::vector<std::pair<std::string, double>>;

/// Names an expression may use besides the parameters.
const std::vector<std::string>& variable_names(); // x, y, z, t
const std::vector<std::string>& constant_names(); // pi
const std::vector<std::string>& function_names(); // sin, cos, ..., pow, if, min, max

/// A compiled expression. Copies share the compiled form; evaluation is not thread-safe (set-up
/// and per-stage host work are serial per rank).
class Expression {
public:
  /// The constant 0.
  Expression();
  /// Compiles `text`. Errors throw InputError with one line
  /// `where: key = "text": what (at column N)`, e.g. a syntax error, an unknown name (listing
  /// the valid ones) or a t where `allow_t` is false.
  Expression(const std::string& text, const Parameters& params, bool allow_t,
             const std::string& where, const std::string& key);

  double operator()(double x, double y, double z, double t = 0.0) const;
  bool depends_on_t() const { return uses_t_; }
  /// True when the expression reads none of x, y, z, t (its value is then value()).
  bool is_constant() const { return constant_; }
  double value() const { return (*this)(0.0, 0.0, 0.0, 0.0); }
  const std::string& text() const { return text_; }
  const std::string& key() const { return key_; }
  const std::string& where() const { return where_; }

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  std::string text_ = "0", key_, where_;
  bool uses_t_ = false, constant_ = true;
};

/// Checks a parameter name (an identifier that shadows no variable, constant or function) and
/// throws InputError `where: parameters.NAME: ...` otherwise.
void check_parameter_name(const std::string& name, const std::string& where);

/// Evaluates a parameter's value: a number, or an expression of pi and the parameters before it.
double parameter_value(const std::string& text, const Parameters& before, const std::string& where,
                       const std::string& key);

} // namespace dg::expr
