// dgm_mesh-style structured box generator: flag parsing, vertex placement (uniform, warped,
// perturbed), boundary tags, periodic pairs and the random vertex-order shuffle.
#include "dg/mesh/generate.hpp"

#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/qk_map.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace dg::mesh {

namespace {

constexpr double pi = 3.14159265358979323846;

std::int64_t parse_int(const std::string& flag, const std::string& value, std::int64_t min,
                       const char* valid) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v < min)
    DG_INPUT_ERROR(flag << " " << value << ": expected " << valid);
  return v;
}

double parse_real(const std::string& flag, const std::string& value, const char* valid) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    DG_INPUT_ERROR(flag << " " << value << ": expected " << valid);
  return v;
}

// splitmix64: a stateless hash, so that every vertex / element draws its own random numbers
// independently of loop order.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
std::uint64_t draw(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return mix(mix(mix(seed) ^ a) ^ b);
}
double uniform_pm1(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return 2.0 * (static_cast<double>(draw(seed, a, b) >> 11) * 0x1.0p-53) - 1.0;
}

// The 24 proper rotations of the reference cube as vertex permutations and face maps.
struct Rotation {
  int vertex[8];   // new local vertex v is old local vertex vertex[v]
  int new_face[6]; // old local face f becomes new local face new_face[f]
};

int vertex_of_signs(int sx, int sy, int sz) {
  for (int v = 0; v < 8; ++v)
    if (hex::vertex_sign(v, 0) == sx && hex::vertex_sign(v, 1) == sy &&
        hex::vertex_sign(v, 2) == sz)
      return v;
  return -1;
}

std::vector<Rotation> cube_rotations() {
  // R x: (R x)_i = sg[i] * x[p[i]], kept when det R = +1. New vertex v sits at s_v in the new
  // numbering and at R s_v in the old one, so x_new(xi) = x_old(R xi) and det J keeps its sign.
  std::vector<Rotation> rots;
  const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  const int parity[6] = {1, 1, 1, -1, -1, -1};
  for (int pi_ = 0; pi_ < 6; ++pi_)
    for (int sgn = 0; sgn < 8; ++sgn) {
      const int* p = perms[pi_];
      const int sg[3] = {(sgn & 1) ? -1 : 1, (sgn & 2) ? -1 : 1, (sgn & 4) ? -1 : 1};
      if (parity[pi_] * sg[0] * sg[1] * sg[2] != 1) continue;
      Rotation r{};
      for (int v = 0; v < 8; ++v) {
        int rs[3];
        for (int i = 0; i < 3; ++i)
          rs[i] = sg[i] * hex::vertex_sign(v, p[i]);
        r.vertex[v] = vertex_of_signs(rs[0], rs[1], rs[2]);
      }
      // New face (dir d', sign s') has normal n_new; the old face has normal R n_new, which is
      // along the old direction i with p[i] = d' and sign sg[i] * s'.
      for (int fn = 0; fn < 6; ++fn) {
        const int dn = fn / 2, sn = (fn % 2) ? 1 : -1;
        int i = 0;
        while (p[i] != dn)
          ++i;
        const int so = sg[i] * sn;
        r.new_face[2 * i + (so > 0 ? 1 : 0)] = fn;
      }
      rots.push_back(r);
    }
  DG_VERIFY(rots.size() == 24, "cube has " << rots.size() << " rotations");
  return rots;
}

