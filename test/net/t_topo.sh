#!/usr/bin/env bash
# The topology builder: every topology is reachable end to end with the
# configured propagation delay, and cleanup leaves nothing behind.
source "$(dirname "$0")/lib.sh"

topo_init
echo "delay backend: $TOPO_DELAY"
check "a delay backend was chosen" bash -c "[ '$TOPO_DELAY' = netem ] || [ '$TOPO_DELAY' = tap ] || [ '$TOPO_DELAY' = vde ]"

# rtt_check DESC NODE DST EXPECTED_MS [ping args]: the minimum of 10 pings
# (after one for ARP) within [-1, +SLACK x RTT_LINKS] ms of the configured
# RTT, RTT_LINKS being the delayed links on the path (default 1): +1.5 per
# link (VDE's clock releases packets on 1 ms ticks, each way; measured up
# to 17.7 ms for 16 over two links), or +4 under TCG
# emulation (test/vm/run), where each netem delay ends ~0.4 ms late (timer
# latency) and each namespace crossed adds ~0.1 ms: up to +2.8 ms measured
# on the parking lot's long path, 0.6 of it with no delay configured.
SLACK=1.5
[ -z "${CCSUITE_VM:-}" ] || SLACK=4
rtt_check() {
	local desc=$1 node=$2 dst=$3 want=$4 min
	shift 4
	topo_exec "$node" ping -c 1 -W 2 "$@" "$dst" >/dev/null 2>&1
	min=$(topo_exec "$node" ping -c 10 -i 0.05 -q "$@" "$dst" 2>/dev/null |
		sed -n 's|^rtt .* = \([0-9.]*\)/.*|\1|p')
	check_range "$desc: min RTT (ms)" "${min:-none}" "$(awk -v w="$want" 'BEGIN { print w - 1 }')" \
		"$(awk -v w="$want" -v s=$SLACK -v l="${RTT_LINKS:-1}" 'BEGIN { print w + s * l }')"
}

topo_dumbbell 2 100mbit 100kb 0 10,3
rtt_check "dumbbell s1 (10 ms each way)" s1 "$IP_D" 20
rtt_check "dumbbell s2 (3 ms each way)" s2 "$IP_D" 6
check "dumbbell: switch on the bottleneck" topo_switch_stats
check "IPv6 off by default: no global IPv6 address, no IP6_D" \
	bash -c "[ -z \"\$(ip -n $(topo_ns s1) -6 addr show scope global)\" ] && [ -z '${IP6_D:-}' ]"
topo_cleanup

# IPv6 on (TOPO_IPV6): the same reach over IPv6, by the return link's
# /128 route (20 ms back on s1's return link, nothing forward: without
# the route the replies would come back at once).
TOPO_IPV6=1 topo_dumbbell 1 100mbit 100kb 0 r20
rtt_check "dumbbell over IPv6, s1 20 ms back on its return link" s1 "$IP6_D" 20 -6
topo_cleanup
unset IP6_D IP6_S1

# A shaped host port (topo_shape) sends interactive packets first
# (pfifo_fast under tbf): 100 datagrams of 1400 bytes queued in s1's
# 1 Mbit/s port take 1.2 s to leave; a ping of TOS lowdelay
# (TC_PRIO_INTERACTIVE, as the FlashPass pacer's emulation packets) goes
# ahead of them, a plain one waits behind (400 ms at least: a third of
# the drain, room for a slow machine writing the datagrams).
topo_dumbbell 1 100mbit 100kb 0 0 1mbit
check "a shaped port: pfifo_fast under tbf" bash -c \
	"tc -n $(topo_ns s1) qdisc show dev $LINK_IF_A | grep -q 'pfifo_fast 10: parent 1:1'"
topo_exec s1 ping -c 1 -W 2 "$IP_D" >/dev/null 2>&1
burst_ping() {	# ping args: the RTT (ms) of one ping sent behind 140 KB
	topo_exec s1 bash -c "for i in {1..100}; do printf '%1400s' x >/dev/udp/$IP_D/9; done
		ping -c 1 -W 4 $* $IP_D" 2>/dev/null | sed -n 's|^rtt .* = \([0-9.]*\)/.*|\1|p'
}
check_range "interactive ping behind a full port (ms)" "$(burst_ping -Q 0x10)" 0 200
sleep 1.5
check_range "plain ping behind the same (ms)" "$(burst_ping)" 400 4000
topo_cleanup

