#!/bin/sh
# generate.sh [DIR] - write the chemistry models that picard ships,
# DIR/NAME.cu (default models/), from the mechanisms of this folder with
# the converter's options stated once, here: `make chem-models` rewrites
# models/ with it, and tests/chem/test_chem.c generates into a temporary
# folder and compares byte for byte, so a model and its mechanism (or the
# converter) never drift apart.
set -e
here=$(dirname "$0")
out=${1:-$here/../../models}
conv="${PYTHON:-python3} $here/../mech2picard/mech2picard.py"

# Cantera's h2o2.yaml (data/h2o2.yaml, README.md here): stoichiometric
# H2/air at 1 atm and 1000 K by default, over 1 ms (ignition at 0.2 ms)
$conv "$here/h2o2.yaml" -o "$out/h2o2.cu" --fuel H2:1 --oxidizer O2:1,N2:3.76 \
	--phi 1 --T0 1000 --P 101325 --t1 1e-3 --title "hydrogen-air ignition" \
	--source "Cantera data/h2o2.yaml (the H2/O2 submechanism of GRI-Mech 3.0, with N2), Cantera 3.x"

# Cantera's gri30.yaml (data/gri30.yaml): GRI-Mech 3.0, 53 species, 325
# reactions. Not in models/: its host side takes minutes to compile, too
# long for every build, so it ships beside them and runs by path
# (picard-run models/chem/gri30.cu: compiled once, then cached).
# Stoichiometric methane/air at 1 atm and 1400 K by default, over 20 ms.
mkdir -p "$out/chem"
$conv "$here/gri30.yaml" -o "$out/chem/gri30.cu" --fuel CH4:1 --oxidizer O2:1,N2:3.76 \
	--phi 1 --T0 1400 --P 101325 --t1 2e-2 --title "methane-air ignition, GRI-Mech 3.0" \
	--source "Cantera data/gri30.yaml (GRI-Mech 3.0, Smith et al., http://combustion.berkeley.edu/gri-mech/version30/text30.html), Cantera 3.x"
