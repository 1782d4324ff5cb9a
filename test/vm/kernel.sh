#!/usr/bin/env bash
# The one pinned Debian 6.1 kernel the VM tests boot, unpacked into the
# cache by test/debfetch: prints its vmlinuz path.
#
# The package is pinned by its exact name: apt-get download with a pattern
# would fetch every ABI version (gigabytes).  It is the generic flavour because
# cloud-amd64 has no 9p, which the runner's root filesystem needs.
set -euo pipefail

PKG=linux-image-6.1.0-57-amd64
KVER=${PKG#linux-image-}
die() { echo "kernel.sh: $*" >&2; exit 1; }

root=$("$(dirname "$0")/../debfetch" "$PKG") || die "cannot fetch $PKG"
vmlinuz=$root/boot/vmlinuz-$KVER
[ -f "$vmlinuz" ] || die "$PKG has no /boot/vmlinuz-$KVER"
echo "$vmlinuz"
