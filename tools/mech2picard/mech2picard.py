#!/usr/bin/env python3
"""mech2picard.py - a chemical mechanism in Cantera's YAML format turned
into a picard model file (models/NAME.cu, docs/models.md's contract): an
adiabatic, constant-pressure, closed, ideal-gas reactor, Cantera's
IdealGasConstPressureReactor written out (docs/chemistry.md).

State x = (T, Y_1 .. Y_K): the temperature in K, then the mass fractions in
the mechanism's species order; time in s. Parameters: P (Pa), T0 (K) and
phi (the equivalence ratio of --fuel in --oxidizer), the last two for the
start state only (the model's initial()). The equations:

    dY_k/dt = W_k wdot_k / rho
    dT/dt   = -(sum_k h_k wdot_k) / (rho c_p)

with rho = P W / (R T), 1/W = sum Y_k / W_k, C_k = rho Y_k / W_k (mol/m^3),
h_k the molar enthalpies and c_p the mixture's specific heat from the NASA
7-coefficient polynomials, and wdot_k = sum_i nu_ki q_i over the reactions:
modified Arrhenius k = A T^b exp(-Ea/RT), third bodies with efficiencies,
falloff (Lindemann, Troe) with the same collider sums, duplicates as they
come, reverse rates of reversible reactions from the equilibrium constant
K_c = exp(-sum nu g/RT) (P0/RT)^(sum nu), P0 = 1 atm (Cantera's reference
pressure of NASA7 thermo). Everything is converted to SI with mol.

Usage: mech2picard.py MECH.yaml -o models/NAME.cu [options]; --help for
the options. Refuses (exit 2, a message naming the problem, no output file
written) an unparsable file, an unknown element, a species without thermo
(or with thermo it cannot use), a reaction type it does not support, a
species count past the stiff per-thread schemes' limit on the GPU (radau5:
dim = K + 1 <= 128, src/schemes/radau5/cuda_radau5.c; --cpu-only lifts it).
Python 3 and python3-yaml only.
"""
import argparse
import math
import os
import re
import sys
import tempfile
import textwrap

try:
    import yaml
    import yaml12
except ImportError:  # pragma: no cover - the build installs python3-yaml
    sys.stderr.write("mech2picard: error: python3-yaml is missing "
                     "(apt-get install python3-yaml)\n")
    sys.exit(2)

# SI constants, as Cantera defines them (include/cantera/base/ct_defs.h)
AVOGADRO = 6.02214076e23            # 1/mol
GAS_CONSTANT = AVOGADRO * 1.380649e-23  # J/(mol K)
ONE_ATM = 101325.0                  # Pa
CALORIE = 4.184                     # J
ELECTRON_VOLT = 1.602176634e-19     # J

# Atomic weights in g/mol, Cantera's table (src/thermo/Elements.cpp)
ATOMIC_WEIGHTS = {
    "H": 1.008, "D": 2.014102, "He": 4.002602, "Li": 6.94, "Be": 9.0121831,
    "B": 10.81, "C": 12.011, "N": 14.007, "O": 15.999, "F": 18.998403163,
    "Ne": 20.1797, "Na": 22.98976928, "Mg": 24.305, "Al": 26.9815384,
    "Si": 28.085, "P": 30.973761998, "S": 32.06, "Cl": 35.45, "Ar": 39.95,
    "K": 39.0983, "Ca": 40.078, "Ti": 47.867, "Cr": 51.9961, "Mn": 54.938043,
    "Fe": 55.845, "Co": 58.933194, "Ni": 58.6934, "Cu": 63.546, "Zn": 65.38,
    "Br": 79.904, "Kr": 83.798, "I": 126.90447, "Xe": 131.293,
    "E": 5.485799090e-4,
}

# The largest dim (K + 1) the stiff per-thread scheme runs on the GPU in
# double: radau5 holds four dim x dim matrices a thread in local memory,
# which CUDA caps at 512 KB (src/schemes/radau5/cuda_radau5.c).
GPU_MAX_DIM = 128
# Past this dim the per-thread LU no longer stays in registers (issue 38:
# "stiff systems stop at about 10 to 16 components"): it runs, slower.
REGISTER_DIM = 16


class Refusal(Exception):
    """Input the converter will not turn into a model; the message says why."""


# ---------------------------------------------------------------- reading

def read_yaml(path):
    try:
        with open(path, encoding="utf-8") as stream:
            doc = yaml12.load(stream)
    except OSError as err:
        raise Refusal("cannot read %s: %s" % (path, err.strerror))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = " at line %d, column %d" % (mark.line + 1, mark.column + 1) if mark else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise Refusal("%s is not valid YAML%s: %s" % (path, where, problem))
    if not isinstance(doc, dict) or "phases" not in doc or "species" not in doc:
        raise Refusal("%s is not a Cantera YAML mechanism: it needs 'phases' and "
                      "'species' sections" % path)
    return doc


def number(value, what):
    """A plain number of the file; a value with units ('1e13 cm^3/mol/s')
    is refused rather than guessed."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refusal("%s: %r is not a plain number (values with their own units "
                      "are not supported: give the file's 'units' instead)" % (what, value))
    if not math.isfinite(value):
        raise Refusal("%s: %r is not finite" % (what, value))
    return float(value)


class Units:
    """The file's units (its top-level 'units' map; Cantera's defaults, SI
    with kmol, where absent), as factors to SI with mol."""
    LENGTH = {"m": 1.0, "cm": 1e-2, "mm": 1e-3}
    QUANTITY = {"mol": 1.0, "kmol": 1e3, "gmol": 1.0, "molec": 1.0 / AVOGADRO,
                "molecule": 1.0 / AVOGADRO}
    ENERGY = {"J/mol": 1.0, "kJ/mol": 1e3, "J/kmol": 1e-3, "cal/mol": CALORIE,
              "kcal/mol": 1e3 * CALORIE, "K": GAS_CONSTANT, "eV": ELECTRON_VOLT * AVOGADRO}
    TIME = {"s": 1.0, "ms": 1e-3, "min": 60.0}

    def __init__(self, spec):
        spec = spec or {}
        if not isinstance(spec, dict):
            raise Refusal("'units' must be a map, such as {length: cm, quantity: mol}")
        for key in spec:
            if key not in ("length", "time", "quantity", "activation-energy", "energy",
                           "pressure", "mass", "temperature"):
                raise Refusal("units: unknown key '%s'" % key)
        self.length = self.pick(self.LENGTH, spec.get("length", "m"), "length")
        self.quantity = self.pick(self.QUANTITY, spec.get("quantity", "kmol"), "quantity")
        self.time = self.pick(self.TIME, spec.get("time", "s"), "time")
        self.energy = self.pick(self.ENERGY, spec.get("activation-energy", "J/kmol"),
                                "activation-energy")
        if spec.get("temperature", "K") != "K":
            raise Refusal("units: temperature must be K")

    @staticmethod
    def pick(table, name, what):
        if name not in table:
            raise Refusal("units: %s '%s' is not supported (known: %s)"
                          % (what, name, ", ".join(sorted(table))))
        return table[name]

    def rate_factor(self, order):
        """A of a rate of reaction order n: (length^3/quantity)^(n-1)/time."""
        return (self.length ** 3 / self.quantity) ** (order - 1) / self.time

    def ea_over_r(self, ea):
        """Ea in the file's units as Ea/R in K."""
        return ea * self.energy / GAS_CONSTANT


def composition(text, what):
    """'H2:1, O2:1' or {H2: 1} as an ordered list of (name, amount)."""
    if isinstance(text, dict):
        items = list(text.items())
    else:
        items = []
        for part in str(text).split(","):
            if not part.strip():
                continue
            name, sep, amount = part.rpartition(":")
            if not sep:
                name, amount = part, "1"
            try:
                items.append((name.strip(), float(amount)))
            except ValueError:
                raise Refusal("%s: '%s' is not NAME:AMOUNT" % (what, part.strip()))
    return [(str(name), number(amount, "%s: %s" % (what, name))) for name, amount in items]


