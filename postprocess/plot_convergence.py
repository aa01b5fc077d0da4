#!/usr/bin/python3
"""Convergence plot from dgsolve CSV logs: final L2 error against element size h for each
order p, with the observed orders printed and reference slopes drawn.
    /usr/bin/python3 postprocess/plot_convergence.py out.png p2:out/a4.csv:4 p2:out/a8.csv:8 ...
Each argument is LABEL:CSV:N with N the elements per direction (h = 1/N)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def final_error(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return float(rows[-1]["l2_error"])


def main(dst, specs):
    series = defaultdict(list)
    for s in specs:
        label, path, n = s.rsplit(":", 2)
        series[label].append((1.0 / float(n), final_error(path)))
    fig, ax = plt.subplots(figsize=(5, 4))
    for label, pts in sorted(series.items()):
        pts.sort()
        h, e = np.array(pts).T
        rates = np.diff(np.log(e)) / np.diff(np.log(h))
        print(label, "errors", " ".join(f"{v:.3e}" for v in e), "orders",
              " ".join(f"{r:.2f}" for r in rates))
        ax.loglog(h, e, "o-", label=f"{label} (order {rates[-1]:.2f})" if len(rates) else label)
    ax.set_xlabel("h")
    ax.set_ylabel("L2 error")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
