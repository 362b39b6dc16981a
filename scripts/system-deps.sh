#!/usr/bin/env bash
# Install the Debian packages in scripts/system-packages.txt that are missing.
# As root they are installed with apt; otherwise the exact command is printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(grep -v '^\s*#' "$here/system-packages.txt" | awk 'NF{print $1}')
missing=()
for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "boardwright: missing system packages (${missing[*]}) and no apt-get here; install them with your package manager." >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    echo "boardwright: installing system packages: ${missing[*]}"
    log=$(mktemp)
    # Another apt (unattended upgrades, a colleague's install) may hold the dpkg lock: wait for it.
    cmd="apt-get update -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 --no-install-recommends ${missing[*]}"
    # apt's progress is noise on success; on failure show its tail and what was run.
    if ! bash -c "$cmd" >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        echo "boardwright: this command failed: $cmd" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
else
    echo "boardwright: missing system packages: ${missing[*]}" >&2
    echo "Run this as root, then run make again:" >&2
    echo "  sudo sh -c '$cmd'" >&2
    exit 1
fi
