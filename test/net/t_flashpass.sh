#!/usr/bin/env bash
# bpf_flashpass's credit loop on the test network: s1 (access at the link
# rate) -> r (switch with the emulation queue, htb, 30 KB buffer) -> d,
# 20 ms back on a return link (bench/scenarios/flashpass-static-1.conf's
# network).  `ccload flashpass run` attaches the algorithm and its TC
# roles and paces emulation packets; a transfer on bpf_flashpass then runs
# on credits: the receiver returns them, the sender's ledger takes them,
# data goes out scheduled, and none of it is dropped where cubic's is.
# bench/trace/flashpass.bt shows the flow.  Without the receiver role no
# credit comes back and the flow falls back to Reno.  Stopping the pacer
# removes everything it attached.
source "$(dirname "$0")/lib.sh"
source "$TOPO_ROOT/bench/lib/sample.sh" # trace_unsupported

# Under TCG emulation (test/vm/run) the guest carries a tenth of the rate.
RATE=100mbit SECS=4
PACED_SECS=5
[ -z "${CCSUITE_VM:-}" ] || RATE=10mbit PACED_SECS=12

flashpass_net 2
S=$(topo_ns s1)
read -r SDEV _ <<<"$(topo_ports s1 | tr '\n' ' ')"

# start_pacer [RECEIVER [ccload args]]: ccload flashpass run, s1's roles
# and the receiver role on RECEIVER's port if given.
start_pacer() { topo_flashpass_run "$TMP/pacer.log" "s1 s2" "${1:-}" --link-rate "$RATE" "${@:2}"; }
stop_pacer() { topo_flashpass_stop; }

# transfer PORT [CC] [N]: two verified transfers to d at once, from s1
# ($TMP/client) and s2 ($TMP/client2; exit statuses in .rc beside them),
# on $CC by default; the ledger
# listing 1.5 s in goes to $TMP/flows, and s1's socket as ss shows it
# then, and every 100 ms after for N samples in all (1), to $TMP/ss.
transfer() {
	local c c2 cc=${2:-$CC}
	topo_bg d "$TCPXFER" server -C "$cc" -p "$1" -n 2 >/dev/null
	sleep 0.3
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p "$1" -C "$cc" -t $SECS >"$TMP/client" &
	c=$!
	topo_exec s2 "$TCPXFER" client -c "$IP_D" -p "$1" -C "$cc" -t $SECS >"$TMP/client2" &
	c2=$!
	sleep 1.5
	"$CCLOAD" -q flashpass flows --json >"$TMP/flows" 2>/dev/null
	# one process in s1's namespace for all samples: an `ip netns exec`
	# each took most of the 100 ms between them on a busy machine
	topo_exec s1 sh -c 'for i in $(seq "$2"); do
		ss -tinH state established "( dport = :$1 )"
		[ "$i" -eq "$2" ] || sleep 0.1
	done' _ "$1" "${3:-1}" >"$TMP/ss" 2>/dev/null
	wait $c
	echo $? >"$TMP/client.rc"
	wait $c2
	echo $? >"$TMP/client2.rc"
	if [ ! -s "$TMP/client" ] || [ ! -s "$TMP/client2" ]; then
		echo "    no transfer: the pacer said"
		sed 's/^/      /' "$TMP/pacer.log"
		echo "      available: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
	fi
}

# clients_ok DESC PRED: both clients of the last transfer exited 0, wrote
# one report each, and PRED holds for both.
clients_ok() {
	check "both clients exited 0 ($(cat "$TMP/client.rc" "$TMP/client2.rc" | tr '\n' ' '))" \
		bash -c '[ "$(cat "$1" "$2")" = "$(printf "0\n0")" ]' _ "$TMP/client.rc" "$TMP/client2.rc"
	check_reports "$1" 2 "$2" "$TMP/client" "$TMP/client2"
}

fpstat() { ccstat $CC "$1"; }
# tcpext NAME: the senders' TcpExt NAME counter so far (s1's and s2's namespaces)
tcpext() {
	local n t=0
	for n in s1 s2; do
		t=$((t + $(topo_exec $n nstat -az "TcpExt$1" | awk -v c="TcpExt$1" '$1 == c { v = $2 } END { print v + 0 }')))
	done
	echo $t
}
loss_probes() { tcpext TCPLossProbes; }
# the reorderings the senders' SACK or timestamps showed them
reorderings() { echo $(($(tcpext TCPSACKReorder) + $(tcpext TCPTSReorder))); }
# The senders' counters that say why a segment was resent.
RESEND_WHY="TCPLossProbes TCPTimeouts TCPSynRetrans TCPSackRecovery TCPRenoRecovery TCPSACKReorder TCPTSReorder TCPDSACKRecv TCPDSACKUndo TCPPartialUndo TCPFullUndo TCPLossUndo"
resend_counts() { local c; for c in $RESEND_WHY; do echo "$c $(tcpext $c)"; done; }

