#!/usr/bin/env bash
# The CPU-cost instrument and the stats tunable: ccost refuses what it
# cannot measure; with stats=0 bpf_dctcp's ACK path has no stats map left
# in it (the verifier removed it) and still carries a transfer; a short
# bench/cpucost run compares bpf_dctcp with its twin and with reno,
# reports every callback's cost, and leaves nothing registered behind;
# bpf_tldct beside its twin, whose sockops program runs beside its own.
source "$(dirname "$0")/lib.sh"

CCOST=$TOPO_ROOT/build/ccost
TMP=$(mktemp -d)
ATTACHED=0
topo_init
trap '[ $ATTACHED = 1 ] && "$CCLOAD" -q detach bpf_dctcp >/dev/null 2>&1; topo_cleanup; rm -rf "$TMP"' EXIT

echo "ccost: bad input"
check_fails "an unknown CC" "congestion control 'ccs_no_such_cc'" "$CCOST" -t 1s ccs_no_such_cc
check_fails "a bad time" "bad value for -t: 'soon'" "$CCOST" -t soon reno
check_fails "warm-up not shorter than the slice" "shorter than the slice" "$CCOST" -s 10ms -w 10ms reno
check_fails "too many flows" "bad value for -f" "$CCOST" -f 20001 reno
check_fails "a bad task size" "not CC or CC/K: 'reno/0'" "$CCOST" reno/0

echo "ccost: two CCs alternating on loopback"
topo_node h
topo_exec h "$CCOST" -t 2s -s 100ms -w 10ms reno cubic >"$TMP/cc.json"
check "exits 0" [ $? -eq 0 ]
check "both CCs had slices" jq -e '[.slices[][1]] | (index(0) != null) and (index(1) != null)' "$TMP/cc.json"
# a loopback flow on one core carries Gbit/s; this only catches a unit error
check_range "reno: median Gbit per CPU-second" \
	"$(jq '[.slices[] | select(.[1] == 0) | .[2] * 8 / .[4]] | sort | .[length / 2 | floor]' "$TMP/cc.json")" 0.5 500
check_range "the core was busy (CPU / wall)" \
	"$(jq '[.slices[] | .[4] / .[3]] | add / length' "$TMP/cc.json")" 0.8 1.01

echo "ccost -r: receivers in a process of their own"
# 10 000 flows need 20 000 descriptors in one process, more than this
# machine's hard limit; with -r each of the two processes holds 10 000
topo_exec h "$CCOST" -t 1s -s 100ms -w 10ms -f 10000 -r reno >"$TMP/cc-r.json"
check "10000 flows: exits 0" [ $? -eq 0 ]
check "10000 flows carried bytes" jq -e '[.slices[][2]] | add > 0' "$TMP/cc-r.json"
# the sender's process alone would be about half the core
check_range "the CPU counted is both processes' (CPU / wall)" \
	"$(jq '[.slices[] | .[4] / .[3]] | add / length' "$TMP/cc-r.json")" 0.8 1.01

echo "stats=0: no stats map on the ACK path"
# in_ack_event's translated code ($1: the tunable), and the stats map's id
xlated_in_ack() {
	local prog
	"$CCLOAD" -q attach bpf_dctcp --set stats="$1" --non-restricted >/dev/null || return 1
	ATTACHED=1
	stats_map=$(bpftool map show pinned /sys/fs/bpf/ccsuite/bpf_dctcp/stats -j | jq .id)
	# the registered instance (an unregistered one lives while sockets use it)
	prog=$(bpftool struct_ops dump -j | jq --arg cc bpf_dctcp -f "$TOPO_ROOT/bench/lib/registered-cc.jq" |
		jq -r '.progs.in_ack_event.id // empty')
	bpftool prog dump xlated id "$prog" >"$TMP/xlated-$1"
}
if xlated_in_ack 1; then
	check "stats=1: in_ack_event refers to the stats map (id $stats_map)" grep -q "map\[id:$stats_map\]" "$TMP/xlated-1"
	"$CCLOAD" -q detach bpf_dctcp >/dev/null
