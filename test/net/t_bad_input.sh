#!/usr/bin/env bash
# Bad input: one clear line on stderr, a non-zero exit, and no change to
# what is registered or pinned.
source "$(dirname "$0")/lib.sh"

PIN_ROOT=/sys/fs/bpf/ccsuite
TMP=$(mktemp -d)
# bpf_ccs_other (test/kern/other_cc.bpf.c, struct_ops map ccs_other), by
# map id: a map lingers after unregistering while sockets hold it.
unregister_other() {
	local id
	for id in $(bpftool -j struct_ops list 2>/dev/null | jq '.[] | select(.name == "ccs_other") | .id'); do
		bpftool struct_ops unregister id "$id" >/dev/null 2>&1
	done
}
trap 'rm -rf "$TMP"; rm -f /sys/fs/bpf/ccs_canary_$$; unregister_other; "$CCLOAD" -q detach --all >/dev/null 2>&1' EXIT

"$CCLOAD" -q attach bpf_dctcp
id=$(cc_map_id bpf_dctcp)
unchanged() {
	[ "$(cc_map_id bpf_dctcp)" = "$id" ] && [ -e $PIN_ROOT/bpf_dctcp/ops ] &&
		! grep -q bpf_ccs_bad /proc/sys/net/ipv4/tcp_available_congestion_control &&
		[ ! -e $PIN_ROOT/bpf_ccs_bad ]
}

echo "arguments"
check_fails "unknown algorithm" "unknown algorithm 'bpf_nope'" "$CCLOAD" attach bpf_nope
check_fails "unknown tunable" "has no tunable 'nope'" "$CCLOAD" attach bpf_dctcp --set nope=1
check_fails "tunable out of range" "out of range \[0, 16\]" "$CCLOAD" attach bpf_dctcp --set shift_g=17
check_fails "unparsable tunable" "'abc' is not an unsigned integer" "$CCLOAD" attach bpf_dctcp --set shift_g=abc
check_fails "negative tunable" "is not an unsigned integer" "$CCLOAD" attach bpf_dctcp --set shift_g=-1
check_fails "bad boolean" "is not a boolean" "$CCLOAD" attach bpf_dctcp --set clamp_alpha_on_loss=maybe
check_fails "--set without =" "wants key=value" "$CCLOAD" attach bpf_dctcp --set shift_g
check_fails "unknown command" "unknown command" "$CCLOAD" frobnicate
check_fails "unknown option" "unrecognized option|unknown option" "$CCLOAD" attach bpf_dctcp --frob
check_fails "stats of an unknown algorithm" "unknown algorithm" "$CCLOAD" stats bpf_nope
check_fails "stats --watch 0" "is not a number of seconds" "$CCLOAD" stats --watch 0
check_fails "detach of an unknown algorithm" "not registered" "$CCLOAD" detach bpf_nope
# A name is checked before any file operation: PIN_ROOT/<name> and
# RUN_DIR/<name> must never reach outside ccload's directories.
touch "$TMP/keep"
check_fails "detach of a name that is a path" "is not a congestion control name" \
	"$CCLOAD" detach "../../../..$TMP"
check "... the files there are untouched" test -e "$TMP/keep"
canary=/sys/fs/bpf/ccs_canary_$$
bpftool map create "$canary" type array key 4 value 4 entries 1 name ccs_canary
check_fails "detach .." "is not a congestion control name" "$CCLOAD" detach ..
check "... the pins at the top of bpffs are untouched" test -e "$canary"
rm -f "$canary"
check_fails "switch: rate below 1mbit" "not a rate in" "$CCLOAD" switch attach lo --rate 5kbit
check_fails "switch: rate without a unit" "not a rate in" "$CCLOAD" switch attach lo --rate 100
check_fails "switch: unknown queue" "not virtual or qdisc" "$CCLOAD" switch attach lo --queue real
check_fails "switch: a buffer smaller than a frame" "must hold a full-sized frame" \
	"$CCLOAD" switch attach lo --buffer 1
check_fails "switch: K above the buffer" "must be below --buffer" "$CCLOAD" switch attach lo --buffer 10kb --ecn-k 20kb
check_fails "switch: class limit above the buffer" "above --buffer" "$CCLOAD" switch attach lo --buffer 10kb --class-limit 1=20kb
check_fails "switch: class out of range" "bad value" "$CCLOAD" switch attach lo --class-limit 9=1kb
check_fails "switch: an emulation class of minor 0" "not a class id" \
	"$CCLOAD" switch attach lo --emulation 7190 --emu-class 1:0
check_fails "switch: an emulation class that is not hex" "not a class id" \
	"$CCLOAD" switch attach lo --emulation 7190 --emu-class 1:2x
check_fails "switch: an emulation class written 0x1:0x20 (strtoul's, not tc's)" "not a class id" \
	"$CCLOAD" switch attach lo --emulation 7190 --emu-class 0x1:0x20
check_fails "switch: an emulation class of the ingress qdisc's major (ffff)" "not a class id" \
	"$CCLOAD" switch attach lo --emulation 7190 --emu-class ffff:1
check_fails "switch: an emulation class without the emulation queue" "no emulation queue" \
	"$CCLOAD" switch attach lo --emu-class 1:20
check_fails "switch: --emu-keep without the emulation queue" "no emulation queue" \
	"$CCLOAD" switch attach lo --emu-keep 50