echo "the credit loop at the defaults: the pacer wakes each flow at its credits' usable times (release)"
check "ccload flashpass run starts (attaching $CC and three roles)" start_pacer d
check "its defaults: flows start at a quarter of r_max, a change measured on the new rate only (settle), gaps jittered 90 %" \
	grep -q 'w 8\.\.64/1024, start 256/1024, settle; gaps jittered 90 %)' "$TMP/pacer.log"
check "$CC is registered" cc_available $CC
topo_switch_stats --reset >/dev/null
emu_class0=$(topo_emu_class_pkts)
bt=
if why=$(trace_unsupported); then
	skip "bench/trace/flashpass.bt: $why"
else
	# tracefs in a private mount namespace: the host's mounts stay as they are
	unshare -m sh -c "mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
		exec timeout 30 bpftrace '$TOPO_ROOT/bench/trace/flashpass.bt'" >"$TMP/bt" 2>"$TMP/bt.err" &
	bt=$!
	for _ in $(seq 100); do grep -q '^Attaching' "$TMP/bt" && break; sleep 0.2; done
fi
transfer 5301
j=$(cat "$TMP/client")
echo "    $j"
echo "    $(cat "$TMP/client2")"
clients_ok "the sockets ran $CC and every byte arrived intact" \
	".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0"
f=$(jq -c --arg ip "$IP_S1" 'select(.src == $ip and .dport == 5301)' "$TMP/flows")
echo "    ledger 1.5 s in: $f"
check "the flow's ledger, 1.5 s in: credit phase, credits in, spent, emulation sent, a lag" \
	jq -e '.phase == "credit" and .credits > 0 and .credits_used > 0 and .emu_sent > 0 and
		.lag_us >= 0' <<<"$f"
# ledgers of the transfer (both ends), within 5 s of the close: a closed
# flow's ledger, left behind, would keep the pacer sending its emulation
ledgers_5301() { "$CCLOAD" -q flashpass flows --json | jq -s '[.[] | select(.dport == 5301 or .sport == 5301)] | length'; }
for _ in $(seq 50); do [ "$(ledgers_5301)" = 0 ] && break; sleep 0.1; done
check "the closed flows' ledgers are gone (left: $(ledgers_5301))" [ "$(ledgers_5301)" = 0 ]
sw=$(topo_switch_stats)
credits=$(fpstat credits) used=$(fpstat credits_used) wasted=$(fpstat credits_wasted)
sched=$(fpstat data_sched) unsched=$(fpstat data_unsched) refl=$(fpstat reflected)
emu_passed=$(jq '.emulation.normal.pkts + .emulation.over_provisioned.pkts' <<<"$sw")
echo "    credits $credits (used $used, wasted $wasted), reflected $refl, emulation passed $emu_passed; data frames: $sched scheduled, $unsched unscheduled"
check_range "the flows entered the credit phase" "$(fpstat phase_credit)" 2 4
check_range "credits taken into the ledger" "$credits" 100 1e12
check "no credit without an emulation packet the switch passed and the receiver returned ($credits <= $refl <= $emu_passed)" \
	test "$credits" -le "$refl" -a "$refl" -le "$emu_passed"
emu_class=$(($(topo_emu_class_pkts) - emu_class0))
check "every emulation packet the switch passed left by the emulation class ($emu_class of $emu_passed)" \
	test "$emu_passed" -gt 0 -a "$emu_class" -eq "$emu_passed"
check "no more credits spent or wasted than taken ($used + $wasted <= $credits)" \
	[ $((used + wasted)) -le "$credits" ]
