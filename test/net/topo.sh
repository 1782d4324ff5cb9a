# shellcheck shell=bash
# The test-network builder, shared by test/net and bench/ (source it).
#
# Hosts are network namespaces joined by veth pairs.  The bottleneck is a
# router port whose egress has ccsuite's switch program (virtual queue: ECN
# marking at K, drops above the buffer or a class limit) followed by a tbf
# qdisc that realizes the same rate, with a limit above the buffer so that
# the switch, not tbf, decides every drop.  Offloads are off on every port
# so the switch and tbf see wire-sized packets.
#
# Names are unique per run (ccs<pid>x<rand>-<node>); topo_cleanup (run from
# an EXIT trap set by topo_init) removes everything this run made, and
# topo_reap removes what killed runs left behind.
#
#   topo_init                       start a run (sets TOPO_ID, the trap)
#   topo_node NAME                  a host (netns TOPO_ID-NAME)
#   topo_link A B                   veth between hosts A and B, a /24 of its own;
#                                   sets LINK_IF_A LINK_IF_B LINK_IP_A LINK_IP_B
#   topo_dumbbell N RATE BUFFER K   s1..sN -> r -> d, bottleneck r -> d;
#                                   sets IP_D, IP_S1.., BN_NS, BN_DEV
#   topo_bottleneck NODE DEV RATE BUFFER K   switch + tbf on NODE's DEV
#   topo_exec NAME cmd...           run in host NAME
#   topo_bg NAME cmd...             same, in the background (killed at cleanup)
#   topo_default_cc NAME CC         the CC new sockets of host NAME use

TOPO_ROOT=${TOPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
CCLOAD=${CCLOAD:-$TOPO_ROOT/build/ccload}
TOPO_NODES=()
TOPO_PIDS=()
TOPO_LINKS=0

topo_ns() { echo "$TOPO_ID-$1"; }

# Namespaces of runs whose process is gone.
topo_reap() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^ccs[0-9]+x[0-9]+-' || true); do
		pid=${ns#ccs}
		pid=${pid%%x*}
		if ! kill -0 "$pid" 2>/dev/null; then
			ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
			ip netns del "$ns" 2>/dev/null || true
		fi
	done
}

topo_cleanup() {
	local n pid
	for pid in "${TOPO_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for n in "${TOPO_NODES[@]}"; do
		ip netns pids "$(topo_ns "$n")" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$(topo_ns "$n")" 2>/dev/null || true
	done
	TOPO_NODES=()
	TOPO_PIDS=()
}

topo_init() {
	TOPO_ID="ccs$$x$RANDOM"
	topo_reap
	trap 'topo_cleanup' EXIT
	trap 'exit 130' INT TERM
}

topo_node() {
	local ns
	ns=$(topo_ns "$1")
	ip netns add "$ns"
	TOPO_NODES+=("$1")
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.tcp_no_metrics_save=1
}

topo_exec() {
	local n=$1
	shift
	ip netns exec "$(topo_ns "$n")" "$@"
}

topo_bg() {
	local n=$1
	shift
	ip netns exec "$(topo_ns "$n")" "$@" &
	TOPO_PIDS+=($!)
}

topo_default_cc() {
	topo_exec "$1" sysctl -qw net.ipv4.tcp_congestion_control="$2"
}

_topo_port_up() {
	local ns=$1 dev=$2 ip=$3
	ip -n "$ns" addr add "$ip/24" dev "$dev"
	ip -n "$ns" link set "$dev" up
	ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 || true
}

topo_link() {
	local a=$1 b=$2 net
	TOPO_LINKS=$((TOPO_LINKS + 1))
	net="10.200.$TOPO_LINKS"
	LINK_IF_A="v$TOPO_LINKS$b"
	LINK_IF_B="v$TOPO_LINKS$a"
	LINK_IP_A="$net.1"
	LINK_IP_B="$net.2"
	ip link add "$LINK_IF_A" netns "$(topo_ns "$a")" type veth \
		peer name "$LINK_IF_B" netns "$(topo_ns "$b")"
	_topo_port_up "$(topo_ns "$a")" "$LINK_IF_A" "$LINK_IP_A"
	_topo_port_up "$(topo_ns "$b")" "$LINK_IF_B" "$LINK_IP_B"
}

# Realize rate and buffer: the switch judges, tbf paces.  tbf's burst is
# the smallest that still passes one MTU-sized packet per token refill.
topo_bottleneck() {
	local node=$1 dev=$2 rate=$3 buffer=$4 k=$5 ns
	ns=$(topo_ns "$node")
	local args=(--rate "$rate" --buffer "$buffer")
	[ -n "$k" ] && [ "$k" != 0 ] && args+=(--ecn-k "$k")
	"$CCLOAD" -q tc attach "$dev" switch -n "$ns" "${args[@]}" >/dev/null
	tc -n "$ns" qdisc replace dev "$dev" root tbf rate "$rate" burst 3028 \
		limit $(($(_topo_bytes "$buffer") * 2 + 65536))
	BN_NS=$ns
	BN_DEV=$dev
}

# tc size units to bytes (k/kb = 1024, as tc and ccload read them).
_topo_bytes() {
	local v=${1,,}
	case $v in
	*kb | *k) echo $((${v%k*} * 1024)) ;;
	*mb | *m) echo $((${v%m*} * 1048576)) ;;
	*b) echo "${v%b}" ;;
	*) echo "$v" ;;
	esac
}

topo_dumbbell() {
	local n=$1 rate=$2 buffer=$3 k=$4 i
	topo_node r
	topo_node d
	topo_link r d
	topo_bottleneck r "$LINK_IF_A" "$rate" "$buffer" "$k"
	IP_D=$LINK_IP_B
	topo_exec d ip route add default via "$LINK_IP_A"
	for ((i = 1; i <= n; i++)); do
		topo_node "s$i"
		topo_link "s$i" r
		topo_exec "s$i" ip route add default via "$LINK_IP_B"
		printf -v "IP_S$i" '%s' "$LINK_IP_A"
	done
}

# Switch counters of the bottleneck as JSON (--reset zeroes them after).
topo_switch_stats() {
	"$CCLOAD" -q tc stats "$BN_DEV" -n "$BN_NS" --json "$@"
}