# The switch judges the queue that really is in tbf: with tbf at a fifth of
# the switch's rate (as when tbf runs behind on a loaded machine), the
# switch still drops at its buffer.  A virtual queue drained at the
# switch's rate sees nothing of it, and the packets pile up in tbf.
slow_xfer() {	# PORT: 2 s of cubic s1 -> d, goodput in Mbit/s on stdout
	topo_bg d "$TCPXFER" server -C cubic -p "$1" -n 1 >/dev/null
	sleep 0.3
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p "$1" -C cubic -t 2 | jq '.goodput_bps / 1e6'
}
topo_dumbbell 1 100mbit 100kb 0
_topo_tbf "$BN_NS" "$BN_DEV" 20mbit $((2 * 102400 + 65536))
gp=$(slow_xfer 5701)
sw=$(topo_switch_stats)
check "qdisc queue: the switch reports it" [ "$(jfield "$sw" .queue)" = qdisc ]
gp_min=10	# a TCG guest (test/vm/run) may carry less
[ -z "${CCSUITE_VM:-}" ] || gp_min=2
check_range "qdisc queue: goodput through tbf at 20 Mbit/s" "$gp" "$gp_min" 20
check_range "qdisc queue: switch drops" "$(jfield "$sw" .dropped)" 1 1e12
check_range "qdisc queue: max queue seen (bytes, buffer 102400)" "$(jfield "$sw" .max_backlog)" 51200 102400
"$CCLOAD" -q switch attach "$BN_DEV" -n "$BN_NS" --queue virtual --rate 100mbit --buffer 100kb >/dev/null
gp=$(slow_xfer 5702)
sw=$(topo_switch_stats)
tbf_drops=$(tc -n "$BN_NS" -s -j qdisc show dev "$BN_DEV" | jq '[.[] | select(.kind == "tbf") | .drops] | add')
check_range "virtual queue at the switch's rate: switch drops" "$(jfield "$sw" .dropped)" 0 0
check_range "virtual queue: drops in tbf instead, out of the switch's sight" "$tbf_drops" 1 1e12
topo_cleanup

