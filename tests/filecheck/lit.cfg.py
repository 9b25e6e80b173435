# lit configuration for the FileCheck tests. Run: lit -v tests/filecheck
import os
import sys

import lit.formats

config.name = "pto"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".pto", ".mlir", ".ptoasm"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]
# the venv's tools (pto-opt, filecheck) must be found even from an unactivated shell
venv_bin = os.path.dirname(sys.executable)
config.environment["PATH"] = venv_bin + os.pathsep + config.environment.get("PATH", "")
config.substitutions.append(("%python", sys.executable))
# round trip: print, re-parse, print again must be identical
config.substitutions.append(
    ("%roundtrip", "pto-opt %s > %t.1 && pto-opt %t.1 > %t.2 && diff %t.1 %t.2 && cat %t.1")
)
