// The user's problem: boundary conditions by tag name, and the expressions of the input
// evaluated on the host at the points the kernels read, then copied to the device.
#include "dg/problem.hpp"

#include "dg/core/error.hpp"
#include "dg/solver.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

namespace dg {

namespace {

/// Every rank throws the InputError of the lowest rank that has one (local_error non-empty).
void collective_check(MPI_Comm comm, const std::string& local_error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int mine = local_error.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int len = rank == first ? static_cast<int>(local_error.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, first, comm);
  std::string msg = rank == first ? local_error : std::string(static_cast<std::size_t>(len), ' ');
  MPI_Bcast(msg.data(), len, MPI_CHAR, first, comm);
  throw InputError(msg);
}

std::string point_text(const double* x, bool with_t, double t) {
  char buf[160];
  if (with_t)
    std::snprintf(buf, sizeof buf, "(x, y, z, t) = (%.6g, %.6g, %.6g, %.6g)", x[0], x[1], x[2], t);
  else
    std::snprintf(buf, sizeof buf, "(x, y, z) = (%.6g, %.6g, %.6g)", x[0], x[1], x[2]);
  return buf;
}

/// e(x, t); a non-finite value (or a negative one where `nonnegative`) sets `err` (first only).
double checked(const expr::Expression& e, const double* x, double t, std::string& err,
               bool nonnegative = false) {
  const double v = e(x[0], x[1], x[2], t);
  if (err.empty() && (!std::isfinite(v) || (nonnegative && v < 0.0))) {
    char val[64];
    std::snprintf(val, sizeof val, "%g", v);
    err = e.where() + ": " + e.key() + " = \"" + e.text() + "\": is " + val + " at " +
          point_text(x, e.depends_on_t(), t) +
          (std::isfinite(v) ? ": must be >= 0" : ": must be finite everywhere");
  }
  return v;
}

int face_type_of(const std::string& s) {
  if (s == "outflow") return face_outflow;
  if (s == "inflow") return face_inflow;
  if (s == "neumann") return face_neumann;
  return face_dirichlet;
}

View2 to_device(const std::string& label, const std::vector<double>& v, int rows, int cols) {
  View2 d(label, rows, cols);
  auto h = Kokkos::create_mirror_view(d);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      h(i, j) = v[static_cast<std::size_t>(i) * cols + j];
  Kokkos::deep_copy(d, h);
  return d;
}

} // namespace

Problem::Problem(const io::Config& cfg, const mesh::LocalMesh& local,
                 const physics::ExactSolution& builtin)
    : source_file_(cfg.source), params_(cfg.parameters), pde_(make_pde(cfg)), builtin_(builtin),
      velocity_field_(cfg.physics.velocity_field) {
  auto compile = [&](const io::ExpressionText& e, bool allow_t) {
    return expr::Expression(e.text, params_, allow_t, e.where.empty() ? source_file_ : e.where,
                            e.key);
  };
  if (velocity_field_ != "rotation")
    for (const auto& v : cfg.physics.velocity)
      velocity_.push_back(compile(v, false));
  diffusivity_ = compile(cfg.physics.diffusivity, false);
  if (cfg.physics.source.given()) {
    source_ = compile(cfg.physics.source, true);
    has_source_ = !(source_.is_constant() && source_.value() == 0.0);
    source_t_ = has_source_ && source_.depends_on_t();
  }
  if (cfg.initial.exact.given()) {
    exact_ = compile(cfg.initial.exact, true);
    exact_expr_ = true;
  }
  initial_expr_ = cfg.initial.type == "expression";
  if (initial_expr_)
    initial_ = cfg.initial.expression.given() ? compile(cfg.initial.expression, false) : exact_;
  // The built-in formulas solve the problem only without fields or sources.
  builtin_exact_ = !initial_expr_ && !exact_expr_ && builtin_.is_exact() && builtin_.kind != 3 &&
                   pde_.advection.kind != physics::Advection::field && diffusivity_.is_constant() &&
                   !has_source_;

  // The table of conditions: row 0 is boundary.default, then one row per entry.
  const std::vector<std::string>& tags = local.tag_names;
  auto row_of = [&](const io::BoundaryCondition& c, const std::string& key) {
    ConditionRow r;
    r.name = c.name;
    r.key = key;
    r.where = c.where.empty() ? source_file_ : c.where;
    r.type = face_type_of(c.type);
    if (r.type == face_outflow) {
      r.data = ConditionRow::Data::none;
    } else if (c.value.given()) {
      r.data = ConditionRow::Data::expression;
      r.value = compile(c.value, true);
    } else if (r.type == face_neumann) {
      r.data = ConditionRow::Data::zero;
    } else if (exact_expr_) {
      r.data = ConditionRow::Data::expression;
      r.value = exact_;
    } else if (!initial_expr_) {
      r.data = ConditionRow::Data::exact_builtin;
    } // else: no data; an error if a face uses the row (setup)
    return r;
  };
  rows_.push_back(row_of(cfg.boundary.default_condition, "boundary.default"));
  for (const auto& c : cfg.boundary.conditions) {
    if (std::find(tags.begin(), tags.end(), c.name) == tags.end()) {
      const auto near = io::nearest_first(c.name, tags);
      std::string list;
      for (std::size_t i = 0; i < near.size(); ++i)
        list += (i ? ", " : "") + near[i];
      DG_INPUT_ERROR((c.where.empty() ? source_file_ : c.where)
                     << ": boundary." << c.name << ": the mesh has no boundary tag " << c.name
                     << "; its tags, nearest first: " << (list.empty() ? "(none)" : list));
    }
    rows_.push_back(row_of(c, "boundary." + c.name));
  }
  kinds_.default_kind = rows_[0].type;
  for (std::size_t t = 0; t < tags.size(); ++t) {
    int row = 0;
    for (std::size_t r = 1; r < rows_.size(); ++r)
      if (rows_[r].name == tags[t]) row = static_cast<int>(r);
    kinds_.kind.push_back(rows_[row].type);
    kinds_.condition.push_back(row);
  }
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const ConditionRow& row = rows_[r];
    const bool t_dep = (row.data == ConditionRow::Data::expression && row.value.depends_on_t()) ||
                       (row.data == ConditionRow::Data::exact_builtin && builtin_.kind <= 1);
    if (t_dep) t_rows_.push_back(static_cast<int>(r));
  }
}

