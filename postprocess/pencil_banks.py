#!/usr/bin/python3
"""Shared-memory wavefronts of the modal pencil kernel's main accesses for a layout of the state
in team scratch, U(i, j, l) at i + PX j + PY l (src/dg/fixed/modal_pencil_stage.hpp).

    /usr/bin/python3 postprocess/pencil_banks.py [P ...]      (P = p + 1; default 4 5 6 7 8)

For each kernel (advection, advection-diffusion, the linear velocity) at its elements per team
on GPUs it counts, warp instruction by warp instruction, the wavefronts of: the x-pencils of the
volume pass and the face values (thread (k, j, l) reads PX j + PY l + q of element k), the rows
of the y- and z-contractions (by parity, as for_parity runs them), the register's pencil, the
face pencils along y and z, with a linear velocity the neighbouring pencils and F_1, F_2, and
the update and copies one thread per mode. A half-warp's 16 doubles take one wavefront when
they fall on distinct 8-byte banks (address modulo 16) or share an address; else as many as the
most-used bank holds distinct addresses. The table and record loads, the same for every layout,
are left out. It prints the count unpadded (PX = P, PY = P^2), with the kernel's padding, and
the least count over PY = PX P .. PX P + 8 (PX = P and P + 1)."""
import itertools
import sys


def wavefronts(addrs):
    """Wavefronts of one warp instruction: addrs[t] is thread t's address in doubles or None."""
    total = 0
    for half in (0, 1):
        banks = {}
        for t, a in enumerate(addrs):
            if a is not None and t // 16 == half:
                banks.setdefault(a % 16, set()).add(a)
        if banks:
            total += max(len(s) for s in banks.values())
    return total


def count(kind, P, ne, PX, PY):
    """Wavefronts of one batch of ne elements for kind 'adv', 'diff' or 'lin'."""
    P2, UX = P * P, PY * P
    ED = {"adv": 2 * UX + 6 * P2 + 34, "diff": 2 * UX + 24 * P2 + 79, "lin": 4 * UX + 6 * P2 + 37}[kind]
    h = (P + 1) // 2

    def run(n, thread, f, iters, mult=1):
        s = 0
        for w in range(0, (n + 31) // 32 * 32, 32):
            for it in iters:
                s += wavefronts([f(thread(t), it) if t < n else None for t in range(w, w + 32)])
        return s * mult

    pencil = lambda t: (t // P2, t % P2 % P, t % P2 // P)
    mode = lambda t: (t // P**3, t % P, t // P % P, t % P**3 // P2)
    n = ne * P2
    clamp = lambda v: min(max(v, 0), P - 1)
    at = lambda off, dj=0, dl=0: lambda x, q: x[0] * ED + off + PX * clamp(x[1] + dj) + PY * clamp(x[2] + dl) + q
    yb = 2 * UX + 6 * P2 if kind == "lin" else 0  # the rows the y- and z-contractions read
    zb = yb + UX if kind == "lin" else 0
    nq = 2 * h if kind == "diff" else h
    par = lambda o, it: ((o + 1) & 1 if it < h else o & 1) + 2 * (it % h)
    s = run(n, pencil, at(0), range(P))
    s += run(n, pencil, lambda x, it: x[0] * ED + yb + PY * x[2] + it[1] + PX * par(x[1], it[0]),
             itertools.product(range(nq), range(P)))
    s += run(n, pencil, lambda x, it: x[0] * ED + zb + PX * x[1] + it[1] + PY * par(x[2], it[0]),
             itertools.product(range(nq), range(P)))
    s += run(n, pencil, at(UX), range(P), 2)
    for f in (at(0), lambda x, m: x[0] * ED + x[1] + PY * x[2] + PX * m,
              lambda x, m: x[0] * ED + x[1] + PX * x[2] + PY * m):
        s += run(n, pencil, f, range(P), 2)  # the face pass and the emitted traces
    if kind == "lin":
        for dj, dl in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            s += run(n, pencil, at(0, dj, dl), range(P))
        s += run(n, pencil, at(yb), range(P)) + run(n, pencil, at(zb), range(P))
    m = lambda x, it: x[0] * ED + it * UX + x[1] + PX * x[2] + PY * x[3]
    s += run(ne * P**3, mode, m, range(2), 2) + run(ne * P**3, mode, m, range(1))
    return s


def kernel_layout(P):
    """The padding of ModalPencil (PX, PY)."""
    PX = P + 1 if P % 8 == 0 else P
    return PX, PX * P + (3 if P % 2 == 0 and P % 8 != 0 else 0)


# Elements per team on GPUs (pencil_elems; the axis-aligned kernel with diffusion).
ELEMS = {"adv": {4: 8, 5: 5, 6: 3, 7: 2, 8: 1}, "diff": {4: 4, 5: 1, 6: 3, 7: 2, 8: 1},
         "lin": {4: 8, 5: 1, 6: 3, 7: 2, 8: 1}}

if __name__ == "__main__":
    orders = [int(a) for a in sys.argv[1:]] or [4, 5, 6, 7, 8]
    print("kernel,P,elements,unpadded,kernel_layout,PX,PY,best,best_PX,best_PY")
    for P in orders:
        for kind in ("adv", "diff", "lin"):
            ne = ELEMS[kind].get(P, 1)
            PX, PY = kernel_layout(P)
            best = min((count(kind, P, ne, px, py), px, py) for px in (P, P + 1)
                       for py in range(px * P, px * P + 9))
            print(f"{kind},{P},{ne},{count(kind, P, ne, P, P * P)},{count(kind, P, ne, PX, PY)},"
                  f"{PX},{PY},{best[0]},{best[1]},{best[2]}", flush=True)
