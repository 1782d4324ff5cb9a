#!/usr/bin/env bash
# bpf_tldct between tenants: a task is (the socket's network namespace, its
# cgroup, the id it names), in the host-wide tables and on the wire
# (bpf/tldct.h, "Tenants").  Direct links, no bottleneck: what is shown is
# who counts in which entry.
#   a) On one sender s, a flow of cgroup B and one of cgroup A naming B's
#      task at once (first B's default task, B's cgroup id; then an id both
#      name): A's flow joins no entry of B's.  B's sender entry and its
#      receiver entry count B's flow alone, B's sender hears n = 1 from
#      its receiver (two flows would move its beta and gamma), and A's flow
#      is in its own cgroup's task and under its own id at the receiver.
#   b) Two namespace pairs with the same addresses (p1 -> q1, p2 -> q2,
#      both 10.201.1.1 -> 10.201.1.2) and one task id, senders in one
#      cgroup: each side's table holds an entry per namespace (its cookie),
#      one flow each; and with a budget of one new receiver entry per
#      peer a second, each namespace's peer has a budget of its own.
source "$(dirname "$0")/lib.sh"

SECS=3	      # each flow's time: both run while the tables are read
TASK_X=31337  # an explicit id cgroups A and B both name
TASK_N=5151   # the id of both namespaces' flows
NET=10.201.1  # both namespace pairs' link

test_net bpf_tldct

topo_node s
topo_node d
topo_link s d
IP_S=$LINK_IP_A IP_D=$LINK_IP_B
for i in 1 2; do
	topo_node p$i
	topo_node q$i
	TOPO_NET=$NET topo_link p$i q$i
done
check "attach bpf_tldct" "$CCLOAD" -q attach bpf_tldct

topo_cgroup tenant-a
CG_A=$TOPO_CG
topo_cgroup tenant-b
CG_B=$TOPO_CG
ID_A=$(stat -c %i "$CG_A") ID_B=$(stat -c %i "$CG_B")
echo "cgroup A: id $ID_A; cgroup B: id $ID_B"

# in_cg CGROUP NODE CMD...: CMD in CGROUP (joined before the namespace: ip
# netns exec hides /sys/fs/cgroup) and in NODE's namespace.
in_cg() {
	local cg=$1 node=$2
	shift 2
	bash -c 'echo $$ >"$0/cgroup.procs" && exec ip netns exec "$@"' "$cg" "$(topo_ns "$node")" "$@"
}

# task_get PID: ccload task get on the socket of tcpxfer client PID (or
# of its tcpxfer descendant).
task_get() {
	local pid fd
	pid=$(descendant "$1" tcpxfer) || return 1
	fd=$(find "/proc/$pid/fd" -lname 'socket:*' -printf '%f\n' 2>/dev/null | head -1)
	[ -n "$fd" ] && "$CCLOAD" task get "$pid" "$fd"
}

