#!/usr/bin/env bash
# bpf_tldct carries two tasks through the ECN-marking test switch: two
# senders -> router (switch + tbf, 100 Mbit/s, 200 KB buffer, K = 30 KB) ->
# receiver.  Task L (2 flows, s1) runs in a cgroup and is named by it; task
# S (2 flows, s2) runs in the same cgroup but sets its id explicitly, starts
# later and is small.  Shown: the task id crosses on the SYN (an explicit
# id as its cgroup's wire id: bpf/tldct.h, "Tenants") and the receiver's
# table holds both tasks with their flows; the senders take S_t
# and n from the receiver's ACK option; an explicit id wins over the cgroup;
# S, which has sent less, gets the larger share while both run; ECN keeps
# the switch free of drops; the tables empty when the flows end.
source "$(dirname "$0")/lib.sh"

RATE=100mbit BUFFER=200kb K=30kb
# Ids of this run's own (the task tables are the host's; entries are
# scoped by cgroup and namespace, which are this run's too)
TASK_S=$((($$ << 16 | RANDOM) << 1)) TASK_X=$((TASK_S + 1))
L_SECS=6 S_START=2 S_BYTES=$((6 * 1024 * 1024))
# beta's ramp scaled to this link: S (12 MB in all) stays low, L (tens of
# MB by the time S starts) is at beta_max.
TUNE=(--set task_min_kb=2048 --set task_max_kb=32768)

test_net bpf_tldct
topo_dumbbell 2 "$RATE" "$BUFFER" "$K"
check "attach bpf_tldct with a scaled task-size ramp" \
	"$CCLOAD" -q attach bpf_tldct "${TUNE[@]}"

# A cgroup of its own for the senders: its id names task L.  (topo_reap
# removes it if this run is killed.)
topo_cgroup tldct
CG=$TOPO_CG
TASK_L=$(stat -c %i "$CG")
echo "cgroup $CG: id $TASK_L (task L); task S: $TASK_S (explicit)"

# in_cg NODE CMD...: CMD in the test cgroup (joined before the namespace:
# ip netns exec hides /sys/fs/cgroup) and in NODE's namespace.
in_cg() {
	local node=$1
	shift
	bash -c 'echo $$ >"$0/cgroup.procs" && exec ip netns exec "$@"' "$CG" "$(topo_ns "$node")" "$@"
}

stat0=$("$CCLOAD" stats bpf_tldct --json | jq -c .bpf_tldct)
d() { jq -n --argjson a "$stat0" --argjson b "$("$CCLOAD" stats bpf_tldct --json | jq -c .bpf_tldct)" "\$b.$1 - \$a.$1"; }

topo_bg d "$TCPXFER" server -C bpf_tldct -p 5801 -n 4 >"$TMP/srv"
sleep 0.3
for i in 1 2; do
	in_cg s1 "$TCPXFER" client -c "$IP_D" -p 5801 -C bpf_tldct -t $L_SECS >"$TMP/L$i" &
done
sleep $S_START
"$CCLOAD" task list --json >"$TMP/tables-s0"
t_s0=$(date +%s.%N)
# S's end is read the moment its flows end, by a waiter of their own: the
# steps below run meanwhile, and L's bytes counted until they were done
# would be L's bytes after S too.
(
	for i in 1 2; do
		in_cg s2 "$TCPXFER" client -c "$IP_D" -p 5801 -C bpf_tldct -T $TASK_S -b $S_BYTES >"$TMP/S$i" &
	done
	wait
	date +%s.%N >"$TMP/t_s1"
	"$CCLOAD" task list --json >"$TMP/tables-s1"
) &
swait=$!
# S's wire id (what its SYNs carried: its cgroup's id for TASK_S), then both
# of S's flows at the receiver (at once here; seconds under emulation)
wire_s=''
for ((t = 0; t < 50; t++)); do
	if [ -z "$wire_s" ] && spid=$(descendant "$swait" tcpxfer); then
		sfd=$(find "/proc/$spid/fd" -lname 'socket:*' -printf '%f\n' 2>/dev/null | head -1)
		wire_s=$("$CCLOAD" task get "$spid" "$sfd" 2>/dev/null | sed -n 's/.* sent as \([0-9]*\).*/\1/p')
	fi
	"$CCLOAD" task list --json >"$TMP/tables-mid"
	[ -n "$wire_s" ] && jq -e --argjson s "$wire_s" '[.[] | select(.side == "receiver" and .task == $s and .flows == 2)]
		| length == 1' "$TMP/tables-mid" >/dev/null && break
	sleep 0.1
done
# The switch counts from here: S's two flows, starting together in slow
# start beside L's queue at K, can overshoot the buffer before their first
# marks come back, as Linux's DCTCP does; ECN's claim is for
# what follows.
sleep 0.2
topo_switch_stats --reset >/dev/null
# what an S sender holds from the receiver (its tcpxfer's socket)
spid=$(descendant "$swait" tcpxfer)
sfd=$(find "/proc/$spid/fd" -lname 'socket:*' -printf '%f\n' 2>/dev/null | head -1)
"$CCLOAD" task get "$spid" "$sfd" >"$TMP/sget" 2>&1
wait "$swait"
t_s1=$(cat "$TMP/t_s1")
wait
sleep 0.3
topo_switch_stats >"$TMP/sw"

echo "receiver and sender tables while both tasks run:"
jq -c '.[]' "$TMP/tables-mid" | sed 's/^/    /'
rx() { jq --argjson t "$2" '[.[] | select(.side == "receiver" and .task == $t)][0]' "$1"; }
check "receiver table: task L (the cgroup's id) with its 2 flows" \
	jq -e '.flows == 2' <<<"$(rx "$TMP/tables-mid" "$TASK_L")"