class Species:
    def __init__(self, entry, elements, extra_weights, index):
        self.name = str(entry.get("name"))
        self.index = index
        comp = entry.get("composition")
        if not isinstance(comp, dict) or not comp:
            raise Refusal("species %s: no composition" % self.name)
        self.composition = {}
        weight = 0.0
        for element, count in comp.items():
            element = str(element)
            count = number(count, "species %s: composition of %s" % (self.name, element))
            if element not in elements:
                raise Refusal("species %s: unknown element '%s' (the phase declares %s)"
                              % (self.name, element, ", ".join(elements)))
            if element in extra_weights:
                weight += count * extra_weights[element]
            elif element in ATOMIC_WEIGHTS:
                weight += count * ATOMIC_WEIGHTS[element]
            else:
                raise Refusal("species %s: unknown element '%s': no atomic weight (define it "
                              "in the file's 'elements' section)" % (self.name, element))
            self.composition[element] = count
        self.weight = weight * 1e-3  # kg/mol
        thermo = entry.get("thermo")
        if not isinstance(thermo, dict):
            raise Refusal("species %s: no thermo entry" % self.name)
        if thermo.get("model") != "NASA7":
            raise Refusal("species %s: thermo model '%s' is not supported (NASA7 only)"
                          % (self.name, thermo.get("model")))
        ranges = thermo.get("temperature-ranges")
        data = thermo.get("data")
        if not isinstance(ranges, list) or not isinstance(data, list) or \
                len(ranges) not in (2, 3) or len(data) != len(ranges) - 1:
            raise Refusal("species %s: NASA7 thermo needs 2 or 3 temperature-ranges and "
                          "one 7-coefficient set per range" % self.name)
        self.ranges = [number(t, "species %s: temperature-ranges" % self.name) for t in ranges]
        self.data = []
        for block in data:
            if not isinstance(block, list) or len(block) != 7:
                raise Refusal("species %s: a NASA7 set has 7 coefficients" % self.name)
            self.data.append([number(a, "species %s: NASA7 data" % self.name) for a in block])
        if len(self.data) == 1:
            self.data.append(self.data[0])
            self.ranges = [self.ranges[0], self.ranges[1], self.ranges[1]]
        p0 = thermo.get("reference-pressure", ONE_ATM)
        if isinstance(p0, str) or abs(number(p0, "species %s: reference-pressure"
                                              % self.name) - ONE_ATM) > 1e-6 * ONE_ATM:
            raise Refusal("species %s: a thermo reference pressure other than 1 atm is not "
                          "supported" % self.name)

    @property
    def tmid(self):
        return self.ranges[1]


def parse_side(text, species, equation):
    """'2 OH + M' -> ({'OH': 2}, third body) where third body is None, 'M'
    or ('+M' / '+NAME' in parentheses) the falloff collider."""
    stoich = {}
    third = None
    falloff = None
    text = text.strip()
    paren = re.search(r"\(\s*\+\s*([^)\s]+)\s*\)\s*$", text)
    if paren:
        falloff = paren.group(1)
        text = text[:paren.start()].strip()
    for term in re.split(r"\s+\+\s+", text):
        term = term.strip()
        if not term:
            raise Refusal("reaction '%s': an empty term" % equation)
        match = re.match(r"^(\d+(?:\.\d*)?|\.\d+)\s+(\S+)$", term)
        if match:
            coeff, name = float(match.group(1)), match.group(2)
        else:
            coeff, name = 1.0, term
        if name == "M":
            if third is not None:
                raise Refusal("reaction '%s': M appears twice on one side" % equation)
            third = "M"
            continue
        if name not in species:
            raise Refusal("reaction '%s': unknown species '%s'" % (equation, name))
        if coeff != int(coeff):
            raise Refusal("reaction '%s': non-integer stoichiometric coefficient %g is not "
                          "supported" % (equation, coeff))
        stoich[name] = stoich.get(name, 0) + int(coeff)
    return stoich, third, falloff


def arrhenius(spec, units, order, what):
    if not isinstance(spec, dict) or set(spec) - {"A", "b", "Ea"} or "A" not in spec:
        raise Refusal("%s: a rate constant is {A: ..., b: ..., Ea: ...}; got %r" % (what, spec))
    a = number(spec["A"], what + ": A")
    b = number(spec.get("b", 0), what + ": b")
    ea = number(spec.get("Ea", 0), what + ": Ea")
    if a < 0:
        raise Refusal("%s: negative A is not supported" % what)
    return (a * units.rate_factor(order), b, units.ea_over_r(ea))


class Reaction:
    def __init__(self, entry, number_, species, units):
        self.number = number_
        eq = entry.get("equation")
        if not isinstance(eq, str):
            raise Refusal("reaction %d: no equation" % number_)
        self.equation = eq
        what = "reaction %d '%s'" % (number_, eq)
        kind = entry.get("type", "elementary")
        if kind not in ("elementary", "three-body", "falloff"):
            raise Refusal("%s: reaction type '%s' is not supported (elementary, three-body "
                          "and falloff with Lindemann or Troe are)" % (what, kind))
        for key in entry:
            if key not in ("equation", "type", "rate-constant", "efficiencies",
                           "default-efficiency", "duplicate", "low-P-rate-constant",
                           "high-P-rate-constant", "Troe", "note", "id"):
                raise Refusal("%s: '%s' is not supported" % (what, key))
        if kind not in ("elementary", "three-body", "falloff"):
            raise Refusal("%s: reaction type '%s' is not supported (elementary, three-body "
                          "and falloff with Lindemann or Troe are)" % (what, kind))
        for arrow, reversible in (("<=>", True), ("=>", False), ("=", True)):
            if arrow in eq:
                left, right = eq.split(arrow, 1)
                self.reversible = reversible
                break
        else:
            raise Refusal("%s: no '<=>', '=>' or '=' in the equation" % what)
        self.reactants, third_l, fall_l = parse_side(left, species, eq)
        self.products, third_r, fall_r = parse_side(right, species, eq)
        if third_l != third_r or fall_l != fall_r:
            raise Refusal("%s: the third body must appear on both sides" % what)
        self.kind = kind
        self.collider = None        # falloff: '(+NAME)', a single species
        self.efficiencies = None    # index -> efficiency, or None: no third body
        self.default_efficiency = 1.0
        order = sum(self.reactants.values())
        if kind == "three-body" or (kind == "elementary" and third_l == "M"):
            if third_l != "M":
                raise Refusal("%s: a three-body reaction needs M on both sides" % what)
            self.kind = "three-body"
            self.rate = arrhenius(entry.get("rate-constant"), units, order + 1, what)
        elif kind == "falloff":
            if fall_l is None:
                raise Refusal("%s: a falloff reaction needs (+M) on both sides" % what)
            if "low-P-rate-constant" not in entry or "high-P-rate-constant" not in entry:
                raise Refusal("%s: falloff needs low-P-rate-constant and high-P-rate-constant"
                              % what)
            self.low = arrhenius(entry["low-P-rate-constant"], units, order + 1, what)
            self.high = arrhenius(entry["high-P-rate-constant"], units, order, what)
            self.troe = None
            if "Troe" in entry:
                troe = entry["Troe"]
                if not isinstance(troe, dict) or set(troe) - {"A", "T3", "T1", "T2"} or \
                        not {"A", "T3", "T1"} <= set(troe):
                    raise Refusal("%s: Troe needs A, T3, T1 (and optionally T2)" % what)
                self.troe = {k: number(v, what + ": Troe " + k) for k, v in troe.items()}
            if fall_l != "M":
                if fall_l not in species:
                    raise Refusal("%s: unknown collider '%s'" % (what, fall_l))
                self.collider = fall_l
        else:
            if "rate-constant" not in entry:
                raise Refusal("%s: no rate-constant" % what)
            self.rate = arrhenius(entry["rate-constant"], units, order, what)
        if self.kind in ("three-body", "falloff") and self.collider is None:
            self.default_efficiency = number(entry.get("default-efficiency", 1.0),
                                             what + ": default-efficiency")
            effs = entry.get("efficiencies", {}) or {}
            if not isinstance(effs, dict):
                raise Refusal("%s: efficiencies must be a map" % what)
            self.efficiencies = {}
            for name, eff in effs.items():
                if name not in species:
                    raise Refusal("%s: efficiency of undeclared species '%s'" % (what, name))
                self.efficiencies[name] = number(eff, "%s: efficiency of %s" % (what, name))
        elif "efficiencies" in entry and self.collider is not None:
            raise Refusal("%s: efficiencies with the explicit collider (+%s)"
                          % (what, self.collider))
        elif "efficiencies" in entry:
            raise Refusal("%s: efficiencies on a reaction without a third body" % what)


