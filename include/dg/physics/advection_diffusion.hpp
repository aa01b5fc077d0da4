// Advection-diffusion composed from the advection equation and a diffusion term (as Trixi.jl
// composes it): F(u, grad u) = a u - nu grad u.
#pragma once

#include "dg/physics/advection.hpp"
#include "dg/physics/diffusion.hpp"

namespace dg::physics {

struct AdvectionDiffusion {
  Advection advection;
  Diffusion diffusion;
};

} // namespace dg::physics
