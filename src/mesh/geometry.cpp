// Trilinear geometry of a hex: the reference-to-physical map, its Jacobian and the inversion test.
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"

namespace dg::mesh {

std::array<double, 3> map_point(const HexMesh& mesh, std::int64_t e, double r, double s, double t) {
  const double xi[3] = {r, s, t};
  std::array<double, 3> x{0.0, 0.0, 0.0};
  for (int v = 0; v < 8; ++v) {
    double n = 0.125;
    for (int d = 0; d < 3; ++d)
      n *= 1.0 + hex::vertex_sign(v, d) * xi[d];
    const double* X = &mesh.coords[3 * mesh.hex[8 * e + v]];
    for (int i = 0; i < 3; ++i)
      x[i] += n * X[i];
  }
  return x;
}

std::array<std::array<double, 3>, 3> jacobian(const HexMesh& mesh, std::int64_t e, double r,
                                              double s, double t) {
  const double xi[3] = {r, s, t};
  std::array<std::array<double, 3>, 3> J{};
  for (int v = 0; v < 8; ++v) {
    double f[3], dn[3];
    for (int d = 0; d < 3; ++d)
      f[d] = 1.0 + hex::vertex_sign(v, d) * xi[d];
    dn[0] = 0.125 * hex::vertex_sign(v, 0) * f[1] * f[2];
    dn[1] = 0.125 * hex::vertex_sign(v, 1) * f[0] * f[2];
    dn[2] = 0.125 * hex::vertex_sign(v, 2) * f[0] * f[1];
    const double* X = &mesh.coords[3 * mesh.hex[8 * e + v]];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        J[i][j] += X[i] * dn[j];
  }
  return J;
}

double jacobian_determinant(const HexMesh& mesh, std::int64_t e, double r, double s, double t) {
  const auto J = jacobian(mesh, e, r, s, t);
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

double min_corner_jacobian(const HexMesh& mesh, std::int64_t e) {
  double m = jacobian_determinant(mesh, e, 0.0, 0.0, 0.0);
  for (int v = 0; v < 8; ++v) {
    const double d = jacobian_determinant(mesh, e, hex::vertex_sign(v, 0), hex::vertex_sign(v, 1),
                                          hex::vertex_sign(v, 2));
    if (d < m) m = d;
  }
  return m;
}

std::int64_t first_inverted_element(const HexMesh& mesh) {
  const std::int64_t ne = mesh.num_elements();
  for (std::int64_t e = 0; e < ne; ++e)
    if (!(min_corner_jacobian(mesh, e) > 0.0)) return e;
  return -1;
}

} // namespace dg::mesh
