# Lets `pytest harness/tests` (run from the repository root) import perfgate_harness without
# installing it.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
