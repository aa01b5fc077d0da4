#!/usr/bin/python3
"""Plots the z-midplane of a dgsolve snapshot (HDF5) as a PNG: the points of the p^3 sub-hex
sampling nearest the plane, coloured by u.
    /usr/bin/python3 postprocess/plot_slice.py SNAPSHOT.h5 FIGURE.png

    # docs/pulse.png: the default job's snapshot at t = 0.75 (p = 4, 8^3 elements)
    build/src/dgsolve inputs/advect.yaml
    /usr/bin/python3 postprocess/plot_slice.py out/advect_00003.h5 docs/pulse.png"""
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def main(src, dst):
    with h5py.File(src, "r") as f:
        x = f["coordinates"][...]
        u = f["u"][...]
        t = f.attrs.get("time", 0.0)
    zmid = 0.5 * (x[:, 2].min() + x[:, 2].max())
    dz = np.abs(x[:, 2] - zmid)
    near = dz <= dz.min() + 1e-9 + 0.02 * (x[:, 2].max() - x[:, 2].min())
    fig, ax = plt.subplots(figsize=(5, 4.2))
    sc = ax.tricontourf(x[near, 0], x[near, 1], u[near], levels=40, cmap="viridis")
    fig.colorbar(sc, ax=ax, label="u")
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"u near z = {zmid:.2f}, t = {float(np.asarray(t).ravel()[0]):.3g}")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_slice.py SNAPSHOT.h5 OUT.png")
    main(sys.argv[1], sys.argv[2])