void Problem::setup(ElementBlock& b, const mesh::LocalMesh& local, MPI_Comm comm) {
  const int E = b.nelem, Q = b.Q, Q2 = Q * Q, Q3 = Q2 * Q;
  const std::vector<double> x = make_tables(b.order, Q).x;
  std::string err;

  // Rows that faces use (over all ranks): a Dirichlet or inflow row without data is an error
  // only where it is used.
  std::vector<int> used(rows_.size(), 0);
  for (int s = 0; s < b.nbound; ++s)
    used[b.bound_cond[s]] += 1;
  MPI_Allreduce(MPI_IN_PLACE, used.data(), static_cast<int>(used.size()), MPI_INT, MPI_SUM, comm);
  int custom = 0;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const ConditionRow& row = rows_[r];
    if (!used[r]) continue;
    if (row.data == ConditionRow::Data::none && row.type != face_outflow)
      DG_INPUT_ERROR(row.where << ": " << row.key << ": a "
                               << (row.type == face_inflow ? "inflow" : "dirichlet")
                               << " boundary needs a value: give " << row.key
                               << " as {type: ..., value: EXPRESSION}, or initial.exact");
    if (row.type == face_inflow || row.type == face_neumann ||
        row.data == ConditionRow::Data::expression)
      custom = 1;
  }
  b.boundary_data = custom != 0;

  const bool vfield = velocity_field_ != "rotation" &&
                      std::any_of(velocity_.begin(), velocity_.end(),
                                  [](const expr::Expression& e) { return !e.is_constant(); });
  const bool nufield = !diffusivity_.is_constant();
  std::vector<double> vp;
  if (vfield || nufield || has_source_ || initial_expr_) vp = volume_points(local, b);
  auto vpt = [&](int e, int pt) { return &vp[(static_cast<std::size_t>(e) * Q3 + pt) * 3]; };

  // Constant velocity and diffusivity: checked once.
  if (velocity_field_ != "rotation" && !vfield) {
    const double origin[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < 3; ++d)
      pde_.advection.a[d] = checked(velocity_[d], origin, 0.0, err);
    pde_.advection.kind = physics::Advection::constant;
  }
  if (!nufield) {
    const double origin[3] = {0.0, 0.0, 0.0};
    pde_.diffusion.nu = checked(diffusivity_, origin, 0.0, err, true);
  }

  // Velocity field: contravariant velocity adj(J) a at the volume points, a . n at the face
  // points, max |a| per element.
  if (vfield) {
    pde_.advection.kind = physics::Advection::field;
    auto hvgeo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.vgeo);
    auto hfgeo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.fgeo);
    b.avol = View3("dg::block::avol", E, Q3, 3);
    b.aface = View3("dg::block::aface", E, 6, Q2);
    b.amax = View1("dg::block::amax", E);
    auto hav = Kokkos::create_mirror_view(b.avol);
    auto haf = Kokkos::create_mirror_view(b.aface);
    auto ham = Kokkos::create_mirror_view(b.amax);
    for (int e = 0; e < E; ++e) {
      double amax = 0.0;
      for (int pt = 0; pt < Q3; ++pt) {
        double a[3];
        for (int i = 0; i < 3; ++i)
          a[i] = checked(velocity_[i], vpt(e, pt), 0.0, err);
        const int gp = b.affine ? 0 : pt;
        for (int d = 0; d < 3; ++d)
          hav(e, pt, d) = hvgeo(e, gp, 3 * d) * a[0] + hvgeo(e, gp, 3 * d + 1) * a[1] +
                          hvgeo(e, gp, 3 * d + 2) * a[2];
        amax = std::max(amax, std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
      }
      for (int f = 0; f < 6; ++f) {
        const std::vector<double> fp = face_points(local, b, e, f, x);
        for (int pt = 0; pt < Q2; ++pt) {
          double a[3];
          for (int i = 0; i < 3; ++i)
            a[i] = checked(velocity_[i], &fp[3 * pt], 0.0, err);
          const int gp = b.affine ? 0 : pt;
          haf(e, f, pt) =
              a[0] * hfgeo(e, f, gp, 0) + a[1] * hfgeo(e, f, gp, 1) + a[2] * hfgeo(e, f, gp, 2);
          amax = std::max(amax, std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
        }
      }
      ham(e) = amax;
    }
    Kokkos::deep_copy(b.avol, hav);
    Kokkos::deep_copy(b.aface, haf);
    Kokkos::deep_copy(b.amax, ham);
  }

  // Diffusivity field: nu at the volume and face points, max per element; the largest value
  // over all ranks decides whether diffusion terms run at all.
  if (nufield) {
    b.nuvol = View2("dg::block::nuvol", E, Q3);
    b.nuface = View3("dg::block::nuface", E, 6, Q2);
    b.numax = View1("dg::block::numax", E);
    auto hnv = Kokkos::create_mirror_view(b.nuvol);
    auto hnf = Kokkos::create_mirror_view(b.nuface);
    auto hnm = Kokkos::create_mirror_view(b.numax);
    double numax = 0.0;
    for (int e = 0; e < E; ++e) {
      double m = 0.0;
      for (int pt = 0; pt < Q3; ++pt)
        m = std::max(m, hnv(e, pt) = checked(diffusivity_, vpt(e, pt), 0.0, err, true));
      for (int f = 0; f < 6; ++f) {
        const std::vector<double> fp = face_points(local, b, e, f, x);
        for (int pt = 0; pt < Q2; ++pt)
          m = std::max(m, hnf(e, f, pt) = checked(diffusivity_, &fp[3 * pt], 0.0, err, true));
      }
      hnm(e) = m;
      numax = std::max(numax, m);
    }
    Kokkos::deep_copy(b.nuvol, hnv);
    Kokkos::deep_copy(b.nuface, hnf);
    Kokkos::deep_copy(b.numax, hnm);
    MPI_Allreduce(MPI_IN_PLACE, &numax, 1, MPI_DOUBLE, MPI_MAX, comm);
    pde_.diffusion.nu = numax;
    if (numax == 0.0) b.nuvol = View2(), b.nuface = View3(), b.numax = View1();
  }

  // Boundary face points and data at t = 0.
  bpoints_.assign(static_cast<std::size_t>(b.nbound) * Q2 * 3, 0.0);
  for (int s = 0; s < b.nbound; ++s) {
    const std::vector<double> fp = face_points(local, b, b.bound_elem[s], b.bound_face[s], x);
    std::copy(fp.begin(), fp.end(), bpoints_.begin() + static_cast<std::size_t>(s) * Q2 * 3);
  }
  {
    hbdata_ = Kokkos::create_mirror_view(b.bdata);
    auto& h = hbdata_;
    for (int s = 0; s < b.nbound; ++s) {
      const ConditionRow& row = rows_[b.bound_cond[s]];
      for (int pt = 0; pt < Q2; ++pt) {
        const double* xp = &bpoints_[(static_cast<std::size_t>(s) * Q2 + pt) * 3];
        double v = 0.0;
        if (row.data == ConditionRow::Data::expression) v = checked(row.value, xp, 0.0, err);
        if (row.data == ConditionRow::Data::exact_builtin) v = builtin_(xp, 0.0);
        h(s, pt) = v;
      }
    }
    Kokkos::deep_copy(b.bdata, h);
  }

  // Source: time-independent ones projected once; time-dependent ones keep their points.
  if (has_source_) {
    b.source = View2("dg::block::source", E, b.nmodes);
    std::vector<double> sv(static_cast<std::size_t>(E) * Q3);
    for (int e = 0; e < E; ++e)
      for (int pt = 0; pt < Q3; ++pt)
        sv[static_cast<std::size_t>(e) * Q3 + pt] = checked(source_, vpt(e, pt), 0.0, err);
    svals_ = to_device("dg::problem::source_values", sv, E, Q3);
    project_values(b, svals_, b.source, 1);
    if (source_t_)
      vpoints_ = vp;
    else
      svals_ = View2();
  }

  // Initial state and exact solution: checked at t = 0.
  if (initial_expr_) {
    std::vector<double> iv(static_cast<std::size_t>(E) * Q3);
    for (int e = 0; e < E; ++e)
      for (int pt = 0; pt < Q3; ++pt)
        iv[static_cast<std::size_t>(e) * Q3 + pt] = checked(initial_, vpt(e, pt), 0.0, err);
    initial_values_ = to_device("dg::problem::initial_values", iv, E, Q3);
  }
  if (exact_expr_ && !initial_expr_)
    for (int e = 0; e < E && err.empty(); ++e)
      for (int pt = 0; pt < Q3; pt += 7)
        checked(exact_, vpt(e, pt), 0.0, err);
  collective_check(comm, err);

  // Slots whose data depend on t: expressions on the host, the built-in exact solution (a
  // device function) on the device at the face points kept there.
  std::vector<int> host_slots, device_slots;
  for (int s = 0; s < b.nbound; ++s) {
    const int r = b.bound_cond[s];
    if (std::find(t_rows_.begin(), t_rows_.end(), r) == t_rows_.end()) continue;
    if (rows_[r].data == ConditionRow::Data::exact_builtin) {
      device_slots.push_back(s);
    } else {
      host_slots.push_back(s);
    }
  }
  time_slots_ = select_time_slots(host_slots, device_slots, Q2);
  ahead_read_.clear();
  last_t_ = 0.0;
}