/// -curve K: replaces the box's vertices by the nodes of order-K elements on the cylindrical
/// shell. Nodes are points of the box's K-times finer lattice (shared by neighbours, so faces
/// coincide node for node); with -periodic x the lattice closes in x and the periodic pairs in x
/// become interior faces.
void curve_mesh(const BoxOptions& opt, const std::int64_t n[3], HexMesh& m) {
  const int K = opt.curve, n1 = K + 1, nn = n1 * n1 * n1;
  const bool ring = opt.periodic[0];
  const std::int64_t fx = n[0] * K + 1, fy = n[1] * K + 1, fz = n[2] * K + 1;
  const std::int64_t ne = m.num_elements();
  // Integer lattice index of each box vertex (vertex ids are i + (nx+1) (j + (ny+1) k)).
  auto index = [&](std::int64_t v, int d) {
    const std::int64_t nvx = n[0] + 1, nvy = n[1] + 1;
    return d == 0 ? v % nvx : (d == 1 ? (v / nvx) % nvy : v / (nvx * nvy));
  };
  std::vector<std::int64_t> fine_id(std::size_t(fx * fy * fz), -1);
  std::vector<double> coords;
  std::vector<std::int64_t> nodes(std::size_t(ne) * nn);
  for (std::int64_t e = 0; e < ne; ++e)
    for (int c = 0; c < n1; ++c)
      for (int b = 0; b < n1; ++b)
        for (int a = 0; a < n1; ++a) {
          const double r[3] = {-1.0 + 2.0 * a / K, -1.0 + 2.0 * b / K, -1.0 + 2.0 * c / K};
          double fi[3] = {0, 0, 0}, x[3] = {0, 0, 0};
          for (int v = 0; v < 8; ++v) {
            double N = 0.125;
            for (int d = 0; d < 3; ++d)
              N *= 1.0 + hex::vertex_sign(v, d) * r[d];
            const std::int64_t vid = m.hex[8 * e + v];
            for (int d = 0; d < 3; ++d) {
              fi[d] += N * double(K * index(vid, d));
              x[d] += N * m.coords[3 * vid + d];
            }
          }
          std::int64_t f[3];
          for (int d = 0; d < 3; ++d)
            f[d] = std::llround(fi[d]);
          if (ring && f[0] == fx - 1) f[0] = 0; // the seam closes the ring
          const std::int64_t g = f[0] + fx * (f[1] + fy * f[2]);
          if (fine_id[g] < 0) {
            fine_id[g] = std::int64_t(coords.size() / 3);
            const double th =
                ring ? 2.0 * pi * (x[0] - opt.origin[0]) / opt.length[0] : x[0] - opt.origin[0];
            const double rad = 1.0 + (x[1] - opt.origin[1]);
            coords.insert(coords.end(), {rad * std::sin(th), rad * std::cos(th), x[2]});
          }
          nodes[std::size_t(e) * nn + a + n1 * (b + n1 * c)] = fine_id[g];
        }
  m.coords = std::move(coords);
  m.order = K;
  for (std::int64_t e = 0; e < ne; ++e)
    for (int v = 0; v < 8; ++v)
      m.hex[8 * e + v] = nodes[std::size_t(e) * nn + qk::corner_node(K, v)];
  m.nodes = K > 1 ? std::move(nodes) : std::vector<std::int64_t>();
  if (ring) // the x pairs (listed first by generate_box) are interior faces now
    m.periodic.erase(m.periodic.begin(), m.periodic.begin() + std::ptrdiff_t(4 * n[1] * n[2]));
}

} // namespace