topo_parking_lot 50mbit 100kb 0 4
check "parking lot: two bottlenecks" [ ${#BN_LIST[@]} -eq 2 ]
RTT_LINKS=2 rtt_check "parking lot long flow (2 hops of 4 ms)" l "$IP_LD" 16
rtt_check "parking lot cross 1 (1 hop)" c1 "$IP_X1" 8
rtt_check "parking lot cross 2 (1 hop)" c2 "$IP_X2" 8
topo_cleanup

topo_wan3 50mbit 100kb 0 1 0.2	# whole ms: VDE rounds to 1 ms
check "WAN: a bottleneck each way on each of 3 links" [ ${#BN_LIST[@]} -eq 6 ]
rtt_check "WAN site 1 - site 2 (20 ms x 0.2)" h1_1 "$IP_H2_1" 8
rtt_check "WAN site 2 - site 3 (30 ms x 0.2)" h2_1 "$IP_H3_1" 12
rtt_check "WAN site 1 - site 3 (40 ms x 0.2)" h1_1 "$IP_H3_1" 16
topo_cleanup

topo_two_path 50mbit 100kb 0 2 5
rtt_check "two-path: path 1" a "$IP_B1" 4 -I "$IP_A1"
rtt_check "two-path: path 2 (policy-routed)" a "$IP_B1" 10 -I "$IP_A2"
# MPTCP really opens a second subflow over path 2.
topo_bg b "$TOPO_ROOT/build/wlgen" server -p 5730 >/dev/null 2>&1
sleep 0.3
topo_exec a "$TOPO_ROOT/build/wlgen" client -c "$IP_B1" -p 5730 --mptcp --size 3000000 \
	--load 0.5 --rate 50mbit --flows 1 >/dev/null
joins=$(topo_exec b nstat -az MPTcpExtMPJoinSynRx | awk '/MPJoinSynRx/ { print $2 }')
check_range "two-path: MPTCP joined a subflow" "${joins:-0}" 1 100
# The MPTCP hosts ACK every segment at once (topo_quickack): over a bulk
# transfer b sends about as many segments as it takes in (with delayed
# ACKs, about half as many).
topo_exec b nstat -n
topo_bg b "$TCPXFER" server -p 5731 -n 1 -M >/dev/null
sleep 0.3
topo_exec a "$TCPXFER" client -c "$IP_B1" -p 5731 -t 2 -M >/dev/null
read -r in out < <(topo_exec b nstat TcpInSegs TcpOutSegs | awk '/InSegs/ { i = $2 } /OutSegs/ { o = $2 } END { print i, o }')
check_range "two-path: b ACKed each segment (sent $out for $in taken in, x1000)" \
	$((1000 * out / (in ? in : 1))) 900 1100
topo_cleanup

topo_shared_two_path 50mbit 100kb 0 3
rtt_check "shared two-path: a over port 2" a "$IP_B" 6 -I "$IP_A2"
rtt_check "shared two-path: c" c "$IP_B" 6
topo_cleanup

# A link's random loss and a stall (topo_link_stall: the delay line or
# wirefilter stopped): netem has the first, not the second.
echo "random loss and a stall on a delayed link ($TOPO_DELAY)"
topo_node a
topo_node b
topo_link a b 2 2 10	# 10 % of a's frames to b lost
ip_b=$LINK_IP_B
topo_exec a ping -c 1 -W 2 "$ip_b" >/dev/null 2>&1
lost=$(topo_exec a ping -c 400 -i 0.01 -q "$ip_b" 2>/dev/null |
	sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')
# 400 pings, each lost with p = 0.1 one way: 40 +- 6 (sd); 3 sd either side
check_range "10 % random loss one way: pings lost (%)" "${lost:-none}" 5 15
topo_link a b 2 2
ip_b=$LINK_IP_B link=$TOPO_LINKS
if [ "$TOPO_DELAY" = netem ]; then
	skip "a stalled link: netem's queue cannot be paused"
else
	topo_exec a ping -c 1 -W 2 "$ip_b" >/dev/null 2>&1
	stall=$(mktemp)
	topo_exec a ping -c 30 -i 0.05 "$ip_b" >"$stall" 2>&1 &
	p=$!
	sleep 0.4
	topo_link_stall 0.6 "$link"
	wait $p
	max=$(sed -n 's|^rtt .* = [0-9.]*/[0-9.]*/\([0-9.]*\)/.*|\1|p' "$stall")
	check_range "a 0.6 s stall: the longest ping (ms)" "${max:-none}" 450 1000
	check "a stall holds, it does not drop: every ping answered" \
		grep -q ' 0% packet loss' "$stall"
	rm -f "$stall"
fi
id=$TOPO_ID
topo_cleanup
check "cleanup: no namespace of the run left" bash -c "! ip netns list | grep -q '^$id-'"
check "cleanup: no delay process of the run left (delayline, VDE)" \
	bash -c "! pgrep -f '[/]run/ccsuite/topo/$id/|[c]${id#c}-' >/dev/null"
check "cleanup: run directory removed" test ! -e "/run/ccsuite/topo/$id"

echo "a script's own EXIT trap, set before topo_init, still runs (after topo_cleanup)"
out=$(bash -c "source '$(dirname "$0")/topo.sh'; trap 'echo mine; ip netns list' EXIT
	topo_init; topo_node x; echo \$TOPO_ID" 2>&1)
xid=$(echo "$out" | head -1)
check "exit: the script's trap ran" grep -qx mine <<<"$out"
check "exit: topo_cleanup ran before it (no namespace of the run listed)" \
	bash -c "[ -n '$xid' ] && ! grep -q '^$xid-' <<<'$out'"

echo "what a killed run left, removed by the next"
dead=999999
while kill -0 $dead 2>/dev/null; do dead=$((dead + 1)); done	# no process has this PID
sleep 60 &
bystander=$!
left=/run/ccsuite/topo/ccs${dead}x1
mkdir -p "$left"
echo "$bystander" >"$left/wf1.pid"	# recorded without a start time
echo "$bystander 1" >"$left/wf2.pid"	# with a start time that is not its own
mkdir "$(_topo_cgroot)/ccs${dead}x1-tldct"
topo_reap
check "reap: the dead run's directory is removed" test ! -e "$left"
check "reap: its cgroup is removed" test ! -e "$(_topo_cgroot)/ccs${dead}x1-tldct"
check "reap: a process that only has a PID it recorded is not killed" kill -0 $bystander
kill $bystander 2>/dev/null
wait $bystander 2>/dev/null || true