check_fails "switch: --emu-over without the emulation queue, even at its default" \
	"no emulation queue" "$CCLOAD" switch attach lo --emu-over 2
check_fails "switch: --emu-over above the queue's 8 packets" "not a number of packets" \
	"$CCLOAD" switch attach lo --emulation 7190 --emu-over 9
check_fails "switch: no such device" "no device 'nodev0'" "$CCLOAD" switch attach nodev0
check_fails "switch: stats without a switch" "no switch attached" "$CCLOAD" switch stats lo
check_fails "switch stats: an attach option" "is not one of its options" \
	"$CCLOAD" switch stats lo --rate 1mbit
check_fails "switch: unknown subcommand" "unknown command 'show'" "$CCLOAD" switch show lo
check_fails "attach: a TC role the algorithm lacks" "has no TC role 'nosuch'" \
	"$CCLOAD" attach bpf_dctcp --tc nosuch=lo
check_fails "attach: --tc without a device" "wants ROLE=DEV" "$CCLOAD" attach bpf_dctcp --tc nosuch
check_fails "tc attach: a role no algorithm has" "no algorithm has a TC role" \
	"$CCLOAD" tc attach lo nosuch
check_fails "tc list: an option of attach" "is not one of its options" "$CCLOAD" tc list -n x
check "registration unchanged after all of these" unchanged

echo "environment"
cp "$CCLOAD" "$TMP/ccload" && chmod 755 "$TMP" "$TMP/ccload"
check_fails "not root" "must run as root" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/ccload" attach bpf_dctcp
check_fails "no kernel BTF" "no kernel BTF at /sys/kernel/btf/vmlinux" \
	unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$CCLOAD' attach bpf_dctcp"
check "registration unchanged" unchanged

# Without bpffs, attach mounts it (in a private mount namespace here, so
# the host's bpffs is untouched) and goes on.
out=$(unshare -m sh -c "while umount /sys/fs/bpf 2>/dev/null; do :; done
	'$CCLOAD' attach bpf_dctcp --set shift_g=5 && test -e /sys/fs/bpf/ccsuite/bpf_dctcp/ops &&
	'$CCLOAD' detach bpf_dctcp" 2>&1)
rc=$?
check "missing bpffs: ccload says it mounted it" grep -q "mounted bpffs" <<<"$out"
check_range "... and attach, its pins and detach all worked (exit status)" $rc 0 0
[ $rc -eq 0 ] || echo "$out"
"$CCLOAD" -q attach bpf_dctcp
id=$(cc_map_id bpf_dctcp)

echo "verifier rejection"
BAD=$TOPO_ROOT/build/test/bad_cc.bpf.o
err=$("$CCLOAD" attach --obj "$BAD" 2>&1 >/dev/null)
rc=$?
echo "$err" | sed 's/^/    | /' | tail -n 8
check "exit non-zero ($rc)" [ $rc -ne 0 ]
check "says the kernel refused it" grep -q "the kernel refused to load it" <<<"$err"
check "shows the verifier log's tail" grep -q "verifier log (last 20 lines" <<<"$err"
check "the tail names the bad access" grep -Eq "invalid|access|not allowed|no write support" <<<"$err"
lines_v=$("$CCLOAD" -v attach --obj "$BAD" 2>&1 | wc -l)
check_range "-v prints more of the log" "$lines_v" $(($(wc -l <<<"$err") + 1)) 1e9
check "nothing registered or pinned, bpf_dctcp unchanged" unchanged

echo "CCs ccload did not attach, and names that are not names"
OTHER=$TOPO_ROOT/build/test/other_cc.bpf.o
DOTDOT=$TOPO_ROOT/build/test/dotdot_cc.bpf.o
registered() { tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qxF -- "$1"; }
check "a CC someone else registered (bpftool)" bpftool struct_ops register "$OTHER"
check "... is there" registered bpf_ccs_other
"$CCLOAD" -q detach --all >/dev/null
check "detach --all leaves it registered" registered bpf_ccs_other
unregister_other
check "attach --obj: the same CC, attached by ccload" "$CCLOAD" -q attach --obj "$OTHER"
check "... ccload list shows it, registered" \
	bash -c "'$CCLOAD' list | grep -A1 '^bpf_ccs_other .*--obj' | grep -q '^    registered'"
check "... detach by its name" "$CCLOAD" -q detach bpf_ccs_other
check "... then list no longer shows it" bash -c "! '$CCLOAD' list | grep -q '^bpf_ccs_other'"
"$CCLOAD" -q attach bpf_dctcp
id=$(cc_map_id bpf_dctcp)
bpftool map create "$canary" type array key 4 value 4 entries 1 name ccs_canary
check_fails "attach --obj of a CC named '..'" "refusing its CC name '\.\.'" "$CCLOAD" attach --obj "$DOTDOT"
check "... it is not left registered" bash -c "! tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx '\.\.'"
check "... the pins at the top of bpffs are untouched" test -e "$canary"
check "... and bpf_dctcp is unchanged" unchanged
rm -f "$canary"

echo "--help on every subcommand"
for sub in list attach detach stats tc; do
	check "ccload $sub --help" bash -c "'$CCLOAD' $sub --help | grep -q '^Usage: ccload $sub'"
done
check "ccload --help" bash -c "'$CCLOAD' --help | grep -q '^Usage: ccload'"
