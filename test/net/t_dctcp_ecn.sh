#!/usr/bin/env bash
# bpf_dctcp carries real transfers through the test switch: two senders ->
# router (switch + tbf, 100 Mbit/s, 150 KB buffer, K = 30 KB) -> receiver.
# With ECN marking at K, DCTCP keeps the queue near K without a single
# drop; kernel cubic (no ECN) in the same network fills the buffer and
# drops.
source "$(dirname "$0")/lib.sh"

# Under TCG emulation (test/vm/run) the guest carries only a few tens of
# Mbit/s through this network: there the same checks run at 10 Mbit/s, so
# that the switch, not the guest's CPUs, is the bottleneck.
MBIT=100
[ -z "${CCSUITE_VM:-}" ] || MBIT=10
RATE=${MBIT}mbit BUFFER=150kb K=30kb
BUF_B=$(topo_units size "$BUFFER") K_B=$(topo_units size "$K")
SECS=5

topo_init
topo_dumbbell 2 "$RATE" "$BUFFER" "$K"
"$CCLOAD" -q attach bpf_dctcp

# run_pair CC PORT: two concurrent verified transfers s1,s2 -> d.  The
# switch counters cover the steady state: they are zeroed 1 s in, after
# slow start (two flows starting at once in slow start can overshoot the
# buffer before the first marks come back; Linux's DCTCP does the same).
run_pair() {
	local cc=$1 port=$2 p1 p2
	topo_bg d "$TCPXFER" server -C "$cc" -p "$port" -n 2 >"$TMP/srv.$cc"
	sleep 0.3
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p "$port" -C "$cc" -t $SECS >"$TMP/c1.$cc" &
	p1=$!
	topo_exec s2 "$TCPXFER" client -c "$IP_D" -p "$port" -C "$cc" -t $SECS >"$TMP/c2.$cc" &
	p2=$!
	sleep 1
	topo_switch_stats --reset >/dev/null
	wait $p1 $p2
	sleep 0.2
	topo_switch_stats >"$TMP/sw.$cc"
}

# check_clients CC ECN: both transfers ran on CC, negotiated ECN or not, intact.
check_clients() {
	local cc=$1 ecn=$2 c j
	for c in c1 c2; do
		j=$(cat "$TMP/$c.$cc")
		echo "    $j"
		check "$c: socket reports $cc" [ "$(jfield "$j" .cc)" = "$cc" ]
		check "$c: ECN negotiated: $ecn" [ "$(jfield "$j" .ecn)" = "$ecn" ]
		check "$c: every byte arrived intact" [ "$(jfield "$j" '.pattern_ok and .bytes == .received and .bytes > 0')" = true ]
	done
}

TMP=$(mktemp -d)
trap 'topo_cleanup; rm -rf "$TMP"; "$CCLOAD" -q detach bpf_dctcp >/dev/null 2>&1' EXIT

before_init=$(ccstat bpf_dctcp flows_init)
before_ce=$(ccstat bpf_dctcp delivered_ce)
before_ece=$(ccstat bpf_dctcp ece_acks)
before_alpha=$(ccstat bpf_dctcp alpha_updates)
before_flips=$(ccstat bpf_dctcp ce_flips)

echo "bpf_dctcp: 2 flows x ${SECS}s, $RATE, buffer $BUFFER, K $K"
run_pair bpf_dctcp 5601
check_clients bpf_dctcp true
check "receiver sockets report bpf_dctcp" [ "$(jq -r .cc "$TMP/srv.bpf_dctcp" | sort -u)" = bpf_dctcp ]

sw=$(cat "$TMP/sw.bpf_dctcp")
echo "    switch: $(jq -c '{pkts,marked,dropped,avg_backlog,max_backlog}' <<<"$sw")"
check_range "dctcp: switch drops" "$(jfield "$sw" .dropped)" 0 0
check_range "dctcp: CE marks" "$(jfield "$sw" .marked)" 1 1e12
# The queue DCTCP holds.  Measured on the host over 20 runs: time average
# 29050 bytes (sd 59, 28837-29118; K is 30720), the peak 39591 (sd 1199,
# at most 42392).  Held to K +-20 % and 2 K: an alpha or a window cut
# gone wrong moves them by more.  Under TCG (10 Mbit/s, one run: 29709
# and 37850) the looser design bounds stay: K/3..2 K, below the buffer.
if [ -n "${CCSUITE_VM:-}" ]; then
	avg_lo=$((K_B / 3)) avg_hi=$((K_B * 2)) peak_hi=$((BUF_B - 1))
else
	avg_lo=$((K_B * 4 / 5)) avg_hi=$((K_B * 6 / 5)) peak_hi=$((K_B * 2))
fi
check_range "dctcp: time-average queue near K (bytes)" "$(jfield "$sw" .avg_backlog)" $avg_lo $avg_hi
check_range "dctcp: max queue (bytes)" "$(jfield "$sw" .max_backlog)" 1 $peak_hi
gp=$(jq -s 'map(.goodput_bps) | add / 1e6' "$TMP/c1.bpf_dctcp" "$TMP/c2.bpf_dctcp")