else
	fail "attach bpf_dctcp"
fi
if xlated_in_ack 0; then
	check "stats=0: in_ack_event was loaded" [ -s "$TMP/xlated-0" ]
	check "stats=0: and refers to no stats map (id $stats_map)" bash -c "! grep -q 'map\[id:$stats_map\]' '$TMP/xlated-0'"
	topo_default_cc h bpf_dctcp
	topo_exec h "$TCPXFER" server -p 5601 -n 1 >"$TMP/srv" &
	srv=$!
	sleep 0.3
	topo_exec h "$TCPXFER" client -c 127.0.0.1 -p 5601 -C bpf_dctcp -b 4000000 >"$TMP/cli"
	wait $srv
	topo_default_cc h reno
	check "a transfer on bpf_dctcp" jq -e '.cc == "bpf_dctcp" and .bytes == 4000000' "$TMP/cli"
	check "acks stayed 0" [ "$(ccstat bpf_dctcp acks)" = 0 ]
	check_range "flows are still counted" "$(ccstat bpf_dctcp flows_init)" 2 4
	"$CCLOAD" -q detach bpf_dctcp >/dev/null
	ATTACHED=0
else
	fail "attach bpf_dctcp --set stats=0"
fi

echo "bench/cpucost, briefly"
twin_before=$(cc_available twin_dctcp && echo yes)
"$TOPO_ROOT/bench/cpucost" --sets dctcp --paths loopback --time 6s --stats-time 4s \
	--out "$TMP/bench" >"$TMP/bench.log" 2>&1
rc=$?
# the goal is not the test's: only that it ran and its numbers are sane
check "it ran (exit 0 or 1: below the goal)" [ $rc -le 1 ]
J=$TMP/bench/cpucost.json
check "three pairs, with intervals" jq -e '[.pairs[] | select(.lo <= .ratio and .ratio <= .hi)] | length == 3' "$J"
check_range "bpf_dctcp / twin_dctcp" "$(jq '.pairs[] | select(.native == "twin_dctcp") | .ratio' "$J")" 0.5 2
check_range "rounds" "$(jq '.pairs[0].n' "$J")" 3 100
check "per callback: bpf_dctcp's in_ack_event with calls and ns" \
	jq -e '.callbacks.loopback | map(select(.prog == "dctcp_in_ack_event" and .calls > 1000 and .ns_per_call > 1 and .ns_per_call < 5000)) | length == 1' "$J"
check "bpf_dctcp is detached again" bash -c "! grep -qw bpf_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control"
[ -z "$twin_before" ] && check "twin_dctcp is unregistered again" bash -c "! grep -qw twin_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control"
check "bpf_stats is off again" [ "$(sysctl -n kernel.bpf_stats_enabled)" = 0 ]

echo "bench/cpucost: bpf_tldct beside twin_tldct, which has its own sockops program"
"$TOPO_ROOT/bench/cpucost" --pairs bpf_tldct:twin_tldct --paths loopback --time 6s \
	--stats-time 4s --out "$TMP/tldct" >"$TMP/tldct.log" 2>&1
check "it ran (exit 0 or 1: below the goal)" [ $? -le 1 ]
J=$TMP/tldct/cpucost.json
check "bpf_tldct / twin_tldct is a twin pair, with an interval" \
	jq -e '.pairs | length == 1 and (.[0] | .twin and .lo <= .ratio and .ratio <= .hi)' "$J"
# a receiver writes the option on each ACK: 16 per MB with 64 KB segments
for cc in bpf_tldct twin_tldct; do
	check "$cc: its sockops program ran, with its calls per MB" \
		jq -e --arg cc $cc '.callbacks.loopback | map(select(.cc == $cc and .prog == "tldct_sockops" and .calls_per_mb > 10)) | length == 1' "$J"
done
check "twin_tldct is unregistered again" bash -c "! grep -qw twin_tldct /proc/sys/net/ipv4/tcp_available_congestion_control"
check "and its pins are gone" test ! -e /sys/fs/bpf/ccsuite/twin_tldct