# wait_tables FILE JQ_COND ARGS...: ccload task list --json into FILE until
# the jq condition holds on it (5 s at most).
wait_tables() {
	local f=$1 cond=$2 t
	shift 2
	for ((t = 0; t < 50; t++)); do
		"$CCLOAD" task list --json >"$f"
		jq -e "$@" "$cond" "$f" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

stats() { "$CCLOAD" -q stats bpf_tldct --json | jq -c .bpf_tldct; }
grew() { jq -n --argjson a "$1" --argjson b "$2" "\$b.$3 - \$a.$3"; }

PORT=5700
XFER_OK='.cc == "bpf_tldct" and .pattern_ok and .bytes == .received and .bytes > 0'

# tenant_pair NAME B_TASK: at once, a flow s -> d of cgroup B in task
# B_TASK ("" for its default, its cgroup's id) and one of cgroup A naming
# the id B's flow is in; then the checks.
tenant_pair() {
	local name=$1 btask=$2 named=${2:-$ID_B} bpid apid wire
	PORT=$((PORT + 1))
	topo_bg d "$TCPXFER" server -B "$IP_D" -p $PORT -C bpf_tldct -n 2 >/dev/null
	sleep 0.2
	in_cg "$CG_B" s "$TCPXFER" client -c "$IP_D" -p $PORT -C bpf_tldct ${btask:+-T "$btask"} \
		-t $SECS >"$TMP/$name.B" &
	bpid=$!
	in_cg "$CG_A" s "$TCPXFER" client -c "$IP_D" -p $PORT -C bpf_tldct -T "$named" \
		-t $SECS >"$TMP/$name.A" &
	apid=$!
	# both flows counted on each side, however the entries split them
	wait_tables "$TMP/$name.tables" '([.[] | select(.side == "sender" and .task == $n) | .flows] | add) == 2 and
		([.[] | select(.side == "receiver" and .peer == $s) | .flows] | add) == 2' \
		--argjson n "$named" --arg s "$IP_S"
	sleep 0.5 # B's receiver sends its view of the task as it is now
	task_get "$bpid" >"$TMP/$name.getB"
	task_get "$apid" >"$TMP/$name.getA"
	wait "$bpid" "$apid"
	echo "  $name: tables while both flows ran; B's and A's sockets:"
	jq -c --argjson n "$named" --arg s "$IP_S" \
		'.[] | select((.side == "sender" and .task == $n) or (.side == "receiver" and .peer == $s))' \
		"$TMP/$name.tables" | sed 's/^/    /'
	sed 's/^/    B: /' "$TMP/$name.getB"
	sed 's/^/    A: /' "$TMP/$name.getA"
	check_reports "$name: both transfers intact" 2 "$XFER_OK" "$TMP/$name.B" "$TMP/$name.A"
	# B's id at the receiver: what its SYN carried (the id named, by older
	# builds, which did not say)
	wire=$(sed -n 's/.* sent as \([0-9]*\).*/\1/p' "$TMP/$name.getB")
	wire=${wire:-$named}
	check "$name: sender entries of task $named count one flow each (B's and A's apart)" \
		jq -e --argjson n "$named" '[.[] | select(.side == "sender" and .task == $n)] |
			length == 2 and all(.flows == 1)' "$TMP/$name.tables"
	check "$name: ... B's in cgroup B, A's in cgroup A" \
		jq -e --argjson n "$named" --argjson a "$ID_A" --argjson b "$ID_B" \
		'[.[] | select(.side == "sender" and .task == $n) | .cgroup] | sort == ([$a, $b] | sort)' \
		"$TMP/$name.tables"
	check "$name: receiver entry of B's task (id $wire) counts B's flow only" \
		jq -e --argjson w "$wire" '[.[] | select(.side == "receiver" and .task == $w)] |
			length == 1 and .[0].flows == 1' "$TMP/$name.tables"
	check "$name: A's flow is there under an id of its own" \
		jq -e --arg s "$IP_S" '[.[] | select(.side == "receiver" and .peer == $s)] |
			length == 2 and all(.flows == 1) and (map(.task) | unique | length) == 2' \
		"$TMP/$name.tables"
	check "$name: B's sender hears n = 1 from its receiver" \
		grep -q "receiver reports S_t [0-9]* bytes, n 1$" "$TMP/$name.getB"
}

echo "a) cgroup A names cgroup B's task"
tenant_pair default ""
tenant_pair explicit $TASK_X

echo "b) two namespaces, the same addresses and task id"
# a fresh registration: empty tables, one new receiver entry per peer a second
check "re-attach bpf_tldct with peer_new_per_s=1" "$CCLOAD" -q attach bpf_tldct --set peer_new_per_s=1
cookie() {
	topo_exec "$1" python3 -c 'import socket, struct
print(struct.unpack("Q", socket.socket().getsockopt(socket.SOL_SOCKET, 71, 8))[0])' # SO_NETNS_COOKIE
}
C_P="$(cookie p1) $(cookie p2)" C_Q="$(cookie q1) $(cookie q2)"
echo "  cookies: p1 p2 $C_P, q1 q2 $C_Q"

# ns_pair NAME TASK1 TASK2: at once, p1 -> q1 in task TASK1 and p2 -> q2 in
# TASK2, both in cgroup A.  NS_PIDS: the clients; the tables in NAME.tables.
ns_pair() {
	local name=$1 i task
	NS_PIDS=()
	for i in 1 2; do
		PORT=$((PORT + 1))
		topo_bg q$i "$TCPXFER" server -B "$NET.2" -p $PORT -C bpf_tldct -n 1 >/dev/null
	done
	sleep 0.2
	for i in 1 2; do
		task=$2
		[ $i = 2 ] && task=$3
		in_cg "$CG_A" p$i "$TCPXFER" client -c "$NET.2" -p $((PORT - 2 + i)) -C bpf_tldct -T "$task" \
			-t $SECS >"$TMP/$name.$i" &
		NS_PIDS+=("$!")
	done
	wait_tables "$TMP/$name.tables" '([.[] | select(.side == "receiver" and .peer == $p) | .flows] | add) == 2' \
		--arg p "$NET.1"
}

st0=$(stats)
ns_pair same $TASK_N $TASK_N
sleep 0.5
task_get "${NS_PIDS[0]}" >"$TMP/same.get1"
task_get "${NS_PIDS[1]}" >"$TMP/same.get2"
wait "${NS_PIDS[@]}"
echo "  tables while both flows ran; the senders' sockets:"
jq -c --argjson n $TASK_N --arg p "$NET.1" \
	'.[] | select((.side == "sender" and .task == $n) or (.side == "receiver" and .peer == $p))' \
	"$TMP/same.tables" | sed 's/^/    /'
sed 's/^/    p1: /' "$TMP/same.get1"
sed 's/^/    p2: /' "$TMP/same.get2"
check_reports "both transfers intact" 2 "$XFER_OK" "$TMP/same.1" "$TMP/same.2"
check "sender: an entry of task $TASK_N per namespace (p1's, p2's cookie), one flow each" \
	jq -e --argjson n $TASK_N --arg c "$C_P" '[.[] | select(.side == "sender" and .task == $n)] |
		length == 2 and all(.flows == 1) and (map(.netns) | sort) == ($c | split(" ") | map(tonumber) | sort)' \
	"$TMP/same.tables"
check "receiver: an entry for peer $NET.1 per namespace (q1's, q2's cookie), one id, one flow each" \
	jq -e --arg p "$NET.1" --arg c "$C_Q" '[.[] | select(.side == "receiver" and .peer == $p)] |
		length == 2 and all(.flows == 1) and (map(.task) | unique | length) == 1 and
		(map(.netns) | sort) == ($c | split(" ") | map(tonumber) | sort)' "$TMP/same.tables"
check "p1's sender hears n = 1 from its receiver" grep -q "receiver reports S_t [0-9]* bytes, n 1$" "$TMP/same.get1"
check "p2's sender hears n = 1 from its receiver" grep -q "receiver reports S_t [0-9]* bytes, n 1$" "$TMP/same.get2"

# each peer's second of budget, begun by the flows above, is over
sleep 1.2
st1=$(stats)
ns_pair budget $((TASK_N + 1)) $((TASK_N + 2))
wait "${NS_PIDS[@]}"
st2=$(stats)
check_reports "budget: both transfers intact" 2 "$XFER_OK" "$TMP/budget.1" "$TMP/budget.2"
check_range "receiver entries made for the first pair (one per namespace)" "$(grew "$st0" "$st1" rx_tasks_new)" 2 2
check_range "two new tasks of one address, one in each namespace, in one second: both made" \
	"$(grew "$st1" "$st2" rx_tasks_new)" 2 2
check_range "... and none refused by a peer budget" "$(grew "$st1" "$st2" rx_peer_limited)" 0 0

echo "leftovers"
check "the tables are empty when the flows have ended" wait_tables "$TMP/end" 'length == 0'
check "bpf_tldct detaches" "$CCLOAD" -q detach bpf_tldct