Problem::TimeSlots Problem::select_time_slots(const std::vector<int>& host,
                                              const std::vector<int>& exact, int Q2) const {
  TimeSlots t;
  t.host = host;
  t.exact_host = exact;
  if (exact.empty()) return t;
  t.exact = IView1("dg::problem::exact_slots", exact.size());
  t.exact_points = View3("dg::problem::exact_points", exact.size(), Q2, 3);
  auto hs = Kokkos::create_mirror_view(t.exact);
  auto hp = Kokkos::create_mirror_view(t.exact_points);
  for (std::size_t i = 0; i < exact.size(); ++i) {
    hs(i) = exact[i];
    for (int pt = 0; pt < Q2; ++pt)
      for (int d = 0; d < 3; ++d)
        hp(i, pt, d) = bpoints_[(static_cast<std::size_t>(exact[i]) * Q2 + pt) * 3 + d];
  }
  Kokkos::deep_copy(t.exact, hs);
  Kokkos::deep_copy(t.exact_points, hp);
  return t;
}

void Problem::initial_state(ElementBlock& b) const {
  if (initial_expr_)
    project_values(b, initial_values_, b.u, projection_iterations(b));
  else
    project(b, builtin_, 0.0);
}

void Problem::update(ElementBlock& b, double t) {
  if (!time_dependent() || t == last_t_) return;
  const double t0 = MPI_Wtime();
  const int Q2 = b.Q * b.Q, Q3 = Q2 * b.Q;
  if (!t_rows_.empty()) { // rows without t keep their set-up values in b.bdata and hbdata_
    const int ns = static_cast<int>(b.bdata.extent(0));
    boundary_rows_at(b, &t, 1, View3(b.bdata.data(), 1, ns, Q2),
                     View3::HostMirror(hbdata_.data(), 1, ns, Q2), time_slots_.host,
                     time_slots_.exact, time_slots_.exact_points);
  }
  if (source_t_) {
    if (hsvals_.extent(0) != svals_.extent(0)) hsvals_ = Kokkos::create_mirror_view(svals_);
    auto& h = hsvals_;
    for (int e = 0; e < b.nelem; ++e)
      for (int pt = 0; pt < Q3; ++pt) {
        const double* xp = &vpoints_[(static_cast<std::size_t>(e) * Q3 + pt) * 3];
        h(e, pt) = source_(xp[0], xp[1], xp[2], t);
      }
    Kokkos::deep_copy(ExecSpace(), svals_, h);
    host_points_ += static_cast<long long>(b.nelem) * Q3;
    project_values(b, svals_, b.source, 1);
  }
  // Host time only: the device work queued here (a copy, a kernel) overlaps with the stages.
  update_seconds_ += MPI_Wtime() - t0;
  last_t_ = t;
}

