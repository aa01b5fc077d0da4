#!/usr/bin/python3
"""Draws u on the bottom plane (z = z_min) of a dgsolve snapshot (HDF5) as a PNG: every face of
the snapshot's sub-hexes that lies in the plane, two Gouraud-shaded triangles each, so curved
elements and holes (a cylinder) show as they are sampled.
    /usr/bin/python3 postprocess/plot_plane.py out/cylinder_00012.h5 docs/cylinder.png"""
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

# VTK hexahedron faces, each as a quadrilateral in order around it.
FACES = [(0, 3, 7, 4), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7), (0, 1, 2, 3), (4, 5, 6, 7)]


def main(src, dst):
    with h5py.File(src, "r") as f:
        x = f["coordinates"][...]
        u = f["u"][...]
        cells = f["connectivity"][...]
        t = float(np.asarray(f.attrs.get("time", 0.0)).ravel()[0])
    z0 = x[:, 2].min()
    tol = 1e-9 * (x[:, 2].max() - z0 + 1.0)
    on = np.abs(x[:, 2] - z0) <= tol
    tris = []
    for face in FACES:
        q = cells[:, face]
        keep = on[q].all(axis=1)
        q = q[keep]
        tris.append(q[:, [0, 1, 2]])
        tris.append(q[:, [0, 2, 3]])
    tris = np.concatenate(tris)
    span = x[:, 0].max() - x[:, 0].min(), x[:, 1].max() - x[:, 1].min()
    fig, ax = plt.subplots(figsize=(8, 8 * span[1] / span[0] + 1.0))
    tp = ax.tripcolor(x[:, 0], x[:, 1], tris, u, shading="gouraud", cmap="viridis")
    fig.colorbar(tp, ax=ax, label="u", shrink=0.8)
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"u at z = {z0:.3g}, t = {t:.3g}")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_plane.py SNAPSHOT.h5 OUT.png")
    main(sys.argv[1], sys.argv[2])