class Mechanism:
    def __init__(self, doc, path, phase_name=None):
        self.path = path
        phases = doc["phases"]
        if not isinstance(phases, list) or not phases:
            raise Refusal("%s: 'phases' must be a non-empty list" % path)
        phase = None
        for candidate in phases:
            if not isinstance(candidate, dict):
                continue
            if phase_name is None and candidate.get("thermo") == "ideal-gas":
                phase = candidate
                break
            if phase_name is not None and candidate.get("name") == phase_name:
                phase = candidate
                break
        if phase is None:
            raise Refusal("%s: no phase %s" % (path, "named '%s'" % phase_name if phase_name
                                                 else "with thermo: ideal-gas"))
        if phase.get("thermo") != "ideal-gas":
            raise Refusal("phase %s: thermo '%s' is not supported (ideal-gas only)"
                          % (phase.get("name"), phase.get("thermo")))
        self.phase = phase
        self.units = Units(doc.get("units"))
        elements = phase.get("elements")
        if not isinstance(elements, list) or not elements:
            raise Refusal("phase %s: no elements list" % phase.get("name"))
        self.elements = [str(e) for e in elements]
        extra = {}
        for entry in doc.get("elements", []) or []:
            if isinstance(entry, dict) and "symbol" in entry:
                extra[str(entry["symbol"])] = number(entry.get("atomic-weight"),
                                                     "element %s: atomic-weight" % entry["symbol"])
        for element in self.elements:
            if element not in ATOMIC_WEIGHTS and element not in extra:
                raise Refusal("phase %s: unknown element '%s'" % (phase.get("name"), element))
        self.element_weights = {e: extra.get(e, ATOMIC_WEIGHTS.get(e)) * 1e-3
                                for e in self.elements}
        entries = {}
        species_section = doc["species"]
        if not isinstance(species_section, list):
            raise Refusal("%s: 'species' must be a list" % path)
        for entry in species_section:
            if not isinstance(entry, dict) or "name" not in entry:
                raise Refusal("%s: a species entry without a name" % path)
            entries[str(entry["name"])] = entry
        names = phase.get("species", "all")
        if names == "all":
            names = list(entries)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise Refusal("phase %s: species must be 'all' or a list of names in this file"
                          % phase.get("name"))
        self.species = []
        for index, name in enumerate(names):
            if name not in entries:
                raise Refusal("species %s: declared by the phase, but the file has no entry "
                              "for it (its thermo is missing)" % name)
            self.species.append(Species(entries[name], self.elements, extra, index))
        if len(set(names)) != len(names):
            raise Refusal("phase %s: a species listed twice" % phase.get("name"))
        self.by_name = {s.name: s for s in self.species}
        kinetics = phase.get("kinetics")
        reactions = []
        if kinetics is not None:
            if kinetics != "gas":
                raise Refusal("phase %s: kinetics '%s' is not supported (gas only)"
                              % (phase.get("name"), kinetics))
            sections = phase.get("reactions", "all")
            if sections == "all":
                sections = ["reactions"]
            elif sections == "none":
                sections = []
            elif isinstance(sections, str):
                raise Refusal("phase %s: reactions '%s' is not supported ('all', 'none' or a "
                              "list of sections of this file)" % (phase.get("name"), sections))
            for section in sections:
                if not isinstance(section, str) or section not in doc:
                    raise Refusal("phase %s: reactions section '%s' is not in this file"
                                  % (phase.get("name"), section))
                if not isinstance(doc[section], list):
                    raise Refusal("%s: section '%s' must be a list" % (path, section))
                reactions.extend(doc[section])
        self.reactions = []
        for i, entry in enumerate(reactions):
            if not isinstance(entry, dict):
                raise Refusal("reaction %d: not a map" % (i + 1))
            self.reactions.append(Reaction(entry, i + 1, self.by_name, self.units))
        self.check_balance()

    def check_balance(self):
        for r in self.reactions:
            for element in self.elements:
                left = sum(n * self.by_name[s].composition.get(element, 0)
                           for s, n in r.reactants.items())
                right = sum(n * self.by_name[s].composition.get(element, 0)
                            for s, n in r.products.items())
                if abs(left - right) > 1e-9:
                    raise Refusal("reaction %d '%s': element %s is not balanced (%g against %g)"
                                  % (r.number, r.equation, element, left, right))


# ---------------------------------------------------------------- writing

def lit(value):
    """A double literal that round-trips; integers stay short."""
    if value == int(value) and abs(value) < 1e15:
        return "%d" % int(value)
    text = repr(float(value))
    return text


def rlit(value):
    """A literal cast to the real type, so float kernels stay float."""
    if value == int(value) and abs(value) < 1e6:
        return "%d" % int(value)
    return "(real)%s" % lit(value)


def product_terms(stoich, index_of):
    terms = []
    for name, n in stoich.items():
        terms.extend(["C[%d]" % index_of[name]] * n)
    return terms


def arrhenius_expr(rate):
    """k = A T^b exp(-Ea/RT) as code, in log space (one exp; no overflow of
    A T^b alone in float): exp(ln A + b ln T - (Ea/R) / T)."""
    a, b, ea_r = rate
    if a == 0:
        return "(real)0"
    if b == 0 and ea_r == 0:
        return rlit(a)
    terms = ["(real)%s" % lit(math.log(a))]
    if b in (1, -1):
        terms.append("%slogT" % ("-" if b < 0 else ""))
    elif b != 0:
        terms.append("(real)%s * logT" % lit(b))
    if ea_r != 0:
        terms.append("(real)%s * invT" % lit(-ea_r))
    return "exp(%s)" % " + ".join(terms).replace("+ -logT", "- logT")


def third_body_expr(r, mech, index_of):
    if r.collider is not None:
        return "C[%d]" % index_of[r.collider]
    terms = []
    default = r.default_efficiency
    if default != 0:
        terms.append("Ctot" if default == 1 else "%s * Ctot" % rlit(default))
    for name, eff in r.efficiencies.items():
        delta = eff - default
        if delta == 0:
            continue
        k = index_of[name]
        if delta == 1:
            terms.append("C[%d]" % k)
        elif delta == -1:
            terms.append("-C[%d]" % k)
        else:
            terms.append("%s * C[%d]" % (rlit(delta), k))
    if not terms:
        return "(real)0"
    return " + ".join(terms).replace("+ -", "- ")



# ------------------------------------------------- the analytic Jacobian

def net_stoichiometry(r):
    """nu_k = products' coefficient - reactants', in the rhs's order (the
    products first)."""
    nu = {}
    for s, n in r.products.items():
        nu[s] = nu.get(s, 0) + n
    for s, n in r.reactants.items():
        nu[s] = nu.get(s, 0) - n
    return nu


