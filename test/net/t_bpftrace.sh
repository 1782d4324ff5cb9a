#!/usr/bin/env bash
# bench/trace/ccflows.bt shows, live, the flows that use a suite CC (and
# only those): a bpf_dctcp and a cubic transfer run side by side under it.
source "$(dirname "$0")/lib.sh"
source "$TOPO_ROOT/bench/lib/sample.sh"	# trace_unsupported

if why=$(trace_unsupported); then
	skip "bench/trace/ccflows.bt and bbr.bt: $why"
	exit 0
fi

SCRIPT=$TOPO_ROOT/bench/trace/ccflows.bt
TMP=$(mktemp -d)
topo_init
trap 'topo_cleanup; [ -z "${bt:-}" ] || topo_stop "$bt"; rm -rf "$TMP"; "$CCLOAD" -q detach bpf_dctcp >/dev/null 2>&1' EXIT

"$CCLOAD" -q attach bpf_dctcp
topo_node h
topo_bg h "$TCPXFER" server -B 127.0.0.1 -p 5621 -C bpf_dctcp -n 1 >/dev/null
topo_bg h "$TCPXFER" server -B 127.0.0.1 -p 5622 -C cubic -n 1 >/dev/null

# tracefs in a private mount namespace: the host's mounts stay as they are.
unshare -m sh -c "mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	exec timeout 25 bpftrace '$SCRIPT'" >"$TMP/out" 2>"$TMP/err" &
bt=$!
for _ in $(seq 100); do grep -q '^Tracing' "$TMP/out" && break; sleep 0.2; done
check "bpftrace started" grep -q '^Tracing' "$TMP/out"

topo_exec h "$TCPXFER" client -c 127.0.0.1 -p 5621 -C bpf_dctcp -t 3 -r 100mbit >/dev/null &
c1=$!
topo_exec h "$TCPXFER" client -c 127.0.0.1 -p 5622 -C cubic -t 3 -r 100mbit >/dev/null &
c2=$!
wait $c1 $c2
sleep 1.2
topo_stop "$bt" INT
sed -n '1,12p' "$TMP/out" | sed 's/^/    | /'
[ -s "$TMP/err" ] && sed 's/^/    ! /' "$TMP/err" | grep -v RLIMIT_MEMLOCK | head -5

# Rows: CC CWND SSTHRESH SRTT_us PACING FLOW...; the sender is 127.0.0.1:X -> 127.0.0.1:5621
rows=$(awk '$1 == "bpf_dctcp" && $NF == "127.0.0.1:5621"' "$TMP/out")
check "the bpf_dctcp sender's flow is listed" test -n "$rows"
cwnd=$(awk 'NR == 1 { print $2 }' <<<"$rows")
srtt=$(awk 'NR == 1 { print $4 }' <<<"$rows")
check_range "its cwnd (segments)" "$cwnd" 2 100000
check_range "its srtt (us, loopback)" "$srtt" 1 100000
check "the cubic flows are not listed" bash -c "! grep -q ':5622' '$TMP/out'"

# bench/trace/bbr.bt reads bpf_bbr's state at fixed offsets: a flow over a
# 20 ms path must show a mode and a min_rtt of about 20 ms.
topo_cleanup
topo_init
trap 'topo_cleanup; [ -z "${bt:-}" ] || topo_stop "$bt"; rm -rf "$TMP"; "$CCLOAD" -q detach --all >/dev/null 2>&1' EXIT
"$CCLOAD" -q attach bpf_bbr
topo_dumbbell 1 50mbit 100kb 0 10
topo_bg d "$TCPXFER" server -p 5623 -n 1 >/dev/null
unshare -m sh -c "mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	exec timeout 25 bpftrace '$TOPO_ROOT/bench/trace/bbr.bt'" >"$TMP/bbr" 2>/dev/null &
bt=$!
for _ in $(seq 100); do grep -q '^Attaching' "$TMP/bbr" && break; sleep 0.2; done
topo_exec s1 "$TCPXFER" client -c "$IP_D" -p 5623 -C bpf_bbr -t 4 >/dev/null
sleep 1.2
topo_stop "$bt" INT
grep '^@bbr' "$TMP/bbr" | tail -n 3 | sed 's/^/    | /'
row=$(grep '^@bbr\[[0-9]*, 5623\]' "$TMP/bbr" | tail -n 1)
check "bbr.bt lists the bpf_bbr sender" test -n "$row"
check "its mode is a BBR mode" grep -Eq '\((STARTUP|DRAIN|PROBE_BW|PROBE_RTT),' <<<"$row"
minrtt=$(sed -E 's/.*\(([A-Z_]+), ([0-9]+), ([0-9]+),.*/\3/' <<<"$row")
check_range "its min_rtt (us) on a 20 ms path (VDE ticks: -1 ms)" "$minrtt" 18500 24000
bw=$(sed -E 's/.*\(([A-Z_]+), ([0-9]+),.*/\2/' <<<"$row")
check_range "its bw estimate (Mbit/s) on a 50 Mbit/s path" "$bw" 30 55