# Unscheduled frames are the initial windows and the probes of a flow
# out of credit.  On the host, 20 runs (test/spread): mean 0.99861, sd
# 0.00008, 0.99842-0.99874; held to 0.995.  In the 6.1 VM at 10 Mbit/s
# 105 of 2185 (0.95, one run: the same initial windows over a tenth of
# the frames); held to 0.9 there.
SCHED_LO=0.995
[ -z "${CCSUITE_VM:-}" ] || SCHED_LO=0.9
check_range "scheduled share of the data frames" \
	"$(awk -v a="$sched" -v b="$unsched" 'BEGIN { print a / (a + b) }')" $SCHED_LO 1
check "the switch saw scheduled data in class 0 and unscheduled in class 1" \
	jq -e '.classes[0].pkts > 0 and (.classes[1].pkts + .classes[1].dropped) > 0' <<<"$sw"
check "no flow fell back" [ "$(fpstat fallbacks)" -eq 0 ]
rel=$(fpstat releases) cacks=$(fpstat credit_acks)
echo "    releases made ACKs $rel, dropped $(fpstat releases_idle)"
check "no credit became an ACK when it came (the releases do that)" [ "$cacks" -eq 0 ]
# the CC takes a credit only for a release that came (the ledger's grants)
check "no credit spent without its release ($used <= $rel)" [ "$used" -gt 0 -a "$used" -le "$rel" ]
# A release for each credit but those still pending when the flows end
# and those the pacer sent over the expiry late.  On the host, at
# f76dc05, 20 runs: mean 0.9701, sd 0.0090, 0.9524-0.9808; held to 0.9
# (7.8 sd below).  Under TCG the pacer's timers run milliseconds late
# and releases expire by the emulator's clock, not the code's (0.976-
# 0.978 in three runs, 0.892 in a CI run with 302 of 3081 expired): not
# measured there; the accounting above and the expiry checks below are.
rel_share=$(awk -v r="$rel" -v c="$credits" 'BEGIN { print r / c }')
if [ -n "${CCSUITE_VM:-}" ]; then
	skip "credits released, of those that came ($rel_share): not measured under TCG emulation (releases expire by its late timers)"
else
	check_range "credits released, of those that came" "$rel_share" 0.9 1
fi
# (the handshake's last ACK, before init(), once counted one per connection)
check "no flow lost its ledger (ledger_lost $(fpstat ledger_lost))" [ "$(fpstat ledger_lost)" -eq 0 ]
# Scheduled frames the switch dropped.  Measured on the host (two flows,
# 30 000 scheduled frames each run): with a flow's bank of unspent
# credits bounded in time (bank_us), none in 106 of 107 runs and 1 frame
# in one; bounded in count (bank_max 16, before), 5-8 in 8 of 23 runs.
# What dropped since was a stall of the machine: releases late by up to
# the expiry caught up above the link rate.  4 s transfers on this
# network: with the expiry at 2 ms, 1-15 frames in 4 of 258, the data
# queue's peak up to 29.97 KB; at 1 ms (the default since), none in 310,
# the peak at most 27.9 KB; 20 runs at f76dc05: 0 in 18, 1 in 2.  Held
# to 3 frames: zero is what runs show, but the worst peak left one frame
# of room.  Cubic, below, drops 40 to 288 (20 runs, mean 129) on the
# same network.
# Under TCG (CCSUITE_VM) timers run milliseconds late and the guest
# carries a tenth of the rate: its drop counts say nothing of the CCs.
fp_dropped=$(jq '.classes[0].dropped' <<<"$sw")
if [ -n "${CCSUITE_VM:-}" ]; then
	skip "scheduled-data drops: not measured under TCG emulation"
else
	check_range "scheduled frames dropped at the switch (class 0, of $sched)" "$fp_dropped" 0 3
fi
if [ -n "$bt" ]; then
	topo_stop "$bt" INT
	row=$(grep -m1 "\[[0-9]*, 5301\]: (credit," "$TMP/bt")
	echo "    flashpass.bt: $row"
	[ -n "$row" ] || sed 's/^/    ! /' "$TMP/bt.err" | head -5
	# (phase, credits, usable unspent, usable/s, emulation/s, cwnd)
	check "flashpass.bt shows the flow in the credit phase with credits and rates" \
		awk -F'[(),]' '{ exit !($4 > 0 && $6 > 0 && $7 > 0 && $8 > 0) }' <<<"$row"
fi
"$CCLOAD" -q flashpass flows >"$TMP/flows.txt"
check "flashpass flows (text) lists a ledger or none" grep -q 'flow\|no flows' "$TMP/flows.txt"