def accumulate(target, n, expr):
    """target += n * expr as code, for an integer n != 0."""
    if n == 1:
        return "%s += %s;" % (target, expr)
    if n == -1:
        return "%s -= %s;" % (target, expr)
    return "%s %s= %d * %s;" % (target, "+" if n > 0 else "-", abs(n), expr)


def arrhenius_dlog(rate):
    """d ln k / dT of k = A T^b exp(-Ea/RT) as code, (b + (Ea/R)/T) / T,
    or None where k does not depend on T."""
    a, b, ea_r = rate
    if a == 0 or (b == 0 and ea_r == 0):
        return None
    if ea_r == 0:
        return {1: "invT", -1: "-invT"}.get(b, "%s * invT" % rlit(b))
    if b == 0:
        return "%s * invT * invT" % rlit(ea_r)
    return "(%s + %s * invT) * invT" % (rlit(b), rlit(ea_r))


def third_body_parts(r, index_of):
    """The third body M = d Ctot + sum_k e_k C_k as (d, {k: e_k}): the share
    of Ctot = P/(RT) (which does not depend on the Y_k) and the species'
    extra efficiencies, as third_body_expr() writes M."""
    if r.collider is not None:
        return 0.0, {index_of[r.collider]: 1.0}
    extra = {}
    for name, eff in r.efficiencies.items():
        if eff != r.default_efficiency:
            extra[index_of[name]] = eff - r.default_efficiency
    return r.default_efficiency, extra


def product_derivatives(stoich, index_of):
    """{k: code of d(prod_s C_s^n_s)/dC_k} for the species of one side."""
    terms = product_terms(stoich, index_of)
    out = {}
    for name, n in stoich.items():
        k = index_of[name]
        rest = list(terms)
        rest.remove("C[%d]" % k)
        expr = " * ".join(rest)
        if not rest:
            expr = "%d" % n
        elif n > 1:
            expr = "%d * %s" % (n, expr)
        out[k] = expr
    return out


def scaled(coeff, expr):
    """coeff * expr as code (coeff a float)."""
    if coeff == 1:
        return expr
    if coeff == -1:
        return "-" + expr
    return "%s * %s" % (rlit(coeff), expr)


def troe_lines(troe):
    """Troe's broadening, from Fcent to kf, as lines of code (rhs and
    jacobian alike): F = Fcent^(1 / (1 + f1^2)), Gilbert, Luther & Troe."""
    return [
        "const real Fcent = %s;" % " + ".join(t for t, _ in troe_terms(troe)),
        "const real logFc = log(Fcent) * %s;" % rlit(1 / math.log(10)),
        "const real lpr = (Pr > (real)1e-30 ? log(Pr) : log((real)1e-30)) * %s;"
        % rlit(1 / math.log(10)),
        "const real cc = %s - %s * logFc, nn = %s - %s * logFc;"
        % (rlit(-0.4), rlit(0.67), rlit(0.75), rlit(1.27)),
        "const real f1 = (lpr + cc) / (nn - %s * (lpr + cc));" % rlit(0.14),
        "const real F = exp(%s * logFc / (1 + f1 * f1));" % rlit(math.log(10)),
        "const real kf = kinf * (Pr / (1 + Pr)) * F;",
    ]


def troe_terms(troe):
    """Fcent = sum of terms, each (code, code of its T derivative or None)."""
    terms = []
    if troe["A"] != 1:
        rate = -1 / troe["T3"] if troe["T3"] != 0 else 0
        term = "%s * exp(%s * T)" % (rlit(1 - troe["A"]), rlit(rate) if rate else "0")
        terms.append((term, "%s * %s" % (rlit(rate), term) if rate else None))
    if troe["A"] != 0:
        rate = -1 / troe["T1"] if troe["T1"] != 0 else 0
        term = "%s * exp(%s * T)" % (rlit(troe["A"]), rlit(rate) if rate else "0")
        terms.append((term, "%s * %s" % (rlit(rate), term) if rate else None))
    if "T2" in troe:
        term = "exp(%s * invT)" % rlit(-troe["T2"])
        terms.append((term, "%s * invT * invT * %s" % (rlit(troe["T2"]), term)))
    return terms


def jacobian_reaction(r, index_of, dim):
    """One reaction's share of the Jacobian's pieces (jacobian_lines()):
    its rate of progress q added to wdot, dq/dT at fixed concentrations to
    dwdT, dq/dC_k to J's species block."""
    lines = []
    w = lines.append
    nu = net_stoichiometry(r)
    w("{ /* %d: %s */" % (r.number, r.equation.replace("*/", "* /")))
    dfwd = product_derivatives(r.reactants, index_of)
    drev = product_derivatives(r.products, index_of) if r.reversible else {}
    if r.kind in ("three-body", "falloff"):
        share, extra = third_body_parts(r, index_of)
        w("\tconst real M = %s;" % third_body_expr(r, None, index_of))
        w("\tconst real dM = %s; /* dM/dT: Ctot = P/(RT) */"
          % (scaled(-share, "Ctot * invT") if share else "0"))
    if r.kind == "falloff":
        dlk0, dlkinf = arrhenius_dlog(r.low), arrhenius_dlog(r.high)
        w("\tconst real k0 = %s, kinf = %s;" % (arrhenius_expr(r.low), arrhenius_expr(r.high)))
        w("\tconst real Pr = k0 * M / kinf;")
        w("\t/* d ln k0/dT, d ln kinf/dT; dPr/dT at fixed C */")
        w("\tconst real dlk0 = %s, dlkinf = %s;" % (dlk0 or "0", dlkinf or "0"))
        w("\tconst real dPr = Pr * (dlk0 - dlkinf) + k0 * dM / kinf;")
        if r.troe:
            dterms = [d for _, d in troe_terms(r.troe) if d]
            broadening = troe_lines(r.troe)
            broadening.insert(1, "const real dFcent = %s;"
                              % (" + ".join(dterms) if dterms else "0"))
            for line in broadening:
                w("\t" + line)
            w("\t/* log10 F = logFc / (1 + f1^2), f1 = u / den: its derivatives in")
            w("\t * lpr = log10 Pr (0 where lpr is clamped) and in logFc */")
            w("\tconst real u = lpr + cc, den = nn - %s * u, g = 1 / (1 + f1 * f1);"
              % rlit(0.14))
            w("\tconst real dlogF_dlpr = Pr > (real)1e-30 ? -2 * logFc * f1 * g * g * nn / "
              "(den * den) : (real)0;")
            w("\tconst real dlogF_dlogFc = g - 2 * logFc * f1 * g * g * (%s * u - %s * den) / "
              "(den * den);" % (rlit(1.27 - 0.14 * 0.67), rlit(0.67)))
            w("\tconst real dkf_dPr = kinf * F / (1 + Pr) * (1 / (1 + Pr) + dlogF_dlpr);")
            w("\tconst real dkf = kf * (dlkinf + dlogF_dlogFc * dFcent / Fcent) + "
              "dkf_dPr * dPr;")
        else:
            w("\tconst real kf = kinf * (Pr / (1 + Pr));")
            w("\tconst real dkf_dPr = kinf / ((1 + Pr) * (1 + Pr));")
            w("\tconst real dkf = kf * dlkinf + dkf_dPr * dPr;")
        w("\tconst real dkf_dM = dkf_dPr * k0 / kinf;")
    else:
        rate = r.rate
        dlk = arrhenius_dlog(rate)
        w("\tconst real kf = %s;" % arrhenius_expr(rate))
        w("\tconst real dkf = %s;" % ("kf * " + dlk if dlk else "0"))
    fwd = " * ".join(product_terms(r.reactants, index_of)) or "1"
    w("\tconst real fwd = %s;" % fwd)
    if r.reversible:
        rev = " * ".join(product_terms(r.products, index_of)) or "1"
        w("\tconst real rev = %s;" % rev)
        # kr = kf exp(G), G = sum nu g/RT - dn log(P0/RT); dG/dT = (dn - sum nu h/RT) / T
        w("\tconst real E = exp(%s);" % gibbs_expr(nu, index_of))
        dn = sum(nu.values())
        hterms = " ".join(accumulate_term(n, "hRT[%d]" % index_of[s])
                          for s, n in nu.items() if n)
        dg = ("%d - (%s)" % (dn, hterms.lstrip("+ ")) if dn else "-(%s)" % hterms.lstrip("+ "))
        w("\tconst real kr = kf * E, dkr = (dkf + kf * (%s) * invT) * E;" % dg)
        w("\tconst real q0 = kf * fwd - kr * rev, dq0 = dkf * fwd - dkr * rev;")
    else:
        w("\tconst real q0 = kf * fwd, dq0 = dkf * fwd;")
    dq = {}
    for k, expr in dfwd.items():
        dq.setdefault(k, []).append("kf" if expr == "1" else "kf * " + expr)
    for k, expr in drev.items():
        dq.setdefault(k, []).append("-kr" if expr == "1" else "-kr * " + expr)
    if r.kind == "three-body":
        w("\tconst real q = M * q0, dqdT = M * dq0 + dM * q0;")
        for k in dq:
            dq[k] = ["M * (%s)" % " + ".join(dq[k]).replace("+ -", "- ")]
        for k, e in extra.items():
            dq.setdefault(k, []).append(scaled(e, "q0"))
    else:
        w("\tconst real q = q0, dqdT = dq0;")
        if r.kind == "falloff":
            w("\tconst real dq_dM = dkf_dM * (fwd%s);" % (" - E * rev" if r.reversible else ""))
            for k, e in extra.items():
                dq.setdefault(k, []).append(scaled(e, "dq_dM"))
    for k in sorted(dq):
        w("\tconst real dq_dC%d = %s;" % (k, " + ".join(dq[k]).replace("+ -", "- ")))
    for s, n in nu.items():
        if n == 0:
            continue
        m = index_of[s]
        w("\t" + accumulate("wdot[%d]" % m, n, "q"))
        w("\t" + accumulate("dwdT[%d]" % m, n, "dqdT"))
        for k in sorted(dq):
            w("\t" + accumulate("J[%d * %d + %d]" % (m + 1, dim, k + 1), n, "dq_dC%d" % k))
    w("}")
    return lines


