#!/usr/bin/env bash
# A pinned Debian kernel the VM tests boot, unpacked into the cache by
# test/debfetch: prints its vmlinuz path.
#
#   test/vm/kernel.sh [6.1|6.12]     (default 6.1)
#
# 6.1 is Debian 12's own kernel and the suite's oldest: before 6.10's
# cong_control arity, so the pre-6.10 objects load there.  6.12 is the
# kernel Debian 12 ships as an update (and RHEL 10's base): the objects of
# 6.10 and later, as on a current host, but an older verifier, and
# sch_fq, sch_netem and sch_etf as modules.
#
# Each package is pinned by its exact name: apt-get download with a
# pattern would fetch every ABI version (gigabytes).  Each is the generic
# flavour because cloud-amd64 has no 9p, which the runner's root
# filesystem needs.
set -euo pipefail

die() { echo "kernel.sh: $*" >&2; exit 1; }
case ${1:-6.1} in
6.1) PKG=linux-image-6.1.0-57-amd64 KVER=6.1.0-57-amd64 ;;
6.12) PKG=linux-image-6.12.117+deb12-amd64-unsigned KVER=6.12.117+deb12-amd64 ;;
*) echo "usage: test/vm/kernel.sh [6.1|6.12]" >&2; exit 2 ;;
esac

root=$("$(dirname "$0")/../debfetch" "$PKG") || die "cannot fetch $PKG"
vmlinuz=$root/boot/vmlinuz-$KVER
[ -f "$vmlinuz" ] || die "$PKG has no /boot/vmlinuz-$KVER"
echo "$vmlinuz"
