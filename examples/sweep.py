#!/usr/bin/python3
"""sweep.py - a parameter sweep from Python: the Rossler system's
bifurcation diagram in c (x' = -y - z, y' = x + a y, z' = b + z (x - c),
a = b = 0.2), one ensemble member per value of c, solved at once.

    examples/sweep.py [--members N] [--backend auto|cpu|cuda] [--out FILE.png]

Each member runs to t = 400; the local maxima of x over t in [200, 400]
(past the transient) are drawn against its c: one point per c on a
limit cycle, two after the first period doubling (c ~ 2.8), four, ...,
a band in the chaotic windows. With matplotlib (python3-matplotlib) it
draws FILE.png; without, it writes the points as CSV beside it. Defaults:
256 members on the CPU backend (a few seconds on two cores), 8192 with
--backend cuda."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import picard  # noqa: E402


def local_maxima(x):
    """Per row of x (members, equally spaced times): the values at its
    interior local maxima, each the vertex of the parabola through the
    sample and its two neighbours (the samples alone blur the branches)."""
    left, mid, right = x[:, :-2], x[:, 1:-1], x[:, 2:]
    inner = (mid > left) & (mid >= right)
    curve = left - 2 * mid + right
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(curve < 0, (left - right) / (2 * curve), 0)
    vertex = mid - (left - right) * shift / 4
    return [row[mask] for row, mask in zip(vertex, inner)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, help="values of c (256 CPU, 8192 GPU)")
    ap.add_argument("--backend", default="cpu", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--out", default="rossler-bifurcation.png")
    a = ap.parse_args()
    n = a.members or (8192 if a.backend != "cpu" and picard.cuda_available() else 256)

    model = picard.Model("rossler")
    c = np.linspace(2.0, 6.0, n)
    params = np.column_stack([np.full(n, 0.2), np.full(n, 0.2), c])
    times = np.linspace(200, 400, 1001)
    r = picard.solve(model, model.x0, (0, 400), params, rtol=1e-8, atol=1e-8,
                     backend=a.backend, save_at=times)
    print(r)
    print("%s, %.2f s in the solve" % (r.stats["device"], r.stats["solve_seconds"]))
    ok = r.ok
    if not ok.all():
        print("members not ok (left out):", dict(zip(*np.unique(r.status[~ok],
                                                                 return_counts=True))))
    peaks = local_maxima(r.x[:, :, 0])
    pc = np.concatenate([np.full(len(p), ci) for p, ci, good in zip(peaks, c, ok) if good])
    px = np.concatenate([p for p, good in zip(peaks, ok) if good])

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        csv = os.path.splitext(a.out)[0] + ".csv"
        np.savetxt(csv, np.column_stack([pc, px]), delimiter=",", header="c,x_max",
                   comments="")
        print("no matplotlib (apt-get install python3-matplotlib): the points are in", csv)
        return
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ax.plot(pc, px, ",k", alpha=0.5)
    ax.set_xlabel("c")
    ax.set_ylabel("local maxima of x, t in [200, 400]")
    ax.set_title("Rossler, a = b = 0.2: %d members on %s (picard, %s)"
                 % (n, r.stats["device"], r.scheme))
    fig.tight_layout()
    fig.savefig(a.out)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