def accumulate_term(n, expr):
    """'+ expr', '- 2 * expr': a term of a sum with integer coefficient n."""
    if n == 1:
        return "+ " + expr
    if n == -1:
        return "- " + expr
    return "%s %d * %s" % ("+" if n > 0 else "-", abs(n), expr)


def gibbs_expr(nu, index_of):
    """G = sum nu g/RT - dn log(P0/RT) as code: kr = kf exp(G)."""
    gterms = []
    for s, n in nu.items():
        if n:
            gterms.append(accumulate_term(n, "gRT[%d]" % index_of[s]))
    dn = sum(nu.values())
    if dn != 0:
        gterms.append("%s %slogP0RT" % ("-" if dn > 0 else "+",
                                        "" if abs(dn) == 1 else "%d * " % abs(dn)))
    expr = " ".join(gterms).lstrip("+ ").strip()
    if expr.startswith("- "):
        expr = "-" + expr[2:]
    return expr or "(real)0"



def jacobian_lines(mech, index_of, thermo):
    """The model's jacobian(): J = d(dT/dt, dY_k/dt)/d(T, Y_j), row-major,
    by the chain rule through the concentrations (docs/chemistry.md):
      - per reaction, its rate of progress q, dq/dT at fixed C and dq/dC_k
        (jacobian_reaction()), summed into wdot, dwdT and the species block
        of J as Jc[m][k] = d wdot_m/dC_k;
      - C_k = rho Y_k / W_k with rho = Ctot / invW, Ctot = P/(RT),
        invW = sum Y_j / W_j: dC_k/dY_j = rho delta_kj / W_k - C_k / (W_j invW),
        dC_k/dT = -C_k / T; so with s_m = sum_k Jc[m][k] C_k,
        d wdot_m/dY_j = (rho Jc[m][j] - s_m / invW) / W_j and
        d wdot_m/dT = dwdT_m - s_m / T;
      - dY_m/dt = W_m wdot_m / rho and dT/dt = -(sum h_m wdot_m) / (rho c_p),
        h_m = R T hRT_m, d(h_m/R)/dT = cp_m/R, c_p = R sum Y_j cpR_j / W_j.
    thermo: thermo_block()'s lines setting cpR, hRT, gRT and dcpR."""
    K = len(mech.species)
    dim = K + 1
    lines = []
    w = lines.append
    w("\t/* J = d(dT/dt, dY_k/dt) / d(T, Y_j), row-major, analytic: the rates of")
    w("\t * progress differentiated in T (rate constants, falloff, equilibrium")
    w("\t * constants) and in the concentrations C_k = rho Y_k / W_k, chained")
    w("\t * through rho = P W / (R T) and the energy equation (mech2picard.py's")
    w("\t * jacobian_lines()). Held against the automatic Jacobian (dual numbers")
    w("\t * through rhs) by tests/model/test_jacobian.c and tests/chem. */")
    w("\ttemplate <typename real>")
    w("\t__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)")
    w("\t{")
    w("\t\tconst real T = x[0], logT = log(T), invT = 1 / T;")
    w("\t\tconst real weight[%d] = {%s}; /* W_k, kg/mol */"
      % (K, ", ".join(rlit(s.weight) for s in mech.species)))
    w("\t\tconst real per_weight[%d] = {%s}; /* 1 / W_k */"
      % (K, ", ".join(rlit(1 / s.weight) for s in mech.species)))
    w("\t\treal C[%d], hRT[%d], cpR[%d], gRT[%d], dcpR[%d], wdot[%d], dwdT[%d], s[%d];"
      % ((K,) * 8))
    w("")
    w("\t\treal invW = 0;")
    w("\t\tfor (int k = 0; k < %d; k++)" % K)
    w("\t\t\tinvW += x[k + 1] * per_weight[k];")
    w("\t\tconst real Ctot = p[0] / (%s * T);" % rlit(GAS_CONSTANT))
    w("\t\tconst real rho = Ctot / invW;")
    w("\t\tfor (int k = 0; k < %d; k++)" % K)
    w("\t\t\tC[k] = rho * x[k + 1] * per_weight[k];")
    w("")
    w("\t\t/* NASA7: cp/R, h/RT, g/RT, d(cp/R)/dT */")
    lines.extend(thermo)
    w("\t\tconst real logP0RT = %s - logT;" % rlit(math.log(ONE_ATM / GAS_CONSTANT)))
    w("")
    w("\t\t/* wdot, dwdT = d wdot/dT at fixed C, and Jc[m][k] = d wdot_m / dC_k")
    w("\t\t * in J's species block, J[(m + 1) * %d + k + 1] */" % dim)
    w("\t\tfor (int i = 0; i < %d; i++)" % (dim * dim))
    w("\t\t\tJ[i] = 0;")
    w("\t\tfor (int k = 0; k < %d; k++)" % K)
    w("\t\t\twdot[k] = dwdT[k] = 0;")
    for r in mech.reactions:
        lines.extend("\t\t" + line for line in jacobian_reaction(r, index_of, dim))
    w("")
    w("\t\t/* s_m = sum_k Jc[m][k] C_k; e_j = sum_m (h_m/R) Jc[m][j] into row 0")
    w("\t\t * for now, S = sum_m (h_m/R) s_m */")
    w("\t\treal S = 0;")
    w("\t\tfor (int m = 0; m < %d; m++) {" % K)
    w("\t\t\tconst real hm = T * hRT[m];")
    w("")
    w("\t\t\ts[m] = 0;")
    w("\t\t\tfor (int k = 0; k < %d; k++) {" % K)
    w("\t\t\t\ts[m] += J[(m + 1) * %d + k + 1] * C[k];" % dim)
    w("\t\t\t\tJ[k + 1] += hm * J[(m + 1) * %d + k + 1];" % dim)
    w("\t\t\t}")
    w("\t\t\tS += hm * s[m];")
    w("\t\t}")
    w("")
    w("\t\t/* row 0: f0 = -H / (rho cp), H = sum_m (h_m/R) wdot_m, cp/R per kg */")
    w("\t\treal cp = 0, dcp = 0, hw = 0, dH = 0;")
    w("\t\tfor (int k = 0; k < %d; k++) {" % K)
    w("\t\t\tcp += x[k + 1] * cpR[k] * per_weight[k];")
    w("\t\t\tdcp += x[k + 1] * dcpR[k] * per_weight[k];")
    w("\t\t\thw += hRT[k] * wdot[k];")
    w("\t\t\tdH += cpR[k] * wdot[k] + T * hRT[k] * (dwdT[k] - s[k] * invT);")
    w("\t\t}")
    w("\t\tconst real f0 = -hw * T / (rho * cp);")
    w("\t\tJ[0] = -dH / (rho * cp) - f0 * (dcp / cp - invT);")
    w("\t\tfor (int j = 0; j < %d; j++)" % K)
    w("\t\t\tJ[j + 1] = -per_weight[j] * ((J[j + 1] - S / Ctot) / cp +")
    w("\t\t\t\t\t\t  f0 * (cpR[j] / cp - 1 / invW));")
    w("")
    w("\t\t/* rows 1..K: f_m = W_m wdot_m / rho */")
    w("\t\tfor (int m = 0; m < %d; m++) {" % K)
    w("\t\t\tconst real excess = wdot[m] - s[m];")
    w("")
    w("\t\t\tJ[(m + 1) * %d] = weight[m] / rho * (dwdT[m] + excess * invT);" % dim)
    w("\t\t\tfor (int j = 0; j < %d; j++)" % K)
    w("\t\t\t\tJ[(m + 1) * %d + j + 1] = weight[m] * per_weight[j] *" % dim)
    w("\t\t\t\t\t\t\t  (J[(m + 1) * %d + j + 1] + excess / Ctot);" % dim)
    w("\t\t}")
    w("\t}")
    return lines


