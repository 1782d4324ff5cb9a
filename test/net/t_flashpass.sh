#!/usr/bin/env bash
# bpf_flashpass's credit loop on the test network: s1 -> r (switch with
# the emulation queue, tbf, 30 KB buffer) -> d.  `ccload flashpass run`
# attaches the algorithm and its TC roles and paces emulation packets; a
# transfer on bpf_flashpass then runs on credits: the receiver returns
# them, the sender's ledger takes them, data goes out scheduled.  Without
# the receiver role no credit comes back and the flow falls back to Reno.
# Stopping the pacer removes everything it attached.
source "$(dirname "$0")/lib.sh"

# Under TCG emulation (test/vm/run) the guest carries a tenth of the rate.
RATE=100mbit SECS=4
[ -z "${CCSUITE_VM:-}" ] || RATE=10mbit
CC=bpf_flashpass
TMP=$(mktemp -d)
trap 'topo_cleanup; "$CCLOAD" -q detach $CC >/dev/null 2>&1; rm -rf "$TMP"' EXIT

topo_init
topo_flashpass_switch
topo_dumbbell 1 "$RATE" 30kb 0
S=$(topo_ns s1) D=$(topo_ns d)
SDEV=$(topo_ports s1) DDEV=$(topo_ports d)

# start_pacer [RECEIVER]: ccload flashpass run, s1's roles and the
# receiver role on RECEIVER's port if given.
start_pacer() { topo_flashpass_run "$TMP/pacer.log" s1 "${1:-}" --link-rate "$RATE"; }
stop_pacer() { topo_flashpass_stop; }

# transfer PORT: one verified bpf_flashpass transfer s1 -> d; the ledger
# listing 1.5 s in goes to $TMP/flows.
transfer() {
	local c
	topo_bg d "$TCPXFER" server -C $CC -p "$1" -n 1 >/dev/null
	sleep 0.3
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p "$1" -C $CC -t $SECS >"$TMP/client" &
	c=$!
	sleep 1.5
	"$CCLOAD" -q flashpass flows --json >"$TMP/flows"
	wait $c
	if [ ! -s "$TMP/client" ]; then
		echo "    no transfer: the pacer said"
		sed 's/^/      /' "$TMP/pacer.log"
		echo "      available: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
	fi
}

fpstat() { ccstat $CC "$1"; }

echo "the credit loop"
check "ccload flashpass run starts (attaching $CC and three roles)" \
	start_pacer d
check "$CC is registered" cc_available $CC
topo_switch_stats --reset >/dev/null
transfer 5301
j=$(cat "$TMP/client")
echo "    $j"
check "the socket ran $CC" [ "$(jfield "$j" .cc)" = $CC ]
check "every byte arrived intact" [ "$(jfield "$j" '.pattern_ok and .bytes == .received and .bytes > 0')" = true ]
f=$(jq -c --arg ip "$IP_S1" 'select(.src == $ip and .dport == 5301)' "$TMP/flows")
echo "    ledger 1.5 s in: $f"
check "the flow's ledger, 1.5 s in: credit phase, credits in, spent, emulation sent" \
	jq -e '.phase == "credit" and .credits > 0 and .credits_used > 0 and .emu_sent > 0' <<<"$f"
sw=$(topo_switch_stats)
credits=$(fpstat credits) used=$(fpstat credits_used) wasted=$(fpstat credits_wasted)
sched=$(fpstat data_sched) unsched=$(fpstat data_unsched) refl=$(fpstat reflected)
emu_passed=$(jq '.emulation.normal.pkts + .emulation.over_provisioned.pkts' <<<"$sw")
echo "    credits $credits (used $used, wasted $wasted), reflected $refl, emulation passed $emu_passed; data frames: $sched scheduled, $unsched unscheduled"
check_range "the flow entered the credit phase" "$(fpstat phase_credit)" 1 4
check_range "credits taken into the ledger" "$credits" 100 1e12
check "no credit without an emulation packet the switch passed and the receiver returned ($credits <= $refl <= $emu_passed)" \
	test "$credits" -le "$refl" -a "$refl" -le "$emu_passed"
check "no more credits spent or wasted than taken ($used + $wasted <= $credits)" \
	[ $((used + wasted)) -le "$credits" ]
# Measured: 18..74 of 7000..25000 frames unscheduled on the host (the
# initial window and probes of a flow out of credit), >= 0.99 scheduled;
# 105 of 2185 (0.95) in the 6.1 VM at 10 Mbit/s.  Held to 0.9.
check_range "scheduled share of the data frames" \
	"$(awk -v a="$sched" -v b="$unsched" 'BEGIN { print a / (a + b) }')" 0.9 1
check "the switch saw scheduled data in class 0 and unscheduled in class 1" \
	jq -e '.classes[0].pkts > 0 and (.classes[1].pkts + .classes[1].dropped) > 0' <<<"$sw"
check "no flow fell back" [ "$(fpstat fallbacks)" -eq 0 ]
"$CCLOAD" -q flashpass flows >"$TMP/flows.txt"
check "flashpass flows (text) lists a ledger or none" grep -q 'flow\|no flows' "$TMP/flows.txt"

echo "stopping the pacer"
stop_pacer
rc=$?
tail -n 3 "$TMP/pacer.log" | sed 's/^/    /'
check "it exits 0 on SIGTERM" [ "$rc" -eq 0 ]
check "it reports its CPU per emulation packet" grep -q 'ns per packet' "$TMP/pacer.log"
check "$CC is unregistered" bash -c "! tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx $CC"
check "its pins are gone" [ ! -e /sys/fs/bpf/ccsuite/$CC ]
for spec in "$S $SDEV egress" "$S $SDEV ingress" "$D $DDEV ingress"; do
	read -r ns dev dir <<<"$spec"
	check "no TC filter left on $dev $dir" \
		bash -c "[ -z \"\$(tc -n '$ns' filter show dev '$dev' $dir)\" ]"
done

echo "no receiver role: no credits, the flow falls back to Reno"
check "ccload flashpass run starts without the receiver role" start_pacer
transfer 5302
j=$(cat "$TMP/client")
echo "    $j"
check "every byte arrived intact" [ "$(jfield "$j" '.pattern_ok and .bytes == .received and .bytes > 0')" = true ]
check_range "flows that fell back" "$(fpstat fallbacks)" 1 2
check "no credit came" [ "$(fpstat credits)" -eq 0 ]
check "the pacer stops cleanly" stop_pacer

echo "refusals"
check_fails "flows while $CC is not attached" "is not attached" "$CCLOAD" flashpass flows
check_fails "an unknown role" "has no TC role" "$CCLOAD" flashpass run --tc "nosuch=$SDEV@$S"
check_fails "a namespace that does not exist" "no network namespace" "$CCLOAD" flashpass run -n "ccs-none-$$"
check_fails "a link rate below 1 Mbit/s" "--link-rate" "$CCLOAD" flashpass run --link-rate 5kbit
check_fails "min-loss above max-loss" "is above --max-loss" "$CCLOAD" flashpass run --min-loss 200 --max-loss 100
check_fails "a tunable it does not have" "not a tunable" "$CCLOAD" flashpass run --set nosuch=1
check "none of them attached anything" bash -c "! tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx $CC"