echo "stopping the pacer"
stop_pacer
rc=$?
tail -n 3 "$TMP/pacer.log" | sed 's/^/    /'
check "it exits 0 on SIGTERM" [ "$rc" -eq 0 ]
check "it reports its CPU per emulation packet" grep -q 'ns per packet' "$TMP/pacer.log"
prel=$(grep -o '[0-9]* releases, [0-9]* not sent (credit lost), [0-9]* not sent ([^)]*), [0-9]* expired ([^)]*), [0-9]* not kept' \
	"$TMP/pacer.log")
check "it reports its releases, and kept every one (${prel:-no report})" \
	bash -c "[[ '$prel' == *', 0 not kept' ]]"
exp_ms=$(awk -v ns="$(topo_units time "${TOPO_FP_EXPIRY:-1ms}")" 'BEGIN { printf "%g", ns / 1e6 }')
check "its releases expired over the expiry asked (${TOPO_FP_EXPIRY:-the default}, $exp_ms ms)" \
	bash -c "[[ '$prel' == *'expired (over $exp_ms ms late)'* ]]"
# every packet built counts once by how late it left: sent + send errors
late_sum=$(grep '^flashpass pacer: late by' "$TMP/pacer.log" |
	grep -o 'up to 100 us [0-9]*, 1 ms [0-9]*, more [0-9]*' | awk '{ n += $5 + $8 + $10 } END { print n + 0 }')
built=$(grep '^flashpass pacer: [0-9]* flows' "$TMP/pacer.log" |
	grep -o '[0-9]* emulation packets\|[0-9]* send errors' | awk '{ n += $1 } END { print n + 0 }')
check "its lateness counts ($late_sum) cover every packet it sent ($built)" \
	bash -c '[ "$1" -gt 0 ] && [ "$1" = "$2" ]' _ "$late_sum" "$built"
check "$CC is unregistered" bash -c "! tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx $CC"
check "its pins are gone" [ ! -e /sys/fs/bpf/ccsuite/$CC ]
for n in s1 d; do
	for dev in $(topo_ports $n); do
		for dir in egress ingress; do
			check "no TC filter left on $n's $dev $dir" \
				bash -c "[ -z \"\$(tc -n '$(topo_ns $n)' filter show dev '$dev' $dir)\" ]"
		done
	done
done

if [ -z "${CCSUITE_VM:-}" ]; then
	echo "cubic on the same network drops data"
	topo_switch_stats --reset >/dev/null
	transfer 5303 cubic
	clients_ok "both ran cubic and arrived intact" \
		'.cc == "cubic" and .pattern_ok and .bytes == .received and .bytes > 0'
	cubic_dropped=$(topo_switch_stats | jq '.classes[0].dropped')
	check_range "cubic's frames the switch dropped (FlashPass's: $fp_dropped)" \
		"$cubic_dropped" 1 1e9
	# the point of the credits, in one run: fewer scheduled frames lost
	# than cubic loses on the same network
	check "FlashPass lost fewer scheduled frames than cubic ($fp_dropped < $cubic_dropped)" \
		[ "$fp_dropped" -lt "$cubic_dropped" ]
else
	skip "cubic's drops on the same network: not measured under TCG emulation"
fi

echo "no receiver role: no credits, the flow falls back to Reno"
check "ccload flashpass run --no-settle --jitter 0 --start 1024 starts without the receiver role" \
	start_pacer "" --no-settle --jitter 0 --start 1024
check "its start line says so" grep -q 'start 1024/1024, no settle; gaps jittered 0 %)' "$TMP/pacer.log"
transfer 5302
j=$(cat "$TMP/client")
echo "    $j"
clients_ok "every byte arrived intact" '.pattern_ok and .bytes == .received and .bytes > 0'
check_range "flows that fell back" "$(fpstat fallbacks)" 2 4
check "no credit came" [ "$(fpstat credits)" -eq 0 ]
check "the pacer stops cleanly" stop_pacer

echo "credit batching: one credit for every 4 emulation packets, released by the pacer"
check "ccload flashpass run --set credit_batch=4 starts" \
	topo_flashpass_run "$TMP/pacer.log" "s1 s2" d --link-rate "$RATE" --set credit_batch=4
transfer 5304
clients_ok "every byte arrived intact, on $CC" \
	".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0"