BoxOptions parse_box_flags(const std::vector<std::string>& args) {
  BoxOptions o;
  for (const auto& a : args)
    if (a == "--help" || a == "-help" || a == "-h") {
      o.help = true;
      return o;
    }
  bool have_o = false, have_r = false;
  std::ostringstream cmd;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    cmd << (i ? " " : "") << flag;
    if (flag.empty() || flag[0] != '-')
      DG_INPUT_ERROR("unexpected argument '" << flag << "': flags start with '-' (see --help)");
    auto value = [&](const char* valid) -> std::string {
      if (i + 1 >= args.size()) DG_INPUT_ERROR(flag << ": missing value (" << valid << ")");
      cmd << " " << args[i + 1];
      return args[++i];
    };
    constexpr const char* posint = "a positive integer";
    constexpr const char* real = "a finite real number";
    constexpr const char* posreal = "a real number > 0";
    if (flag == "-nsd") {
      const std::string v = value("3");
      const auto n = parse_int(flag, v, INT_MIN, "3 (only 3-D meshes are supported)");
      if (n != 3) DG_INPUT_ERROR(flag << " " << v << ": only 3 space dimensions are supported");
      o.nsd = 3;
    } else if (flag == "-nx") {
      o.nx = parse_int(flag, value(posint), 1, posint);
    } else if (flag == "-ny") {
      o.ny = parse_int(flag, value(posint), 1, posint);
    } else if (flag == "-nz") {
      o.nz = parse_int(flag, value(posint), 1, posint);
    } else if (flag == "-x0" || flag == "-y0" || flag == "-z0") {
      o.origin[flag[1] - 'x'] = parse_real(flag, value(real), real);
    } else if (flag == "-Lx" || flag == "-Ly" || flag == "-Lz") {
      const std::string v = value(posreal);
      const double L = parse_real(flag, v, posreal);
      if (!(L > 0.0)) DG_INPUT_ERROR(flag << " " << v << ": expected " << posreal);
      o.length[flag[2] - 'x'] = L;
    } else if (flag == "-periodic") {
      const char* valid = "a non-empty subset of the letters x, y, z (e.g. xyz, xz)";
      const std::string v = value(valid);
      if (v.empty()) DG_INPUT_ERROR(flag << " '': expected " << valid);
      for (char c : v) {
        if (c < 'x' || c > 'z') DG_INPUT_ERROR(flag << " " << v << ": expected " << valid);
        o.periodic[c - 'x'] = true;
      }
    } else if (flag == "-warp") {
      o.warp = parse_real(flag, value(real), real);
    } else if (flag == "-curve") {
      o.curve = int(parse_int(flag, value("1, 2 or 3"), 1, "1, 2 or 3"));
      if (o.curve > 3) DG_INPUT_ERROR(flag << " " << o.curve << ": expected 1, 2 or 3");
    } else if (flag == "-perturb") {
      const char* valid = "a real number in [0, 0.5)";
      const std::string v = value(valid);
      const double a = parse_real(flag, v, valid);
      if (!(a >= 0.0 && a < 0.5)) DG_INPUT_ERROR(flag << " " << v << ": expected " << valid);
      o.perturb = a;
    } else if (flag == "-seed") {
      o.seed = static_cast<std::uint64_t>(
          parse_int(flag, value("an integer >= 0"), 0, "an integer >= 0"));
    } else if (flag == "-shuffle") {
      o.shuffle = true;
      o.shuffle_seed = static_cast<std::uint64_t>(
          parse_int(flag, value("an integer seed >= 0"), 0, "an integer seed >= 0"));
    } else if (flag == "-o" || flag == "-r") {
      const std::string v = value(flag == "-o" ? "an output file name" : "an output root name");
      if (v.empty()) DG_INPUT_ERROR(flag << " '': expected a non-empty file name");
      if ((flag == "-o" && have_r) || (flag == "-r" && have_o))
        DG_INPUT_ERROR(flag << " " << v << ": -o and -r both name the output file; give one");
      (flag == "-o" ? have_o : have_r) = true;
      o.output = flag == "-o" ? v : v + ".h5";
    } else {
      DG_INPUT_ERROR(flag << ": unknown flag (valid: -nsd -nx -ny -nz -x0 -y0 -z0 -Lx -Ly -Lz "
                             "-periodic -warp -curve -perturb -seed -shuffle -o -r --help)");
    }
  }
  o.command = cmd.str();
  return o;
}

BoxOptions parse_box_flags(const std::string& flags) {
  std::istringstream is(flags);
  std::vector<std::string> args;
  for (std::string w; is >> w;)
    args.push_back(w);
  return parse_box_flags(args);
}

std::string box_help() {
  return R"(usage: dgmesh [flags]
       dgmesh import FILE.msh [-o OUT.h5]
Generates a structured hexahedral mesh of the box [x0,x0+Lx] x [y0,y0+Ly] x [z0,z0+Lz] with
nx x ny x nz elements and writes it as HDF5 (FILE) plus XDMF (same stem, .xdmf) for ParaView.
Flags follow DGM's dgm_mesh where they exist. `dgmesh import` converts a Gmsh mesh (MSH 4.1 or
2.2, all-hex, geometric order 1 to 3, physical surfaces as named boundary tags) to the same
files (default OUT: FILE with .h5); docs/mesh-format.md describes both.

  -nsd N         space dimensions; only 3 is supported                     (default 3)
  -nx N          elements in x, N >= 1                                      (default 4)
  -ny N          elements in y                                              (default nx)
  -nz N          elements in z                                              (default nx)
  -x0 X          box origin in x                                            (default 0)
  -y0 Y          box origin in y                                            (default 0)
  -z0 Z          box origin in z                                            (default 0)
  -Lx L          box length in x, L > 0                                     (default 1)
  -Ly L          box length in y, L > 0                                     (default 1)
  -Lz L          box length in z, L > 0                                     (default 1)
  -periodic XYZ  periodic directions: any of the letters x, y, z (e.g. xz)  (default none)
  -warp A        smooth deformation giving non-affine (trilinear) hexes:
                 x_i += A * L_i * sin(pi xi) sin(pi eta) sin(pi zeta), (xi,eta,zeta) the
                 unit-box coordinates; the box boundary stays put, so periodic faces still
                 match. Meshes that invert (|A| above about 0.25) are refused (default 0)
  -curve K       map the box onto a cylindrical shell about the z axis, represented by
                 isoparametric elements of geometric order K (1, 2 or 3): the point
                 (r sin theta, r cos theta, z) with radius r = 1 + (y - y0) and angle
                 theta = (x - x0) (radians, Lx < 2 pi), or
                 theta = 2 pi (x - x0) / Lx with -periodic x (a closed ring; the seam is
                 then an ordinary interior face); z stays. Tags as for the box (default off)
  -perturb A     random motion of interior vertices, each component by up to
                 A times the local spacing, 0 <= A < 0.5; boundary stays     (default 0)
  -seed S        seed of -perturb, integer >= 0                             (default 1)
  -shuffle S     replace each hex's local vertex numbering by a random one of
                 its 24 rotations (seed S), so all 8 face orientations occur (default off)
  -o FILE        output HDF5 file                                           (default box.h5)
  -r ROOT        output root name as in dgm_mesh: same as -o ROOT.h5
  --help, -h     print this help and exit