void Problem::boundary_rows_at(const ElementBlock& b, const double* ts, int nt, const View3& out,
                               const View3::HostMirror& h, const std::vector<int>& host,
                               const IView1& exact, const View3& xyz) {
  const int Q2 = static_cast<int>(b.bdata.extent(1));
  host_points_ += static_cast<long long>(nt) * host.size() * Q2;
  device_points_ += static_cast<long long>(nt) * exact.extent(0) * Q2;
  if (!host.empty()) { // expressions: on the host, then one copy
    for (int k = 0; k < nt; ++k)
      for (const int s : host) {
        const ConditionRow& row = rows_[b.bound_cond[s]];
        for (int pt = 0; pt < Q2; ++pt) {
          const double* xp = &bpoints_[(static_cast<std::size_t>(s) * Q2 + pt) * 3];
          h(k, s, pt) = row.value(xp[0], xp[1], xp[2], ts[k]);
        }
      }
    // Ordered after the previous stage on the default stream; the host buffer is free to reuse
    // when the call returns (a pageable source is staged first), so the host never waits for
    // the device here.
    Kokkos::deep_copy(ExecSpace(), out, h);
  }
  if (exact.extent(0) > 0) { // the built-in exact solution: on the device, after the copy
    DG_VERIFY(nt <= max_stage_times,
              "boundary data at " << nt << " times, at most " << max_stage_times);
    Kokkos::Array<double, max_stage_times> times{};
    for (int k = 0; k < nt; ++k)
      times[k] = ts[k];
    const IView1 slots = exact;
    const physics::ExactSolution ex = builtin_;
    // One flat range, the face point fastest: neighbouring threads read neighbouring points
    // and write neighbouring values (a three-dimensional MDRange ran the time index fastest on
    // CUDA, with strided accesses: 63 us a step for the inflow face's 5e5 values).
    const int ne = static_cast<int>(slots.extent(0));
    Kokkos::parallel_for(
        "dg::problem::exact_boundary_data",
        Kokkos::RangePolicy<ExecSpace>(0, static_cast<long>(nt) * ne * Q2),
        KOKKOS_LAMBDA(const long idx) {
          const int pt = static_cast<int>(idx % Q2), i = static_cast<int>((idx / Q2) % ne),
                    k = static_cast<int>(idx / (static_cast<long>(Q2) * ne));
          const double x[3] = {xyz(i, pt, 0), xyz(i, pt, 1), xyz(i, pt, 2)};
          out(k, slots(i), pt) = ex(x, times[k]);
        });
  }
}