credits=$(fpstat credits) refl=$(fpstat reflected) batched=$(fpstat batched)
echo "    credits $credits, credit packets $refl, emulation packets left to a later credit $batched"
check_range "credit packets returned" "$refl" 10 1e12
# the sender counts each credit packet's 4 (all of them, unless one was
# lost on the way back); the receiver left 3 per credit packet to it, and
# fewer than 4 per flow (2 flows) of an unfinished batch
check "credits: 4 per credit packet, none more ($credits <= 4 x $refl)" \
	[ "$credits" -le $((4 * refl)) -a $((credits % 4)) -eq 0 ]
check_range "credits that reached the sender, of 4 x credit packets" \
	"$(awk -v c="$credits" -v r="$refl" 'BEGIN { print c / (4 * r) }')" 0.99 1
check_range "emulation packets left to a later credit" "$batched" $((3 * refl)) $((3 * refl + 6))
# the pacer cannot tell a batch's lost packets from those it stands for:
# it sends every release, and the credits are spent (0.25 when it took
# the others for lost and sent no release).  On the host, 20 runs: mean
# 0.9869, sd 0.0050, 0.9736-0.9907; held to 0.95 (7 sd below).  Under TCG
# a credit is spent only if its release beats the expiry by the
# emulator's timers (0.962 and 0.964 in two runs, 0.889 in a CI run):
# not measured there, like the released share above; the accounting is.
used=$(fpstat credits_used) rel=$(fpstat releases)
spent_share=$(awk -v u="$used" -v c="$credits" 'BEGIN { print u / c }')
check "no credit spent without its release ($used <= $rel)" [ "$used" -gt 0 -a "$used" -le "$rel" ]
check "no flow fell back" [ "$(fpstat fallbacks)" -eq 0 ]
check "the pacer stops cleanly" stop_pacer
if [ -n "${CCSUITE_VM:-}" ]; then
	skip "credits spent with batches, of those that came ($spent_share; pacer: $(grep -o '[0-9]* expired ([^)]*)' "$TMP/pacer.log" | tail -n 1)): not measured under TCG emulation (releases expire by its late timers)"
else
	check_range "credits spent, of those that came" "$spent_share" 0.95 1
fi

echo "no release, credits as ACKs (credit_ack), unpaced (pace=0): each credit reaches its flow's socket"
check "ccload flashpass run --set release=0 --set credit_ack=1 --set pace=0 starts" \
	topo_flashpass_run "$TMP/pacer.log" "s1 s2" d --link-rate "$RATE" --set release=0 \
	--set credit_ack=1 --set pace=0
topo_switch_stats --reset >/dev/null
probes0=$(loss_probes) reord0=$(reorderings) why0=$(resend_counts)
transfer 5305
# ss shows no pacing_rate for a socket paced at ~0 (unlimited)
check "the flow ran unpaced, 1.5 s in ($(grep -o 'pacing_rate [^ ]*' "$TMP/ss" || echo none))" \
	bash -c "grep -q $CC '$TMP/ss' && ! grep -q pacing_rate '$TMP/ss'"
clients_ok "every byte arrived intact, on $CC" \
	".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0"
credits=$(fpstat credits) cacks=$(fpstat credit_acks) acks=$(fpstat acks)
retrans=$(jq -s 'map(.retrans) | add' "$TMP/client" "$TMP/client2")
sw_dropped=$(topo_switch_stats | jq '[.classes[].dropped] | add')
probes=$(($(loss_probes) - probes0)) reord=$(($(reorderings) - reord0))
echo "    credits $credits, as ACKs $cacks; the CC ran on $acks ACKs; retransmitted $retrans," \
	"the switch dropped $sw_dropped, tail loss probes $probes, reorderings seen $reord"
echo "    senders' counters moved: $(join -j1 <(echo "$why0" | sort) <(resend_counts | sort) |
	awk '$3 != $2 { printf "%s%s +%d", s, $1, $3 - $2; s = ", " }')"
# a credit before its flow's first pure ACK has no ACK to become
check_range "credits that became ACKs, of those taken" \
	"$(awk -v a="$cacks" -v c="$credits" 'BEGIN { print a / c }')" 0.99 1
check "the kernel took them: the CC ran on each and on the real ACKs ($acks > $cacks)" \
	[ "$acks" -gt "$cacks" ]
