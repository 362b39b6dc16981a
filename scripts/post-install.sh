#!/usr/bin/env bash
# Steps after pip install that later issues may extend (e.g. browser checks). Must be idempotent.
set -euo pipefail
exit 0
