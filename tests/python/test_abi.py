"""The bindings' structs (python/picard/_ffi.py) against include/picard.h as
a C compiler lays it out: every field's offset and each struct's size."""
import ctypes
import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from picard import _ffi

STRUCTS = ["tolerance", "model", "options", "grid", "record", "stats", "check_result",
           "check_options", "tune_point", "tune_result", "choose_request", "choose_report"]


def test_struct_layouts(tmp_path):
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler")
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "picard.h"', '#include "picard_choose.h"',
             "int main(void) {"]
    want = []
    for name in STRUCTS:
        struct = getattr(_ffi, name)
        ctype = "picard_" + name
        lines.append('printf("%%zu\\n", sizeof(%s));' % ctype)
        want.append(("sizeof", name, ctypes.sizeof(struct)))
        for field, _ in struct._fields_:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (ctype, field))
            want.append((name, field, getattr(struct, field).offset))
    lines += ["return 0;", "}"]
    src = tmp_path / "abi.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "abi"
    subprocess.run([cc, "-std=c11", "-I" + os.path.join(ROOT, "include"), str(src), "-o",
                    str(exe)], check=True)
    got = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True,
                                          check=True).stdout.split()]
    wrong = [(w, g) for w, g in zip(want, got) if w[2] != g]
    assert not wrong, "ctypes vs C (name, field, ctypes offset), C offset: %s" % wrong