# Duplicate ACKs start no recovery where SACK is on (RACK): what is
# resent beyond the switch's drops and the tail loss probes (a segment
# resent when no ACK came for about two RTTs) is a segment that came
# late.  The test network reorders: a virtual link queues each packet on
# the backlog of the CPU that forwards it, and the two CPUs deliver
# theirs in parallel (with RPS, which steers a flow to one CPU, none in
# 3 runs).  The senders saw 10-36 reorderings a run (8 runs), and RACK
# waited nearly all out: in 18 runs one segment was resent once, and
# once a recovery began and was undone before it resent any.  So at
# most one a reordering; recovery at the credits' duplicate ACKs would
# resend hundreds.
check "no retransmission beyond the switch's drops, loss probes and reorderings ($retrans <= $sw_dropped + $probes + $reord)" \
	[ "$retrans" -le $((sw_dropped + probes + reord)) ]
check "no flow fell back" [ "$(fpstat fallbacks)" -eq 0 ]
check "the pacer stops cleanly" stop_pacer

echo "no release, credits as ACKs, paced at the last credits (pace_credits): the flow follows its credit rate"
check "ccload flashpass run --set release=0 --set credit_ack=1 --set pace_credits=8 starts" \
	topo_flashpass_run "$TMP/pacer.log" "s1 s2" d --link-rate "$RATE" --set release=0 \
	--set credit_ack=1 --set pace_credits=8
# 20 ss samples need 3.5 s of transfer after the 1.5 s start on the host
# (12-17 in 2.5 s, 7 runs); under TCG one ss takes 0.5-0.8 s: 3-5 in
# 2.5 s, 18-20 in 10.5 s (4 VM runs each).
SECS=$PACED_SECS transfer 5306 "$CC" 20
clients_ok "every byte arrived intact, on $CC" \
	".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0"
# ss every 100 ms from 1.5 s in: the pacing rate against the rate the
# flow's data is acknowledged at, the median (the lower middle one of an
# even count) of the samples that show both, 10 at least.  Both follow
# the same credits, so they agree; one sample does not (an average of 8
# credits' gaps beside ss's delivery rate of one RTT, the pacer's credits
# in clumps): in 2 runs of flashpass-crash-join-paced-on, 1300 samples,
# p10 0.89-0.90, median 1.06-1.10, p90 1.33-1.60; in 6 runs of this
# test, medians 0.99-1.12 (14-17 samples each); in 17 clean-clone CI
# runs (host and VM) 0.97-1.05 and once 0.77 (cause not
# found), hence 0.7; on the host, 20 runs at f76dc05: mean 1.021, sd
# 0.046, 0.937-1.086.  The pacing of a flow without credits (init_cwnd
# segments per RTT) or without a gap average (the link's) is far outside.
ratio=$(awk '{ p = d = ""
		for (i = 1; i < NF; i++)
			if ($i == "pacing_rate") p = bps($(i + 1)); else if ($i == "delivery_rate") d = bps($(i + 1))
		if (p != "" && d > 0) print p / d }
	# a rate as ss prints it: bits/s with -n, else 900bps, 12.5kbps, 44.6Mbps
	function bps(r,  m) { m = 1; if (r ~ /[kK]bps$/) m = 1e3; else if (r ~ /Mbps$/) m = 1e6
		else if (r ~ /Gbps$/) m = 1e9; else if (r ~ /Tbps$/) m = 1e12; return (r + 0) * m }' \
	"$TMP/ss" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], NR }')
echo "    median pacing_rate / delivery_rate, samples: ${ratio:-none}"
check "at least 10 samples show both rates" [ "${ratio#* }" -ge 10 ] 2>/dev/null
check_range "median pacing rate over delivery rate" "${ratio%% *}" 0.7 1.3
check "no flow fell back" [ "$(fpstat fallbacks)" -eq 0 ]
check "the pacer stops cleanly" stop_pacer

echo "the credit loop in the kernel (loop): each credit becomes its flow's next emulation packet"
check "ccload flashpass run --set loop=1 --set release=0 --set pace_credits=8 starts" \
	topo_flashpass_run "$TMP/pacer.log" "s1 s2" d --link-rate "$RATE" --set loop=1 \
	--set release=0 --set credit_ack=1 --set pace_credits=8
check "the pacer says it only starts the loops, at no real-time priority" \
	grep -q 'the kernel clocks the emulation (loop): the pacer starts each loop' "$TMP/pacer.log"
topo_switch_stats --reset >/dev/null
transfer 5307
echo "    $(cat "$TMP/client")"
echo "    $(cat "$TMP/client2")"
clients_ok "every byte arrived intact, on $CC" \
	".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0"
