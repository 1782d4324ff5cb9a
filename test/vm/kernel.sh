#!/usr/bin/env bash
# Fetch the one pinned Debian 6.1 kernel the VM tests boot, unpack it into the
# cache (outside the repo) and print its vmlinuz path.  Idempotent: once
# unpacked, a run only prints the path.
#
# The package is pinned by its exact name: apt-get download with a pattern
# would fetch every ABI version (gigabytes).  It is the generic flavour because
# cloud-amd64 has no 9p, which the runner's root filesystem needs.
set -euo pipefail

PKG=linux-image-6.1.0-57-amd64
KVER=${PKG#linux-image-}
CACHE=${CCSUITE_CACHE:-/var/cache/ccsuite}/vm
DEST=$CACHE/$PKG

die() { echo "kernel.sh: $*" >&2; exit 1; }

vmlinuz=$DEST/boot/vmlinuz-$KVER
if [ -f "$DEST/.unpacked" ]; then
	echo "$vmlinuz"
	exit 0
fi

mkdir -p "$CACHE"
# What a fetch killed with SIGKILL left (no trap ran).
find "$CACHE" -maxdepth 1 -name '.fetch.*' -mmin +60 -exec rm -rf {} +
work=$(mktemp -d "$CACHE/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A fresh machine may have no package lists yet: refresh them once.
if ! apt-cache show "$PKG" >/dev/null 2>&1; then
	apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed (no network to the Debian archive?)"
	apt-cache show "$PKG" >/dev/null 2>&1 || die "package $PKG is not in the apt lists (pinned in $0)"
fi
(cd "$work" && apt-get download -qq "$PKG" >/dev/null 2>&1) \
	|| die "apt-get download $PKG failed (no network to the Debian archive?)"
dpkg-deb -x "$work"/"$PKG"_*.deb "$work/root" || die "cannot unpack $PKG"
[ -f "$work/root/boot/vmlinuz-$KVER" ] || die "$PKG has no /boot/vmlinuz-$KVER"
touch "$work/root/.unpacked"
rm -rf "$DEST"			# what an interrupted earlier run left
mv "$work/root" "$DEST"
echo "$vmlinuz"
