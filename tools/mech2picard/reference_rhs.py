#!/usr/bin/env python3
"""reference_rhs.py - an independent evaluation of a constant-pressure
reactor's right-hand side straight from a Cantera YAML mechanism, for
tests/chem/test_chem.c: written apart from mech2picard.py (no code shared:
its own reading of the file, rates in plain form k = A T^b exp(-Ea/RT)
rather than in log space, K_p from explicit enthalpies and entropies
rather than Gibbs polynomials, falloff by Troe's formula as Gilbert, Luther
& Troe give it, Ber. Bunsenges. Phys. Chem. 87 (1983) 169). It handles
what h2o2.yaml and gri30.yaml have: NASA7, elementary (reversible or
not), three-body, Lindemann and Troe falloff reactions in cm, mol,
cal/mol.

Usage: reference_rhs.py MECH.yaml P T Y1 ... YK  -> prints dT/dt dY1/dt ...
(one line, %.17g), SI units.
"""
import math
import re
import sys

import yaml12

R = 6.02214076e23 * 1.380649e-23  # J/(mol K)
P_REF = 101325.0
WEIGHTS = {"H": 1.008, "O": 15.999, "N": 14.007, "Ar": 39.95, "C": 12.011, "He": 4.002602}


def nasa(coeffs_by_range, ranges, T):
    a = coeffs_by_range[0] if T < ranges[1] else coeffs_by_range[1]
    cp = a[0] + a[1] * T + a[2] * T ** 2 + a[3] * T ** 3 + a[4] * T ** 4
    h = (a[0] * T + a[1] * T ** 2 / 2 + a[2] * T ** 3 / 3 + a[3] * T ** 4 / 4
         + a[4] * T ** 5 / 5 + a[5])  # h / R, K
    s = (a[0] * math.log(T) + a[1] * T + a[2] * T ** 2 / 2 + a[3] * T ** 3 / 3
         + a[4] * T ** 4 / 4 + a[6])  # s / R
    return cp, h, s


def side(text):
    terms = {}
    for term in text.replace("(+M)", "").replace("+ M", "").split(" + "):
        term = term.strip()
        if not term or term == "M":
            continue
        parts = term.split()
        n, name = (int(parts[0]), parts[1]) if len(parts) == 2 else (1, parts[0])
        terms[name] = terms.get(name, 0) + n
    return terms


def main():
    doc = yaml12.load(open(sys.argv[1]))
    phase = doc["phases"][0]
    names = phase["species"]
    entries = {s["name"]: s for s in doc["species"]}
    P, T = float(sys.argv[2]), float(sys.argv[3])
    Y = [float(v) for v in sys.argv[4:]]
    W = {n: sum(c * WEIGHTS[e] for e, c in entries[n]["composition"].items()) / 1000
         for n in names}
    thermo = {n: nasa(entries[n]["thermo"]["data"], entries[n]["thermo"]["temperature-ranges"],
                      T) for n in names}
    Wmix = 1 / sum(y / W[n] for y, n in zip(Y, names))
    rho = P * Wmix / (R * T)
    conc = {n: rho * y / W[n] for y, n in zip(Y, names)}
    ctot = sum(conc.values())
    wdot = {n: 0.0 for n in names}
    cal = 4.184
    for rxn in doc["reactions"]:
        reversible = "<=>" in rxn["equation"] or " = " in rxn["equation"]
        left, right = re.split(r"<=>|=>| = ", rxn["equation"])
        reac, prod = side(left), side(right)
        kind = rxn.get("type", "elementary")

        def arr(spec, order):
            # cm^3/mol to m^3/mol: 1e-6 per order above one
            return (spec["A"] * 1e-6 ** (order - 1) * T ** spec["b"]
                    * math.exp(-spec["Ea"] * cal / (R * T)))
        order = sum(reac.values())
        if kind in ("three-body", "falloff"):
            eff = rxn.get("efficiencies", {})
            M = sum(eff.get(n, 1.0) * conc[n] for n in names)
        if kind == "three-body":
            kf = arr(rxn["rate-constant"], order + 1) * M
        elif kind == "falloff":
            k0 = arr(rxn["low-P-rate-constant"], order + 1)
            kinf = arr(rxn["high-P-rate-constant"], order)
            Pr = k0 * M / kinf
            F = 1.0  # Lindemann
            if "Troe" in rxn:
                troe = rxn["Troe"]
                Fc = ((1 - troe["A"]) * math.exp(-T / troe["T3"])
                      + troe["A"] * math.exp(-T / troe["T1"])
                      + (math.exp(-troe["T2"] / T) if "T2" in troe else 0))
                c = -0.4 - 0.67 * math.log10(Fc)
                nn = 0.75 - 1.27 * math.log10(Fc)
                x = (math.log10(Pr) + c) / (nn - 0.14 * (math.log10(Pr) + c))
                F = 10 ** (math.log10(Fc) / (1 + x * x))
            kf = kinf * Pr / (1 + Pr) * F
        else:
            kf = arr(rxn["rate-constant"], order)
        dH = sum(n * thermo[s][1] for s, n in prod.items()) - sum(n * thermo[s][1]
                                                                 for s, n in reac.items())
        dS = sum(n * thermo[s][2] for s, n in prod.items()) - sum(n * thermo[s][2]
                                                                 for s, n in reac.items())
        dn = sum(prod.values()) - sum(reac.values())
        Kp = math.exp(dS - dH / T)
        Kc = Kp * (P_REF / (R * T)) ** dn
        fwd = kf
        for s, n in reac.items():
            fwd *= conc[s] ** n
        rev = kf / Kc if reversible else 0.0
        for s, n in prod.items():
            rev *= conc[s] ** n
        q = fwd - rev
        for s, n in reac.items():
            wdot[s] -= n * q
        for s, n in prod.items():
            wdot[s] += n * q
    cp_mass = sum(y * thermo[n][0] * R / W[n] for y, n in zip(Y, names))
    dTdt = -sum(thermo[n][1] * R * wdot[n] for n in names) / (rho * cp_mass)
    out = [dTdt] + [wdot[n] * W[n] / rho for n in names]
    print(" ".join("%.17g" % v for v in out))


if __name__ == "__main__":
    main()
