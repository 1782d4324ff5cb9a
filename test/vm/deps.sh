#!/usr/bin/env bash
# What test/vm/run needs beyond the project's own dependencies: qemu, a
# static busybox for the initramfs, kmod's modinfo for module dependencies.
# Installs only what is missing (no recommends: qemu's GUI is not needed).
set -euo pipefail

PKGS=(qemu-system-x86 busybox-static kmod)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
echo "installing: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