const View3& Problem::stage_boundary_data(const ElementBlock& b, const std::vector<double>& ts,
                                          const std::vector<int>& read) {
  const double t0 = MPI_Wtime();
  const int nt = static_cast<int>(ts.size()), ns = static_cast<int>(b.bdata.extent(0)),
            Q2 = static_cast<int>(b.bdata.extent(1));
  if (stage_bdata_.extent(0) != static_cast<size_t>(nt) ||
      stage_bdata_.extent(1) != static_cast<size_t>(ns)) {
    // Every time's rows start as the set-up values; the rows that depend on t are rewritten.
    stage_bdata_ = View3("dg::problem::stage_boundary_data", nt, ns, Q2);
    for (int k = 0; k < nt; ++k)
      Kokkos::deep_copy(Kokkos::subview(stage_bdata_, k, Kokkos::ALL, Kokkos::ALL), b.bdata);
    hstage_bdata_ = Kokkos::create_mirror_view(stage_bdata_);
    Kokkos::deep_copy(hstage_bdata_, stage_bdata_);
  }
  if (read != ahead_read_) { // the t-dependent slots among those read
    const auto among = [&](const std::vector<int>& slots) {
      std::vector<int> kept;
      for (const int s : slots)
        if (std::binary_search(read.begin(), read.end(), s)) kept.push_back(s);
      return kept;
    };
    ahead_slots_ = select_time_slots(among(time_slots_.host), among(time_slots_.exact_host), Q2);
    ahead_read_ = read;
  }
  boundary_rows_at(b, ts.data(), nt, stage_bdata_, hstage_bdata_, ahead_slots_.host,
                   ahead_slots_.exact, ahead_slots_.exact_points);
  update_seconds_ += MPI_Wtime() - t0;
  return stage_bdata_;
}

Diagnostics Problem::diagnostics(const ElementBlock& b, double t, int qerr,
                                 const mesh::LocalMesh& local) const {
  if (!exact_expr_) return local_diagnostics(b, builtin_, t, builtin_exact_, qerr);
  const int n3 = qerr * qerr * qerr;
  if (gq_ != qerr) {
    gpoints_ = grid_points(local, b, make_tables(b.order, qerr).x);
    gq_ = qerr;
  }
  View2 vals("dg::problem::exact_values", b.nelem, n3);
  auto h = Kokkos::create_mirror_view(vals);
  for (int e = 0; e < b.nelem; ++e)
    for (int pt = 0; pt < n3; ++pt) {
      const double* xp = &gpoints_[(static_cast<std::size_t>(e) * n3 + pt) * 3];
      h(e, pt) = exact_(xp[0], xp[1], xp[2], t);
    }
  Kokkos::deep_copy(vals, h);
  return local_diagnostics(b, vals, qerr);
}

} // namespace dg