check "receiver table: task S (explicit id, wins over the cgroup; wire id ${wire_s:-unknown}) with its 2 flows" \
	jq -e '.flows == 2' <<<"$(rx "$TMP/tables-mid" "${wire_s:-null}")"
check "sender table: task S in the cgroup with its 2 flows" jq -e --argjson s $TASK_S --argjson c "$TASK_L" \
	'[.[] | select(.side == "sender" and .task == $s and .cgroup == $c and .flows == 2)] | length == 1' "$TMP/tables-mid"
check "S's sender holds the receiver's view of its task (n = 2)" \
	grep -q "task $TASK_S (set explicitly) in cgroup $TASK_L, sent as $wire_s, receiver reports S_t [0-9]* bytes, n 2" "$TMP/sget"
sed 's/^/    /' "$TMP/sget"

echo "the option exchange (counter deltas)"
check_range "SYNs sent with a task id" "$(d syn_opt_tx)" 4 4
check_range "flows the receiver took with a task id" "$(d syn_opt_rx)" 4 4
check_range "ACKs the receiver sent with S_t, n" "$(d ack_opt_tx)" 100 100000000
check_range "of which the senders took" "$(d ack_opt_rx)" 100 "$(d ack_opt_tx)"
check_range "no malformed option seen" "$(d opt_bad)" 0 0
check_range "windows that used the receiver's view" "$(d view_remote)" 10 100000000

echo "the small task's share while both run"
for f in L1 L2 S1 S2; do
	j=$(cat "$TMP/$f")
	check "$f: bpf_tldct, ECN, every byte intact" \
		[ "$(jfield "$j" '.cc == "bpf_tldct" and .ecn and .pattern_ok and .bytes == .received and .bytes > 0')" = true ]
done
# Over S's lifetime: S's bytes vs the growth of L's S_t at the receiver.
s_bytes=$((2 * S_BYTES))
l_bytes=$(jq -n --argjson a "$(rx "$TMP/tables-s0" "$TASK_L")" --argjson b "$(rx "$TMP/tables-s1" "$TASK_L")" '$b.bytes - $a.bytes')
share=$(awk -v s="$s_bytes" -v l="$l_bytes" 'BEGIN { printf "%.3f", s / (s + l) }')
echo "    S sent $s_bytes bytes, L $l_bytes, in $(awk -v a="$t_s0" -v b="$t_s1" 'BEGIN { printf "%.2f", b - a }') s;" \
	"S's flows took $(jq -s -r 'map(.secs) | join(" and ")' "$TMP/S1" "$TMP/S2") s" \
	"after handshakes of $(jq -s -r 'map(.connect_secs) | join(" and ")' "$TMP/S1" "$TMP/S2") s;" \
	"retransmitted: S $(jq -s 'map(.retrans) | add' "$TMP/S1" "$TMP/S2"), L $(jq -s 'map(.retrans) | add' "$TMP/L1" "$TMP/L2")"
# 20 runs at f76dc05 (test/spread, host): mean 0.7028, sd 0.0089,
# 0.684-0.717; held to 0.65 (5.9 sd below).  Fair, as DCTCP shares, is
# 0.5.
check_range "S's share of the link while both run (2 of 4 flows; fair = 0.5)" "$share" 0.65 1

echo "the switch"
check_range "CE marks" "$(jq .marked "$TMP/sw")" 1 100000000
check_range "drops (ECN keeps the queue below the buffer)" "$(jq .dropped "$TMP/sw")" 0 0

echo "after the flows"
sleep 0.5
"$CCLOAD" task list --json >"$TMP/tables-end"
check "receiver table: no entry left for L or S" \
	jq -e --argjson l "$TASK_L" --argjson s $TASK_S --argjson w "${wire_s:-null}" \
	'[.[] | select(.task == $l or .task == $s or .task == $w)] | length == 0' "$TMP/tables-end"

echo "one task id from two senders"
# The receiver scopes its entries by the sender's address: the same id
# from s1 and from s2 is two tasks there, one flow each, never one of two.
# (Both senders are in this script's cgroup: their SYNs carry one wire id.)
topo_bg d "$TCPXFER" server -C bpf_tldct -p 5802 -n 2 >/dev/null
sleep 0.3
xpids=()
for n in s1 s2; do
	topo_exec "$n" "$TCPXFER" client -c "$IP_D" -p 5802 -C bpf_tldct -T $TASK_X -t 2 >"$TMP/X-$n" &
	xpids+=($!)
done
# the receiver's entries of the two senders (L's and S's have gone)
rx_x='[.[] | select(.side == "receiver" and (.peer == $a or .peer == $b))]'
for ((t = 0; t < 50; t++)); do
	"$CCLOAD" task list --json >"$TMP/tables-x"
	jq -e --arg a "$IP_S1" --arg b "$IP_S2" "$rx_x | length == 2" "$TMP/tables-x" >/dev/null && break
	sleep 0.1
done
wait "${xpids[@]}"
jq -c --arg a "$IP_S1" --arg b "$IP_S2" --argjson x $TASK_X "${rx_x}[], (.[] | select(.side == \"sender\" and .task == \$x))" \
	"$TMP/tables-x" | sed 's/^/    /'
check "receiver: an entry per sender, one flow each, one id" jq -e --arg a "$IP_S1" --arg b "$IP_S2" \
	"$rx_x"' | (map(.peer) | sort) == ([$a, $b] | sort) and all(.flows == 1) and (map(.task) | unique | length == 1)' \
	"$TMP/tables-x"
