"""Bench the card recognisers over rendered frames; see vision/benchmark.py.

    python bench/vision.py                 # 50,000 frames per recogniser
    python bench/vision.py --frames 3000   # a quick look

Prints a table per recogniser and condition, and ends with one JSON line.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.benchmark import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