def generate(mech, name, args, source_note):
    K = len(mech.species)
    dim = K + 1
    index_of = {s.name: s.index for s in mech.species}
    out = []
    w = out.append
    sp_list = ", ".join(s.name for s in mech.species)

    fuel = composition(args.fuel, "--fuel")
    oxid = composition(args.oxidizer, "--oxidizer")
    for label, comp in (("--fuel", fuel), ("--oxidizer", oxid)):
        for sname, amount in comp:
            if sname not in index_of:
                raise Refusal("%s: species '%s' is not in the mechanism (it has %s)"
                              % (label, sname, sp_list))
            if amount < 0:
                raise Refusal("%s: negative amount of %s" % (label, sname))

    def oxygen_balance(comp):
        total = 0.0
        for sname, amount in comp:
            c = mech.by_name[sname].composition
            total += amount * (c.get("O", 0) - 2 * c.get("C", 0) - 0.5 * c.get("H", 0)
                               - 2 * c.get("S", 0))
        return total
    need = -oxygen_balance(fuel)
    supply = oxygen_balance(oxid)
    if need <= 0 or supply <= 0:
        raise Refusal("--fuel %s in --oxidizer %s: no stoichiometric mixture (the fuel "
                      "must need oxygen and the oxidizer supply it)" % (args.fuel, args.oxidizer))
    stoich_ox = need / supply  # moles of oxidizer per mole of fuel at phi = 1
    fuel_norm = sum(a for _, a in fuel)
    oxid_norm = sum(a for _, a in oxid)
    fuel_x = [0.0] * K
    oxid_x = [0.0] * K
    for sname, amount in fuel:
        fuel_x[index_of[sname]] += amount / fuel_norm
    for sname, amount in oxid:
        oxid_x[index_of[sname]] += amount / oxid_norm
    stoich_ox *= oxid_norm / fuel_norm  # per normalised mole of each

    def start_state(phi):
        x = [phi * f + stoich_ox * o for f, o in zip(fuel_x, oxid_x)]
        mass = [xi * s.weight for xi, s in zip(x, mech.species)]
        total = sum(mass)
        return [m / total for m in mass]

    y0 = start_state(args.phi)

    # header comment: the description picard-run --describe prints
    head = ("%s.cu - %s: an adiabatic constant-pressure ideal-gas reactor, %d species, "
            "%d reactions, generated by tools/mech2picard/mech2picard.py from %s (%s). "
            "Do not edit: regenerate it (docs/chemistry.md)."
            % (name, args.title or "chemical kinetics", K, len(mech.reactions),
               os.path.basename(mech.path), source_note.replace("*/", "* /")))
    for i, line in enumerate(textwrap.wrap(head, 72, break_on_hyphens=False)):
        w(("/* " if i == 0 else " * ") + line)
    w(" *")
    w(" * State x = (T, Y_1 .. Y_%d): temperature in K, then the mass fractions of" % K)
    w(" *\t" + sp_list)
    w(" * (x[1] .. x[%d]); time in s. Parameters: P, the pressure in Pa (held" % K)
    w(" * constant); T0 (K) and phi, the start state only: --fuel %s in" % args.fuel)
    w(" * --oxidizer %s at equivalence ratio phi, at T0 (initial())." % args.oxidizer)
    w(" *")
    w(" *\tdY_k/dt = W_k wdot_k / rho,  dT/dt = -(sum_k h_k wdot_k) / (rho c_p)")
    w(" *")
    w(" * rho = P W / (R T), 1/W = sum_k Y_k / W_k, C_k = rho Y_k / W_k (mol/m^3);")
    w(" * h_k, c_p from NASA 7-coefficient polynomials; wdot_k = sum_i nu_ki q_i,")
    w(" * reverse rates from K_c = exp(-sum nu g/RT) (P0/RT)^(sum nu), P0 = 1 atm;")
    w(" * SI units with mol. What Cantera's IdealGasConstPressureReactor integrates.")
    w(" * Invariants: the mass (sum Y_k = 1), each element's mass fraction, the")
    w(" * mixture's specific enthalpy (J/kg).")
    if args.jacobian == "analytic":
        w(" * The Jacobian is written out (jacobian(), below), held against picard's")
        w(" * automatic one (forward-mode dual numbers, src/model/dual.cuh).")
    else:
        w(" * No jacobian(): picard differentiates rhs itself (forward-mode dual")
        w(" * numbers, src/model/dual.cuh).")
    w(" *")
    w(" * Reactions (number in the file: equation, kind):")
    for r in mech.reactions:
        kind = r.kind if r.kind != "falloff" else ("falloff, Troe" if r.troe else
                                                   "falloff, Lindemann")
        w(" *\t%d: %s (%s%s)" % (r.number, r.equation.replace("*/", "* /"), kind,
                                ", irreversible" if not r.reversible else ""))
    w(" */")
    w('#include "picard_model.cuh"')
    w("")
    w("struct %s {" % name)
    w("\tstatic constexpr int dim = %d, nparams = 3;" % dim)
    w('\tstatic constexpr const char *param_names[] = {"P", "T0", "phi"};')
    w("\tstatic constexpr double param_defaults[] = {%s, %s, %s};"
      % (lit(args.P), lit(args.T0), lit(args.phi)))
    w("\tstatic constexpr double x0[] = {")
    w("\t\t%s," % lit(args.T0))
    for k, s in enumerate(mech.species):
        w("\t\t%s%s /* %s */" % (repr(y0[k]), "," if k < K - 1 else "", s.name))
    w("\t};")
    w("\tstatic constexpr double t0 = 0, t1 = %s;" % lit(args.t1))
    w("\tstatic constexpr double default_h = %s;" % lit(args.t1 / 1000))
    w("\t/* the radicals before ignition, 1e-20 to 1e-6 of the mass, set when it")
    w("\t * ignites: an atol above them leaves them uncontrolled (docs/chemistry.md) */")
    w("\tstatic constexpr double default_atol = 1e-20;")
    w("\tstatic constexpr bool stiff = true;")
    w('\tstatic constexpr const char *summary =\n\t\t"constant-pressure reactor, %d species: '
      'dY_k/dt = W_k wdot_k / rho, dT/dt = -sum h_k wdot_k / (rho c_p)";' % K)
    w('\tstatic constexpr const char *reference =\n\t\t"%s";'
      % source_note.replace('"', "'"))
    names = ["mass"] + ["Z_" + e for e in mech.elements] + ["enthalpy"]
    w("\tstatic constexpr int ninvariants = %d;" % len(names))
    w("\tstatic constexpr const char *invariant_names[] = {%s};"
      % ", ".join('"%s"' % n for n in names))
    w("")

    # thermo: grouped by the polynomials' common temperature of switch
    def thermo_block(fields, indent):
        """Code setting the per-species NASA7 quantities named in fields
        ('cp': cp/R, 'h': h/RT, 'g': g/RT) for every species."""
        lines = []
        groups = {}
        for s in mech.species:
            groups.setdefault(s.tmid, []).append(s)
        for tmid, members in groups.items():
            lines.append("%sif (T < %s) {" % (indent, rlit(tmid)))
            for which, tail in ((0, "} else {"), (1, "}")):
                for s in members:
                    a = s.data[which]
                    k = s.index
                    if "cp" in fields:
                        lines.append("%s\tcpR[%d] = %s;" % (indent, k, poly_cp(a)))
                    if "h" in fields:
                        lines.append("%s\thRT[%d] = %s;" % (indent, k, poly_h(a)))
                    if "g" in fields:
                        lines.append("%s\tgRT[%d] = %s;" % (indent, k, poly_g(a)))
                    if "dcp" in fields:
                        lines.append("%s\tdcpR[%d] = %s;" % (indent, k, poly_dcp(a)))
                lines.append("%s%s" % (indent, tail))
        return lines

    def horner(coeffs, var="T"):
        """c0 + c1 T + c2 T^2 + ... in Horner's form."""
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs = coeffs[:-1]
        expr = rlit(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            expr = "%s + %s * (%s)" % (rlit(c), var, expr) if c != 0 else "%s * (%s)" % (var, expr)
        return expr

    def poly_cp(a):
        return horner([a[0], a[1], a[2], a[3], a[4]])

    def poly_dcp(a):
        # d(cp/R)/dT = a1 + 2 a2 T + 3 a3 T^2 + 4 a4 T^3
        return horner([a[1], 2 * a[2], 3 * a[3], 4 * a[4]])

    def poly_h(a):
        # h/RT = a0 + a1 T/2 + a2 T^2/3 + a3 T^3/4 + a4 T^4/5 + a5/T
        return "%s + %s * invT" % (horner([a[0], a[1] / 2, a[2] / 3, a[3] / 4, a[4] / 5]),
                                   rlit(a[5]))

    def poly_g(a):
        # g/RT = h/RT - s/R, s/R = a0 lnT + a1 T + a2 T^2/2 + a3 T^3/3 + a4 T^4/4 + a6
        poly = horner([a[0] - a[6], -a[1] / 2, -a[2] / 6, -a[3] / 12, -a[4] / 20])
        return "%s + %s * invT - %s * logT" % (poly, rlit(a[5]), rlit(a[0]))

    # rhs
    w("\t/* dxdt = f(t, x; P) */")
    w("\ttemplate <typename real>")
    w("\t__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)")
    w("\t{")
    w("\t\tconst real T = x[0], logT = log(T), invT = 1 / T;")
    w("\t\treal C[%d], hRT[%d], cpR[%d], gRT[%d], wdot[%d];" % (K, K, K, K, K))
    w("")
    w("\t\t/* 1/W = sum Y_k / W_k; Ctot = P / (R T) in mol/m^3 */")
    terms = " + ".join("x[%d] * %s" % (k + 1, rlit(1 / s.weight)) for k, s in enumerate(mech.species))
    w("\t\tconst real invW = %s;" % terms)
    w("\t\tconst real Ctot = p[0] / (%s * T);" % rlit(GAS_CONSTANT))
    w("\t\tconst real rho = Ctot / invW;")
    for k, s in enumerate(mech.species):
        w("\t\tC[%d] = rho * x[%d] * %s; /* %s */" % (k, k + 1, rlit(1 / s.weight), s.name))
    w("")
    w("\t\t/* NASA7: cp/R, h/RT, g/RT */")
    out.extend(thermo_block(("cp", "h", "g"), "\t\t"))
    w("\t\t/* log(P0 / (R T)): P0 = 1 atm, for K_c */")
    w("\t\tconst real logP0RT = %s - logT;" % rlit(math.log(ONE_ATM / GAS_CONSTANT)))
    w("")
    w("\t\tfor (int k = 0; k < %d; k++)" % K)
    w("\t\t\twdot[k] = 0;")
    for r in mech.reactions:
        fwd = product_terms(r.reactants, index_of)
        rev = product_terms(r.products, index_of)
        w("\t\t{ /* %d: %s */" % (r.number, r.equation.replace("*/", "* /")))
        if r.kind == "falloff":
            w("\t\t\tconst real k0 = %s, kinf = %s;" % (arrhenius_expr(r.low),
                                                       arrhenius_expr(r.high)))
            w("\t\t\tconst real M = %s;" % third_body_expr(r, mech, index_of))
            w("\t\t\tconst real Pr = k0 * M / kinf;")
            if r.troe:
                for line in troe_lines(r.troe):
                    w("\t\t\t" + line)
            else:
                w("\t\t\tconst real kf = kinf * (Pr / (1 + Pr));")
            factor = None
        elif r.kind == "three-body":
            w("\t\t\tconst real M = %s;" % third_body_expr(r, mech, index_of))
            w("\t\t\tconst real kf = %s;" % arrhenius_expr(r.rate))
            factor = "M"
        else:
            w("\t\t\tconst real kf = %s;" % arrhenius_expr(r.rate))
            factor = None
        qf = " * ".join(["kf"] + fwd)
        if r.reversible:
            # kr = kf / Kc = kf exp(sum nu g/RT - dn log(P0/RT))
            expr = gibbs_expr(net_stoichiometry(r), index_of)
            w("\t\t\tconst real kr = kf * exp(%s);" % expr)
            qr = " * ".join(["kr"] + rev)
            q = "(%s - %s)" % (qf, qr)
        else:
            q = qf
        if factor:
            q = "%s * %s" % (factor, q)
        w("\t\t\tconst real q = %s;" % q)
        nu_all = {}
        for s, n in r.products.items():
            nu_all[s] = nu_all.get(s, 0) + n
        for s, n in r.reactants.items():
            nu_all[s] = nu_all.get(s, 0) - n
        for s, n in nu_all.items():
            if n == 0:
                continue
            k = index_of[s]
            if n == 1:
                w("\t\t\twdot[%d] += q;" % k)
            elif n == -1:
                w("\t\t\twdot[%d] -= q;" % k)
            elif n > 0:
                w("\t\t\twdot[%d] += %d * q;" % (k, n))
            else:
                w("\t\t\twdot[%d] -= %d * q;" % (k, -n))
        w("\t\t}")
    w("")
    w("\t\t/* c_p = R sum Y_k cp_k/R / W_k (J/(kg K)); sum h_k wdot_k / R T */")
    w("\t\treal cp = 0, hw = 0;")
    w("\t\tfor (int k = 0; k < %d; k++)" % K)
    w("\t\t\thw += hRT[k] * wdot[k];")
    for k, s in enumerate(mech.species):
        w("\t\tcp += x[%d] * cpR[%d] * %s;" % (k + 1, k, rlit(1 / s.weight)))
    w("\t\tdxdt[0] = -hw * T / (rho * cp);")
    for k, s in enumerate(mech.species):
        w("\t\tdxdt[%d] = wdot[%d] * %s / rho;" % (k + 1, k, rlit(s.weight)))
    w("\t}")
    w("")

    # jacobian
    if args.jacobian == "analytic":
        out.extend(jacobian_lines(mech, index_of, thermo_block(("cp", "h", "g", "dcp"),
                                                               "\t\t")))
        w("")

    # initial
    w("\t/* The start state from the parameters: T0, and --fuel in --oxidizer at")
    w("\t * equivalence ratio phi (mole amounts phi fuel + %s oxidizer). */" % repr(stoich_ox))
    w("\tstatic void initial(const double *p, double *x)")
    w("\t{")
    w("\t\tconst double phi = p[2];")
    w("\t\tdouble mass = 0;")
    w("")
    w("\t\tx[0] = p[1];")
    for k, s in enumerate(mech.species):
        f, o = fuel_x[k], oxid_x[k]
        if f == 0 and o == 0:
            w("\t\tx[%d] = 0;" % (k + 1))
            continue
        parts = []
        if f:
            parts.append("phi * %s" % lit(f))
        if o:
            parts.append(lit(stoich_ox * o))
        w("\t\tx[%d] = (%s) * %s; /* %s */" % (k + 1, " + ".join(parts), lit(s.weight), s.name))
    w("\t\tfor (int k = 1; k < dim; k++)")
    w("\t\t\tmass += x[k];")
    w("\t\tfor (int k = 1; k < dim; k++)")
    w("\t\t\tx[k] /= mass;")
    w("\t}")
    w("")

    # invariants
    w("\t/* sum Y_k; each element's mass fraction; the specific enthalpy (J/kg) */")
    w("\tstatic void invariants(const double *x, const double *, double *out)")
    w("\t{")
    w("\t\tconst double T = x[0], invT = 1 / T;")
    w("\t\tdouble hRT[%d], h = 0;" % K)
    w("")
    w("\t\tout[0] = 0;")
    w("\t\tfor (int k = 1; k < dim; k++)")
    w("\t\t\tout[0] += x[k];")
    for e_index, element in enumerate(mech.elements):
        terms = []
        for k, s in enumerate(mech.species):
            count = s.composition.get(element, 0)
            if count:
                terms.append("x[%d] * %s" % (k + 1, lit(count * mech.element_weights[element]
                                                       / s.weight)))
        w("\t\tout[%d] = %s; /* Z_%s */" % (e_index + 1, " + ".join(terms) if terms else "0",
                                          element))
    body = thermo_block(("h",), "\t\t")
    out.extend(line.replace("(real)", "") for line in body)
    for k, s in enumerate(mech.species):
        w("\t\th += x[%d] * hRT[%d] * %s;" % (k + 1, k, lit(1 / s.weight)))
    w("\t\tout[%d] = h * %s * T;" % (len(mech.elements) + 1, lit(GAS_CONSTANT)))
    w("\t}")
    w("};")
    w("")
    w("PICARD_REGISTER_MODEL(%s)" % name)
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="mech2picard.py",
        description="Turn a Cantera YAML mechanism into a picard model file: an "
        "adiabatic constant-pressure ideal-gas reactor, state (T, Y_1..Y_K).")
    parser.add_argument("mechanism", help="the mechanism, Cantera YAML (.yaml/.yml)")
    parser.add_argument("-o", "--output", required=True,
                        help="the model file to write, models/NAME.cu (NAME: [a-z][a-z0-9_]*)")
    parser.add_argument("--phase", help="the phase to take (default: the first ideal-gas one)")
    parser.add_argument("--fuel", default="H2:1", help="fuel, mole amounts (default H2:1)")
    parser.add_argument("--oxidizer", default="O2:1,N2:3.76",
                        help="oxidizer, mole amounts (default O2:1,N2:3.76, air)")
    parser.add_argument("--phi", type=float, default=1.0,
                        help="default equivalence ratio (default 1)")
    parser.add_argument("--T0", type=float, default=1000.0,
                        help="default start temperature in K (default 1000)")
    parser.add_argument("--P", type=float, default=ONE_ATM,
                        help="default pressure in Pa (default 101325)")
    parser.add_argument("--t1", type=float, default=1e-3,
                        help="end of the default span in s, from t0 = 0 (default 1e-3)")
    parser.add_argument("--title", help="a few words for the header comment")
    parser.add_argument("--source", help="where the mechanism comes from, for the "
                        "model's reference (default: the file's description)")
    parser.add_argument("--jacobian", choices=("analytic", "ad"), default="analytic",
                        help="analytic (default): write the model's jacobian(); ad: write "
                        "none, picard differentiates rhs with dual numbers")
    parser.add_argument("--cpu-only", action="store_true",
                        help="allow more species than the GPU's stiff per-thread scheme "
                        "holds (dim = K + 1 > %d): the model runs on the CPU backend"
                        % GPU_MAX_DIM)
    args = parser.parse_args(argv)
    try:
        name = os.path.splitext(os.path.basename(args.output))[0]
        if not args.output.endswith(".cu") or not re.match(r"^[a-z][a-z0-9_]*$", name):
            raise Refusal("-o %s: the model file is NAME.cu, NAME a C identifier in lower "
                          "case ([a-z][a-z0-9_]*)" % args.output)
        for label, value in (("--phi", args.phi), ("--T0", args.T0), ("--P", args.P),
                             ("--t1", args.t1)):
            if not (math.isfinite(value) and value > 0):
                raise Refusal("%s %g: must be a positive number" % (label, value))
        doc = read_yaml(args.mechanism)
        mech = Mechanism(doc, args.mechanism, args.phase)
        dim = len(mech.species) + 1
        if dim > GPU_MAX_DIM and not args.cpu_only:
            raise Refusal("%d species (dim %d): past the %d components the stiff per-thread "
                          "scheme holds on the GPU in double (radau5's four dim x dim matrices "
                          "in CUDA's 512 KB of local memory a thread, src/schemes/radau5/"
                          "cuda_radau5.c); --cpu-only writes it for the CPU backend"
                          % (len(mech.species), dim, GPU_MAX_DIM))
        if dim > REGISTER_DIM:
            sys.stderr.write("mech2picard: note: dim %d > %d: on the GPU radau5's per-thread "
                             "LU spills from registers to local memory (slower, issue 38)\n"
                             % (dim, REGISTER_DIM))
        if not mech.reactions:
            raise Refusal("%s: the phase has no reactions" % args.mechanism)
        note = args.source
        if not note:
            desc = str(doc.get("description", "")).strip().splitlines()
            note = desc[0] if desc else os.path.basename(args.mechanism)
        text = generate(mech, name, args, note)
    except Refusal as err:
        sys.stderr.write("mech2picard: error: %s\n" % err)
        return 2
    # all or nothing: a temporary file beside the output, renamed into place
    directory = os.path.dirname(os.path.abspath(args.output))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".%s." % name, suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, args.output)
    except OSError as err:
        sys.stderr.write("mech2picard: error: cannot write %s: %s\n" % (args.output, err))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
