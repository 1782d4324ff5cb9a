#!/usr/bin/env bash
# The README's main job (make demo runs bench/demo): it runs, prints a row
# per CC in each of its two tables, and removes everything it made.
source "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ns_before=$(ip netns list | grep -c '^ccs' || true)
runs_before=$(find /run/ccsuite/topo -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
dctcp_before=$(cc_available bpf_dctcp && echo 1 || echo 0)

"$TOPO_ROOT/bench/demo" --secs 2 >"$TMP/out" 2>&1
rc=$?
sed 's/^/    /' "$TMP/out" | head -40
check_range "bench/demo exits 0" "$rc" 0 0
# the first table's rows have 8 columns, the second's (FlashPass) 6
for cc in bpf_dctcp cubic bbr; do
	check "a row for $cc, with goodput" awk -v c=$cc '$1 == c && NF == 8 && $2 > 1 { f = 1 } END { exit !f }' "$TMP/out"
done
check "bpf_dctcp's row has CE marks" awk '$1 == "bpf_dctcp" && $5 > 0 { f = 1 } END { exit !f }' "$TMP/out"
check "cubic's has none (no ECN)" awk '$1 == "cubic" && NF == 8 && $5 == 0 { f = 1 } END { exit !f }' "$TMP/out"
check "and bpf_dctcp's own counters" grep -q '^bpf_dctcp *ece_acks' "$TMP/out"
check "no counter that reads as a failure (no_ecn, to_reno)" bash -c '! grep -Eq "no_ecn|to_reno" "$1"' _ "$TMP/out"
for cc in bpf_flashpass cubic bbr; do
	check "a row for $cc in the shallow buffer, with goodput" \
		awk -v c=$cc '$1 == c && NF == 6 && $2 > 1 { f = 1 } END { exit !f }' "$TMP/out"
done
# t_flashpass's bound on the same network (100 Mbit/s, 30 KB, 20 ms)
check_range "bpf_flashpass's scheduled data dropped (drops - unsched)" \
	"$(awk '$1 == "bpf_flashpass" && NF == 6 { print $4 - $5 }' "$TMP/out")" 0 3
# none of its own left (it may reap what a dead run left: fewer is fine)
check_range "test namespaces after it" "$(ip netns list | grep -c '^ccs' || true)" 0 "$ns_before"
check_range "run directories after it" "$(find /run/ccsuite/topo -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" \
	0 "$runs_before"
if [ "$dctcp_before" = 0 ]; then
	check "bpf_dctcp detached again" bash -c "! grep -qw bpf_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control"
else
	skip "bpf_dctcp detached again: it was registered before this test"
fi
