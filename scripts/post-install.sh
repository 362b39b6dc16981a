#!/usr/bin/env bash
# Steps after pip install that later issues may extend (e.g. browser checks). Must be idempotent.
set -euo pipefail

# axe-core (Deque's accessibility engine, from npm) for the browser tests' accessibility
# checks: tests/browser/test_accessibility.py injects .venv/axe/node_modules/axe-core/axe.min.js.
AXE_VERSION=4.14.1
AXE_DIR=.venv/axe
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ] || \
   ! grep -q "\"version\": \"$AXE_VERSION\"" "$AXE_DIR/node_modules/axe-core/package.json" 2>/dev/null; then
    if command -v npm >/dev/null 2>&1; then
        mkdir -p "$AXE_DIR"
        npm install --silent --no-audit --no-fund --prefix "$AXE_DIR" "axe-core@$AXE_VERSION" \
            >/dev/null
    else
        echo "boardwright: npm is not installed, so the accessibility tests will be skipped;" >&2
        echo "  as root: apt-get install -y --no-install-recommends npm" >&2
    fi
fi
exit 0