f=$(jq -c --arg ip "$IP_S1" 'select(.src == $ip and .dport == 5307)' "$TMP/flows")
echo "    ledger 1.5 s in: $f"
check "the flow's ledger, 1.5 s in: credit phase, its emulation the kernel's, a window" \
	jq -e '.phase == "credit" and .emu_by == "kernel" and .loop_window >= 1 and
		.loop_rtt_us > 0 and .credits > 0' <<<"$f"
sw=$(topo_switch_stats)
loop_sent=$(fpstat loop_sent) grown=$(fpstat loop_grown) ended=$(fpstat loop_ended)
credits=$(fpstat credits) refl=$(fpstat reflected)
emu_passed=$(jq '.emulation.normal.pkts + .emulation.over_provisioned.pkts' <<<"$sw")
fallbacks=$(fpstat fallbacks)
stop_pacer
rc=$?
seeds=$(grep -o '^flashpass pacer: [0-9]* flows, [0-9]* emulation packets' "$TMP/pacer.log" |
	awk '{ print $5 }')
sched=$(jq '.classes[0].pkts' <<<"$sw") fp_dropped=$(jq '.classes[0].dropped' <<<"$sw")
echo "    credits $credits, reflected $refl, emulation passed $emu_passed; made by credits" \
	"$loop_sent ($grown grown, $ended ended), by the pacer ${seeds:-?}; scheduled frames" \
	"$sched, dropped $fp_dropped"
grep '^flashpass pacer: [0-9]* flows' "$TMP/pacer.log" | sed 's/^/    /'
check "the pacer exits 0 on SIGTERM" [ "$rc" -eq 0 ]
check_range "credits taken into the ledger" "$credits" 100 1e12
check "no credit without an emulation packet the switch passed and the receiver returned ($credits <= $refl <= $emu_passed)" \
	test "$credits" -le "$refl" -a "$refl" -le "$emu_passed"
check "the loops grew from their first packets (loop_grown $grown)" [ "$grown" -gt 0 ]
# The pacer sends only a loop's first packets and restarts.  Measured on
# the host, 20 runs at f76dc05: mean 0.9657, sd 0.0059, 0.9545-0.9764;
# held to 0.935 (5 sd below).  Under TCG 0.946 and 0.964 (2 runs); held
# to 0.9 there.
LOOP_LO=0.935
[ -z "${CCSUITE_VM:-}" ] || LOOP_LO=0.9
check_range "emulation packets the credits made, of all sent" \
	"$(awk -v l="$loop_sent" -v s="${seeds:-x}" 'BEGIN { if (s ~ /^[0-9]+$/) print l / (l + s) }')" \
	$LOOP_LO 1
check "no flow fell back ($fallbacks)" [ "$fallbacks" = 0 ]

echo "refusals"
check_fails "flows while $CC is not attached" "is not attached" "$CCLOAD" flashpass flows
check_fails "an unknown role" "has no TC role" "$CCLOAD" flashpass run --tc "nosuch=$SDEV@$S"
check_fails "a namespace that does not exist" "no network namespace" "$CCLOAD" flashpass run -n "ccs-none-$$"
check_fails "a link rate below 1 Mbit/s" "--link-rate" "$CCLOAD" flashpass run --link-rate 5kbit
check_fails "min-loss above max-loss" "is above --max-loss" "$CCLOAD" flashpass run --min-loss 200 --max-loss 100
check_fails "a w of 0" "--w-max: '0'" "$CCLOAD" flashpass run --w-max 0
check_fails "a start rate of 0" "--start: '0'" "$CCLOAD" flashpass run --start 0
check_fails "a start rate above r_max" "--start: '1025'" "$CCLOAD" flashpass run --start 1025
check_fails "w-min above w-max" "is above --w-max" "$CCLOAD" flashpass run --w-min 20 --w-max 16
check_fails "a jitter of 100 % (a gap of 0)" "--jitter: '100' is not a percentage in \[0, 99\]" \
	"$CCLOAD" flashpass run --jitter 100
check_fails "a release expiry under 100 us" "--release-expiry: '50us'" \
	"$CCLOAD" flashpass run --release-expiry 50us
check_fails "a tunable it does not have" "not a tunable" "$CCLOAD" flashpass run --set nosuch=1
check_fails "the kernel's loop with the pacer's releases" "loop=1 needs release=0" \
	"$CCLOAD" flashpass run --set loop=1
check "none of them attached anything" bash -c "! tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx $CC"