# The CC's own counters moved: flows (both ends), ECN feedback, alpha.
check_range "stats: flows_init grew by (2 senders + 2 receivers)" \
	$(($(ccstat bpf_dctcp flows_init) - before_init)) 4 4
check_range "stats: delivered_ce grew" $(($(ccstat bpf_dctcp delivered_ce) - before_ce)) 1 1e12
check_range "stats: ece_acks grew" $(($(ccstat bpf_dctcp ece_acks) - before_ece)) 1 1e12
check_range "stats: alpha_updates grew" $(($(ccstat bpf_dctcp alpha_updates) - before_alpha)) 10 1e12
check_range "stats: receiver CE flips grew" $(($(ccstat bpf_dctcp ce_flips) - before_flips)) 1 1e12

echo "bpf_dctcp towards a receiver without ECN (cubic): handed to the kernel's reno"
# RFC 3168: a flow that did not negotiate ECN must not send ECT, or a
# marking AQM marks what it should drop and no one echoes the mark.
no_ecn0=$(ccstat bpf_dctcp no_ecn)
to_reno0=$(ccstat bpf_dctcp to_reno)
topo_bg d "$TCPXFER" server -C cubic -p 5603 -n 2 >/dev/null
sleep 0.3
topo_exec s1 "$TCPXFER" client -c "$IP_D" -p 5603 -C bpf_dctcp -t $SECS >"$TMP/c1.noecn" &
p1=$!
topo_exec s2 "$TCPXFER" client -c "$IP_D" -p 5603 -C bpf_dctcp -t $SECS >"$TMP/c2.noecn" &
p2=$!
sleep 1
topo_switch_stats --reset >/dev/null
wait $p1 $p2
sleep 0.2
sw=$(topo_switch_stats)
for c in c1 c2; do
	j=$(cat "$TMP/$c.noecn")
	echo "    $j"
	check "$c: no ECN, the socket now on reno, every byte intact" \
		[ "$(jfield "$j" '.cc == "reno" and (.ecn | not) and .pattern_ok and .bytes == .received and .bytes > 0')" = true ]
done
check_range "bpf_dctcp counted both flows without ECN" $(($(ccstat bpf_dctcp no_ecn) - no_ecn0)) 2 2
check_range "... and handed both to reno" $(($(ccstat bpf_dctcp to_reno) - to_reno0)) 2 2
echo "    switch: $(jq -c '{pkts,marked,dropped,not_ect_over_k,max_backlog}' <<<"$sw")"
check_range "packets above K, none ECN-capable" "$(jfield "$sw" .not_ect_over_k)" 1 1e12
check_range "CE marks (their packets were Not-ECT)" "$(jfield "$sw" .marked)" 0 0

echo "cubic: same network"
run_pair cubic 5602
check_clients cubic false	# the kernel default (tcp_ecn=2) does not request ECN
sw=$(cat "$TMP/sw.cubic")
echo "    switch: $(jq -c '{pkts,marked,dropped,avg_backlog,max_backlog}' <<<"$sw")"
check_range "cubic: max queue reaches the buffer (bytes)" "$(jfield "$sw" .max_backlog)" $((BUF_B * 9 / 10)) $BUF_B
# Under TCG the guest sends too slowly for cubic to overflow the buffer in
# 5 s (measured: 1.6 Mbit/s a flow, the queue up to 144 of 150 KB); it
# fills it (above).
if [ -n "${CCSUITE_VM:-}" ]; then
	skip "cubic: switch drops: the emulated guest is too slow to overflow the buffer in ${SECS}s"
else
	check_range "cubic: switch drops" "$(jfield "$sw" .dropped)" 1 1e12
fi
check_range "cubic: CE marks (Not-ECT)" "$(jfield "$sw" .marked)" 0 0

# DCTCP keeps the link busy.  Measured over 21 runs: 90.1 to 95.2 Mbit/s
# in 17, 79.9 to 81.4 in three on a machine slowed by other work (cubic
# 74.2 to 94.4 in those), and 84.0 beside cubic's 89.3 in one with a
# build beside it: the dctcp and cubic runs come one after the other, so
# a slow spell can hit one and not the other.  Held to 75 % of the rate,
# or 90 % of cubic's in the same run where the machine carried less; a
# DCTCP that cuts too hard (an alpha gone wrong) leaves the link far
# emptier.
gp_cubic=$(jq -s 'map(.goodput_bps) | add / 1e6' "$TMP/c1.cubic" "$TMP/c2.cubic")
echo "    goodput: bpf_dctcp $gp, cubic $gp_cubic Mbit/s"
check "dctcp: total goodput >= 75 % of $RATE, or >= 90 % of cubic's" \
	awk -v d="$gp" -v c="$gp_cubic" -v m=$MBIT 'BEGIN { exit !(d >= m * 0.75 || d >= c * 0.90) }'

echo "the switch detaches"
check "switch detach" "$CCLOAD" -q switch detach "$BN_DEV" -n "$BN_NS"
check_fails "no switch left on the port" "no switch attached" "$CCLOAD" switch stats "$BN_DEV" -n "$BN_NS"
check "no filter left on the port" bash -c "[ -z \"\$(tc -n $BN_NS filter show dev $BN_DEV egress)\" ]"