Boundary tags: 0 xmin, 1 xmax, 2 ymin, 3 ymax, 4 zmin, 5 zmax (periodic directions have no
boundary faces). Invalid flags or values exit with status 2 and write nothing.
)";
}

HexMesh generate_box(const BoxOptions& opt) {
  if (opt.nsd != 3) DG_INPUT_ERROR("-nsd " << opt.nsd << ": only 3 space dimensions are supported");
  std::int64_t n[3];
  for (int d = 0; d < 3; ++d) {
    n[d] = opt.count(d);
    if (n[d] < 1)
      DG_INPUT_ERROR("-n" << char('x' + d) << " " << n[d] << ": expected a positive integer");
    if (!(opt.length[d] > 0.0) || !std::isfinite(opt.length[d]))
      DG_INPUT_ERROR("-L" << char('x' + d) << " " << opt.length[d]
                          << ": expected a real number > 0");
    if (!std::isfinite(opt.origin[d]))
      DG_INPUT_ERROR("-" << char('x' + d) << "0 " << opt.origin[d]
                         << ": expected a finite real number");
  }
  if (!std::isfinite(opt.warp))
    DG_INPUT_ERROR("-warp " << opt.warp << ": expected a finite real number");
  if (opt.curve < 0 || opt.curve > 3)
    DG_INPUT_ERROR("-curve " << opt.curve << ": expected 1, 2 or 3");
  if (opt.curve > 0 && opt.periodic[1])
    DG_INPUT_ERROR("-curve " << opt.curve
                             << " -periodic y: y becomes the radius, which is not periodic");
  if (opt.curve > 0 && !opt.periodic[0] && !(opt.length[0] < 2.0 * pi))
    DG_INPUT_ERROR("-curve " << opt.curve << " -Lx " << opt.length[0]
                             << ": the angle Lx must be < 2 pi (or use -periodic x for a ring)");
  if (!(opt.perturb >= 0.0 && opt.perturb < 0.5))
    DG_INPUT_ERROR("-perturb " << opt.perturb << ": expected a real number in [0, 0.5)");
  // Element ids must fit METIS's 32-bit idx_t.
  const double total = double(n[0]) * double(n[1]) * double(n[2]);
  if (total > double(INT32_MAX))
    DG_INPUT_ERROR("-nx " << n[0] << " -ny " << n[1] << " -nz " << n[2] << ": " << total
                          << " elements; at most " << INT32_MAX << " are supported");

  const std::int64_t nvx = n[0] + 1, nvy = n[1] + 1, nvz = n[2] + 1;
  const std::int64_t nv = nvx * nvy * nvz, ne = n[0] * n[1] * n[2];
  auto vid = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return i + nvx * (j + nvy * k);
  };
  auto eid = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return i + n[0] * (j + n[1] * k);
  };

  HexMesh m;
  m.command = opt.command;
  m.tag_names = box_tag_names();
  m.coords.resize(3 * nv);
  std::vector<double> sinx[3];
  for (int d = 0; d < 3; ++d) {
    sinx[d].resize(n[d] + 1);
    // Exactly zero on the box boundary (sin(pi) is not).
    for (std::int64_t i = 0; i <= n[d]; ++i)
      sinx[d][i] = (i == 0 || i == n[d]) ? 0.0 : std::sin(pi * double(i) / double(n[d]));
  }
  const double h[3] = {opt.length[0] / n[0], opt.length[1] / n[1], opt.length[2] / n[2]};
  for (std::int64_t k = 0; k < nvz; ++k)
    for (std::int64_t j = 0; j < nvy; ++j)
      for (std::int64_t i = 0; i < nvx; ++i) {
        const std::int64_t v = vid(i, j, k);
        const std::int64_t idx[3] = {i, j, k};
        const double w = opt.warp * sinx[0][i] * sinx[1][j] * sinx[2][k];
        const bool interior = i > 0 && i < n[0] && j > 0 && j < n[1] && k > 0 && k < n[2];
        for (int d = 0; d < 3; ++d) {
          double x = opt.origin[d] + opt.length[d] * double(idx[d]) / double(n[d]);
          x += w * opt.length[d];
          if (interior && opt.perturb > 0.0)
            x += opt.perturb * h[d] * uniform_pm1(opt.seed, std::uint64_t(v), std::uint64_t(d));
          m.coords[3 * v + d] = x;
        }
      }

  m.hex.resize(8 * ne);
  for (std::int64_t k = 0; k < n[2]; ++k)
    for (std::int64_t j = 0; j < n[1]; ++j)
      for (std::int64_t i = 0; i < n[0]; ++i) {
        std::int64_t* h8 = &m.hex[8 * eid(i, j, k)];
        for (int v = 0; v < 8; ++v)
          h8[v] = vid(i + (hex::vertex_sign(v, 0) > 0), j + (hex::vertex_sign(v, 1) > 0),
                      k + (hex::vertex_sign(v, 2) > 0));
      }

  // Box faces: boundary tags, or periodic pairs (low side A, high side B).
  for (int d = 0; d < 3; ++d) {
    const int a = (d + 1) % 3, b = (d + 2) % 3;
    for (std::int64_t q = 0; q < n[b]; ++q)
      for (std::int64_t p = 0; p < n[a]; ++p) {
        std::int64_t lo[3], hi[3];
        lo[d] = 0, hi[d] = n[d] - 1;
        lo[a] = hi[a] = p;
        lo[b] = hi[b] = q;
        const std::int64_t elo = eid(lo[0], lo[1], lo[2]), ehi = eid(hi[0], hi[1], hi[2]);
        if (opt.periodic[d]) {
          m.periodic.insert(m.periodic.end(), {elo, 2 * d, ehi, 2 * d + 1});
        } else {
          m.boundary.insert(m.boundary.end(), {elo, 2 * d, 2 * d});
          m.boundary.insert(m.boundary.end(), {ehi, 2 * d + 1, 2 * d + 1});
        }
      }
  }

  if (opt.shuffle) {
    const auto rots = cube_rotations();
    std::vector<unsigned char> which(ne);
    for (std::int64_t e = 0; e < ne; ++e) {
      const Rotation& r = rots[draw(opt.shuffle_seed, std::uint64_t(e), 0x5eedULL) % 24];
      which[e] = static_cast<unsigned char>(&r - rots.data());
      std::int64_t old[8];
      for (int v = 0; v < 8; ++v)
        old[v] = m.hex[8 * e + v];
      for (int v = 0; v < 8; ++v)
        m.hex[8 * e + v] = old[r.vertex[v]];
    }
    for (std::size_t i = 0; i < m.boundary.size(); i += 3)
      m.boundary[i + 1] = rots[which[m.boundary[i]]].new_face[m.boundary[i + 1]];
    for (std::size_t i = 0; i < m.periodic.size(); i += 4) {
      m.periodic[i + 1] = rots[which[m.periodic[i]]].new_face[m.periodic[i + 1]];
      m.periodic[i + 3] = rots[which[m.periodic[i + 2]]].new_face[m.periodic[i + 3]];
    }
  }

  if (opt.curve > 0) curve_mesh(opt, n, m);
  if (opt.warp != 0.0 || opt.perturb > 0.0 || opt.curve > 0) {
    const std::int64_t bad = first_inverted_element(m);
    if (bad >= 0)
      DG_INPUT_ERROR("-warp " << opt.warp << " -perturb " << opt.perturb << " -curve " << opt.curve
                              << ": element " << bad << " is inverted (det J = "
                              << min_corner_jacobian(m, bad) << " <= 0); use a smaller amplitude");
  }
  return m;
}

} // namespace dg::mesh
