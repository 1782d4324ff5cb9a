#!/usr/bin/env bash
# The Debian package: dpkg-buildpackage -b from this tree (its build/ as
# make left it: -nc), then the .deb's contents (programs, units, the
# config as a conffile, the units' maintainer scripts, its dependencies),
# unpacked into a temporary root whose ccload attaches, reads and detaches
# bpf_dctcp alone.
source "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	{ skip "the package: no dpkg-buildpackage or debhelper (make deps installs them)"; exit 0; }
cc_available bpf_dctcp && { skip "bpf_dctcp is attached by someone else: not touched"; exit 0; }
version=$(sed -n '1s/^ccsuite (\([^)]*\)).*/\1/p' "$TOPO_ROOT/debian/changelog")
arch=$(dpkg --print-architecture)
up=$(dirname "$TOPO_ROOT")
for f in "$up"/ccsuite_"$version"_"$arch".{deb,buildinfo,changes}; do
	[ -e "$f" ] && { skip "the package: $f exists (not this test's): not touched"; exit 0; }
done
# dpkg-buildpackage writes beside the tree: this run's files are moved
# out, and debhelper's staging in debian/ removed by name (not the
# package's clean, which would remove build/, nor dh_clean, which also
# removes *.orig and *~ files anywhere in the tree)
cleanup() {
	"$CCLOAD" -q detach bpf_dctcp >/dev/null 2>&1
	for f in "$up"/ccsuite_"$version"_"$arch".{deb,buildinfo,changes}; do
		[ -e "$f" ] && mv "$f" "$TMP/"
	done
	(cd "$TOPO_ROOT/debian" && rm -rf ccsuite .debhelper files ccsuite.substvars debhelper-build-stamp \
		ccsuite.*.debhelper ccsuite.debhelper.log)
	rm -rf "$TMP"
}
trap cleanup EXIT

echo "dpkg-buildpackage -us -uc -b -nc"
(cd "$TOPO_ROOT" && dpkg-buildpackage -us -uc -b -nc) >"$TMP/build.log" 2>&1
rc=$?
check "it exits 0 (exit $rc: $(grep -m1 -E 'error|Error' "$TMP/build.log"))" [ $rc = 0 ]
deb=$up/ccsuite_${version}_${arch}.deb
check "it made ccsuite_${version}_${arch}.deb" [ -f "$deb" ]
[ -f "$deb" ] || exit 0
mv "$deb" "$TMP/" && deb=$TMP/${deb##*/}

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$TMP/files"
missing=()
for f in /usr/sbin/ccload /usr/bin/tcpxfer /usr/bin/wlgen /usr/share/man/man8/ccload.8.gz \
	/lib/systemd/system/ccsuite.service /lib/systemd/system/ccsuite-prom.service \
	/lib/systemd/system/ccsuite-prom.timer /lib/systemd/system/ccsuite-flashpass.service /etc/ccsuite/ccsuite.conf \
	/usr/share/doc/ccsuite/copyright /usr/share/bash-completion/completions/ccload; do
	grep -qx "$f" "$TMP/files" || missing+=("$f")
done
check "it holds the programs, units, config, man page, copyright (missing: ${missing[*]:-none})" [ ${#missing[@]} = 0 ]
dpkg-deb -e "$deb" "$TMP/DEBIAN"
check "the config is a conffile" grep -qx /etc/ccsuite/ccsuite.conf "$TMP/DEBIAN/conffiles"
check "postinst enables ccsuite.service, ccsuite-flashpass.service and ccsuite-prom.timer" \
	bash -c "grep -q 'ccsuite.service' '$TMP/DEBIAN/postinst' && grep -q 'ccsuite-flashpass.service' '$TMP/DEBIAN/postinst' && grep -q 'ccsuite-prom.timer' '$TMP/DEBIAN/postinst'"
dep=$(dpkg-deb -f "$deb" Depends)
check "it depends on libbpf ($dep)" grep -q libbpf <<<"$dep"
check "its units run the packaged ccload" grep -q '^ExecStart=/usr/sbin/ccload service start$' \
	<(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./lib/systemd/system/ccsuite.service)

echo "unpacked into a temporary root"
dpkg-deb -x "$deb" "$TMP/root"
ccl=$TMP/root/usr/sbin/ccload
out=$("$ccl" --version)
check "its ccload says the package's version ($out)" grep -Eq "^ccload $version( |$)" <<<"$out"
check "it attaches bpf_dctcp" "$ccl" -q attach bpf_dctcp
check "reads its stats" bash -c "'$ccl' -q stats bpf_dctcp --json | jq -e '.bpf_dctcp | has(\"acks\")' >/dev/null"
check "and detaches it" "$ccl" -q detach bpf_dctcp
check "its config passes ccload service check" "$ccl" service check "$TMP/root/etc/ccsuite/ccsuite.conf"
