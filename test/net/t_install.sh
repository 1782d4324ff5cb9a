#!/usr/bin/env bash
# make install and make uninstall into a staging root (DESTDIR), PREFIX
# /usr as a package has it: every file where the Makefile says, the
# staged ccload working alone (its BPF objects are inside it: attach,
# stats, detach), the units naming it, and nothing left after uninstall
# but the config (the operator's).
source "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
ROOT=$TMP/root
trap 'rm -rf "$TMP"' EXIT
cc_available bpf_dctcp && { skip "bpf_dctcp is attached by someone else: not touched"; exit 0; }
trap '"$CCLOAD" -q detach bpf_dctcp >/dev/null 2>&1; rm -rf "$TMP"' EXIT

inst() { make -s -C "$TOPO_ROOT" "$1" DESTDIR="$ROOT" PREFIX=/usr >"$TMP/$1.log" 2>&1; }
version=$(sed -n '1s/^ccsuite (\([^)]*\)).*/\1/p' "$TOPO_ROOT/debian/changelog")

echo "make install DESTDIR=... PREFIX=/usr"
check "it exits 0" inst install
files=(usr/sbin/ccload usr/bin/tcpxfer usr/bin/wlgen usr/share/man/man8/ccload.8
	usr/share/bash-completion/completions/ccload usr/share/ccsuite/bpftrace/flashpass.bt
	usr/share/doc/ccsuite/README.md usr/share/doc/ccsuite/docs/flashpass.md
	usr/lib/systemd/system/ccsuite.service usr/lib/systemd/system/ccsuite-prom.timer
	usr/lib/systemd/system/ccsuite-prom.service usr/lib/systemd/system/ccsuite-flashpass.service
	etc/ccsuite/ccsuite.conf)
missing=()
for f in "${files[@]}"; do [ -f "$ROOT/$f" ] || missing+=("$f"); done
check "the programs, the man page, the completion, the bpftrace scripts, the docs, the units, the config (missing: ${missing[*]:-none})" \
	[ ${#missing[@]} = 0 ]
check "ccload and the bpftrace scripts are mode 755, the man page 644" \
	[ "$(stat -c %a "$ROOT/usr/sbin/ccload" "$ROOT/usr/share/ccsuite/bpftrace/flashpass.bt" \
		"$ROOT/usr/share/man/man8/ccload.8" | xargs)" = "755 755 644" ]
check "nothing outside PREFIX (/usr) but the config in /etc" [ "$(cd "$ROOT" && echo *)" = "etc usr" ]
make -s -C "$TOPO_ROOT" install DESTDIR="$TMP/local" PREFIX=/usr/local >"$TMP/local.log" 2>&1
check "with PREFIX=/usr/local the units run /usr/local/sbin/ccload" \
	grep -q '^ExecStart=/usr/local/sbin/ccload service start$' "$TMP/local/usr/local/lib/systemd/system/ccsuite.service"
echo "# edited" >>"$ROOT/etc/ccsuite/ccsuite.conf"
check "a second install keeps an edited config" bash -c "inst() { make -s -C '$TOPO_ROOT' install DESTDIR='$ROOT' PREFIX=/usr >/dev/null 2>&1; }; inst && tail -n 1 '$ROOT/etc/ccsuite/ccsuite.conf' | grep -qx '# edited'"

ccl=$ROOT/usr/sbin/ccload
out=$("$ccl" --version)
check "ccload --version says debian/changelog's version ($out)" grep -Eq "^ccload $version( \(git [0-9a-f]+(-dirty)?\))?$" <<<"$out"
check "the staged ccload attaches bpf_dctcp" "$ccl" -q attach bpf_dctcp
check "and reads its stats" bash -c "'$ccl' -q stats bpf_dctcp --json | jq -e '.bpf_dctcp | has(\"acks\")' >/dev/null"
check "and detaches it" "$ccl" -q detach bpf_dctcp
check "man renders the installed page" bash -c "MANWIDTH=80 man -l '$ROOT/usr/share/man/man8/ccload.8' 2>&1 >/dev/null | (! grep .)"

echo "make uninstall"
check "it exits 0" inst uninstall
check "no file is left but the config (left: $(cd "$ROOT" && find . -type f | head -3 | xargs))" \
	[ "$(cd "$ROOT" && find . -type f)" = ./etc/ccsuite/ccsuite.conf ]
