#!/usr/bin/env bash
# Every algorithm ccload lists, on this kernel: attach it (the object this
# kernel loads), carry a transfer on it whose every byte the server checks,
# see the flow in its counters, detach it.  bpf_lia and bpf_ppqd carry an
# MPTCP connection (one subflow); bpf_flashpass, with no emulation source
# here, a transfer within its first window (its credit loop end to end:
# t_flashpass).  The other tests go deep into one algorithm; this one is
# wide, for a kernel where only a few of them run (test/vm/suite).
source "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mapfile -t algos < <("$CCLOAD" -q list | awk '/^[a-z]/ { print $1 }')
check "ccload lists the six algorithms (${algos[*]})" [ ${#algos[@]} = 6 ]
ours=()
for a in "${algos[@]}"; do
	if cc_available "$a"; then
		skip "$a: attached by someone else: not touched"
	else
		ours+=("$a")
	fi
done
topo_init
cleanup() {
	local a
	topo_cleanup
	for a in "${ours[@]}"; do "$CCLOAD" -q detach "$a" >/dev/null 2>&1; done
	rm -rf "$TMP"
}
trap cleanup EXIT
topo_node h

port=5620
for a in "${ours[@]}"; do
	echo "$a"
	mp=() size=2000000
	case $a in
	bpf_lia | bpf_ppqd) mp=(-M) ;;
	bpf_flashpass) size=14000 ;; # within the first window: no credits needed
	esac
	check "attach $a" "$CCLOAD" -q attach "$a"
	init0=$(ccstat "$a" flows_init)
	port=$((port + 1))
	topo_bg h "$TCPXFER" server -B 127.0.0.1 -p $port -C "$a" -n 1 "${mp[@]}" >"$TMP/srv-$a"
	for ((i = 0; i < 50; i++)); do
		topo_exec h ss -ltnH "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	topo_exec h timeout 60 "$TCPXFER" client -c 127.0.0.1 -p $port -C "$a" -b $size "${mp[@]}" >"$TMP/cli-$a"
	rc=$?
	check "a transfer on it exits 0 (exit $rc)" [ $rc = 0 ]
	for ((i = 0; i < 50; i++)); do
		[ -s "$TMP/srv-$a" ] && break
		sleep 0.1
	done
	check_reports "the server got every byte intact, on $a" 1 ".cc == \"$a\" and .pattern_ok and .bytes == $size" "$TMP/srv-$a"
	pred=".cc == \"$a\" and .received == $size"
	[ ${#mp[@]} = 0 ] || pred+=" and .subflows >= 1"
	check_reports "the client's report says $a${mp:+ over MPTCP}" 1 "$pred" "$TMP/cli-$a"
	n=$(ccstat "$a" flows_init)
	if is_number "$n" && is_number "$init0"; then n=$((n - init0)); else n="($init0 -> $n)"; fi
	check_range "$a counted the flows (flows_init, two sockets a connection)" "$n" 2 1000
	check "detach $a" "$CCLOAD" -q detach "$a"
done
