# shellcheck shell=bash
# The test-network builder, shared by test/net and bench/ (source it).
#
# Hosts are network namespaces joined by links: veth pairs, or, where a link
# has propagation delay, a delay backend:
#   netem  veth + netem on each end's egress (kernels that have netem; the
#          standard method, as Mininet uses)
#   tap    a tap device in each namespace, joined by build/delayline, one
#          process that holds each frame for its direction's delay
#          (bench/delayline.c; kernels without netem, as this one): a read
#          and a write a frame, nanosecond timeouts
#   vde    two tap devices (one per namespace) on two vde_switch processes
#          joined by VDE wirefilter: three processes a link, 1 ms clock
#          resolution (frames leave in 1 ms clumps)
# Delay only, in every backend: rate and buffer stay in tbf.  The backend
# is chosen once per run (netem when the kernel has it, else tap), can be
# forced with TOPO_DELAY=netem|tap|vde, and is in $TOPO_DELAY for results.
#
# A bottleneck is a router port whose egress has ccsuite's switch program
# (ECN marking at K, drops above the buffer or a class limit, judged on the
# queue in tbf) followed by tbf at the rate with a larger limit, so the
# switch, not tbf, decides every drop.  Offloads are off on every port.
#
# Names are unique per run (ccs<pid>x<rand>-<node>); topo_cleanup (added by
# topo_init to the EXIT trap, ahead of the caller's) removes the namespaces
# and the VDE processes of the run, and topo_reap removes what killed runs
# left behind.
#
#   topo_init                          start a run (TOPO_ID, TOPO_DELAY, traps)
#   topo_node NAME                     a host (netns TOPO_ID-NAME)
#   topo_link A B [D_AB [D_BA [LOSS]]] a link A-B, one-way delays in ms (default 0),
#                                      LOSS % of A's packets lost at random;
#                                      sets LINK_IF_A LINK_IF_B LINK_IP_A LINK_IP_B
#                                      (and LINK_IP6_A LINK_IP6_B, with IPv6)
#   topo_bottleneck NODE DEV RATE BUFFER K [switch args]   switch + tbf on NODE's DEV
#                                      (htb with an emulation class, with --emulation)
#   topo_shape NODE DEV RATE [LIMIT]   tbf (an access rate; pfifo_fast, or LIMIT bytes)
#   topo_exec NAME cmd... / topo_bg NAME cmd...   run in host NAME (bg: killed at cleanup)
#   topo_spawn NAME cmd...             in the background, $! its PID (the caller stops it)
#   topo_default_cc NAME CC            the CC new sockets of host NAME use
#   topo_quickack NAME                 host NAME ACKs every data segment at once
#   topo_cgroup NAME                   a cgroup v2 of the run (TOPO_CG), removed with it
#   topo_switch_stats [--reset]        the first bottleneck's counters (JSON)
#   topo_emu_class_pkts [I]            packets out of bottleneck I's emulation class
#   topo_ports NAME                    host NAME's network ports (not lo)
# FlashPass (bpf_flashpass):
#   topo_flashpass_switch [LIMIT]      before the topology: bottlenecks get the
#                                      emulation queue and the unscheduled class
#   topo_flashpass_run LOG "SENDERS" "RECEIVERS" [ccload args]   the pacer, its
#                                      roles on every port of those hosts
#   topo_flashpass_stop                SIGTERM to it; its exit status
#   topo_flashpass_signal SIGNAL       the same with SIGNAL
#   topo_idle_conns NAME N PORT CC FILE   N idle connections on host NAME's
#                                      loopback, the servers' sockets on CC, in the
#                                      background (killed at cleanup); FILE says
#                                      "ready N" once all are open
#   topo_cpu_ticks PID                 CPU time (user + system, clock ticks) of
#                                      PID and its descendants
# Topologies (each sets IP_<host> for every host and BN_NS/BN_DEV; BN_LIST
# holds every bottleneck as ns:dev):
#   topo_dumbbell N RATE BUFFER K [DELAYS [ACCESS]]  s1..sN -> r -> d; DELAYS and
#                                      ACCESS are comma lists per sender (ms one-way
#                                      on s_i-r, or F:R per direction, s_i to r
#                                      first, or rR: R ms on the way back only, on
#                                      a return link of its own; access rates)
#   topo_parking_lot RATE BUFFER K D   l -> r1 =bn1= r2 =bn2= r3 -> ld; cross traffic
#                                      c1 -> x1 over bn1, c2 -> x2 over bn2; D ms per hop
#   topo_wan3 RATE BUFFER K HOSTS SCALE  three sites b1 b2 b3 linked 20/30/40 ms one
#                                      way (x SCALE); hosts h<site>_<i> behind each
#   topo_two_path RATE BUFFER K D1 D2 [RATE2 [LOSS]]  a -r1-> b and a -r2-> b
#                                      (MPTCP endpoints set; path 2 at RATE2)
#   topo_shared_two_path RATE BUFFER K D [LOSS]  a (two paths) and c (one) -> r -> b
#
# IPv6 is opt-in: TOPO_IPV6=1 (or topo_ipv6) before the first topo_node.
# Every link end then also gets a ULA address, fd00:c5:<link>::1/64 (A) and
# ::2 (B); every namespace forwards IPv6 (so none sends router
# solicitations), takes no router advertisement and does no DAD (a
# tentative link-local address loses the first packets; nodad on the ULAs
# too).  topo_dumbbell adds the IPv6 default routes and the /128 return
# routes beside the IPv4 ones and sets IP6_<host> beside IP_<host>; the
# other topologies get the addresses and their links' own routes only.
# With it on, a bottleneck also carries the MLD reports of the new
# addresses and the ND of the IPv6 traffic.  Off, the default, none of
# this is done and every test sees the traffic (and the switch counters)
# it always did (the kernel's link-local addresses, with their DAD, MLD
# and router solicitations, are there either way).

TOPO_ROOT=${TOPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
CCLOAD=${CCLOAD:-$TOPO_ROOT/build/ccload}
TOPO_UNITS=${TOPO_UNITS:-$TOPO_ROOT/build/units}
TOPO_DELAYLINE=${TOPO_DELAYLINE:-$TOPO_ROOT/build/delayline}
# the delay lines' SCHED_FIFO priority (empty: none): above every process
# of the hosts, so that a frame leaves on time however busy they keep the
# CPUs, but below the FlashPass pacer's 10.  The credit for an emulation
# packet reaches its return link's tap within the pacer's own send; a
# delay line above the pacer would preempt it there at every packet
# (50 us a packet instead of 15, the pacer late and sending in bursts).
TOPO_DELAY_RT=${TOPO_DELAY_RT-5}
TOPO_RUNS=/run/ccsuite/topo
TOPO_NODES=()
TOPO_PIDS=()
TOPO_CGROUPS=()
TOPO_LINKS=0
BN_LIST=()
declare -A TOPO_NETEM=()	# "ns dev" -> netem args, for topo_bottleneck

topo_ns() { echo "$TOPO_ID-$1"; }

topo_ipv6() { TOPO_IPV6=1; }
_topo_v6() { [ "${TOPO_IPV6:-0}" = 1 ]; }

# "PID START" of a live process: START, its start time (clock ticks since
# boot, /proc/PID/stat field 22), tells it from a later process that got
# the same PID.
_topo_pid_id() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }	# the fields after "pid (comm) ", from field 3 on
	echo "$1 $(awk '{ print $20 }' <<<"$st")"
}

# Signal the processes recorded by _topo_pid_id in FILEs, those only: a
# PID whose start time differs (or that has none recorded) is another
# process by now.
_topo_kill_recorded() {
	local sig=$1 f pid start
	shift
	# (no pipeline: under set -e -o pipefail, as bench/demo runs, a glob
	# that matched no file would end the caller)
	for f in "$@"; do
		[ -f "$f" ] || continue
		while read -r pid start; do
			if [ -n "$start" ] && [ "$(_topo_pid_id "$pid")" = "$pid $start" ]; then
				kill "-$sig" "$pid" 2>/dev/null || true
			fi
		done <"$f"
	done
	return 0
}

_topo_cgroot() { awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts; }

# What runs whose process is gone left behind: namespaces, VDE processes,
# cgroups.
topo_reap() {
	local ns pid d
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^ccs[0-9]+x[0-9]+-' || true); do
		pid=${ns#ccs}
		pid=${pid%%x*}
		if ! kill -0 "$pid" 2>/dev/null; then
			ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
			ip netns del "$ns" 2>/dev/null || true
		fi
	done
	for d in "$TOPO_RUNS"/ccs*; do
		[ -d "$d" ] || continue
		pid=${d##*/ccs}
		pid=${pid%%x*}
		kill -0 "$pid" 2>/dev/null && continue
		_topo_kill_recorded KILL "$d"/*.pid
		rm -rf "$d"
	done
	for d in "$(_topo_cgroot)"/ccs*x*-*; do
		[ -d "$d" ] || continue
		pid=${d##*/ccs}
		pid=${pid%%x*}
		kill -0 "$pid" 2>/dev/null || rmdir "$d" 2>/dev/null || true
	done
}

# topo_cgroup NAME: a cgroup v2 of the run's own (TOPO_CG), removed with it.
topo_cgroup() {
	TOPO_CG=$(_topo_cgroot)/$TOPO_ID-$1
	mkdir "$TOPO_CG" && TOPO_CGROUPS+=("$TOPO_CG")
}

topo_cleanup() {
	local n pid
	topo_flashpass_stop || true # first: it removes its roles from the namespaces
	# a link stalled when the run ended (topo_link_stall) would not take TERM
	if [ -n "${TOPO_RUN:-}" ] && [ -d "$TOPO_RUN" ]; then
		_topo_kill_recorded CONT "$TOPO_RUN"/wf*.pid
	fi
	for pid in "${TOPO_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${TOPO_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true	# reap: no zombies left behind
	done
	if [ -n "${TOPO_RUN:-}" ] && [ -d "$TOPO_RUN" ]; then
		_topo_kill_recorded TERM "$TOPO_RUN"/*.pid
	fi
	for n in "${TOPO_NODES[@]}"; do
		ip netns pids "$(topo_ns "$n")" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$(topo_ns "$n")" 2>/dev/null || true
	done
	if [ -n "${TOPO_PARENT:-}" ]; then
		ip netns del "$TOPO_PARENT" 2>/dev/null || true
		TOPO_PARENT=""
	fi
	[ -n "${TOPO_RUN:-}" ] && rm -rf "$TOPO_RUN"
	for n in "${TOPO_CGROUPS[@]}"; do
		rmdir "$n" 2>/dev/null || true
	done
	TOPO_CGROUPS=()
	TOPO_NODES=()
	TOPO_PIDS=()
	BN_LIST=()
	TOPO_NETEM=()	# a later topology of the run may reuse the names
	TOPO_SWITCH_ARGS=()
}

# Whether this kernel has netem (tried in a throwaway namespace).
_topo_has_netem() {
	# named as a run's namespaces are, so topo_reap and the leftover check see it
	local probe="ccs$$x0-netem-probe" rc=0
	ip netns add "$probe" 2>/dev/null || true
	ip netns exec "$probe" tc qdisc add dev lo root netem delay 1ms 2>/dev/null || rc=1
	ip netns del "$probe" 2>/dev/null || true
	return $rc
}

# The backend: TOPO_DELAY if set, else netem if this kernel has it, else tap.
topo_delay_backend() {
	if [ -n "${TOPO_DELAY:-}" ]; then
		echo "$TOPO_DELAY"
	elif _topo_has_netem; then
		echo netem
	else
		echo tap
	fi
}

topo_init() {
	local forced=${TOPO_DELAY:-}
	TOPO_DELAY=$(topo_delay_backend)
	case $TOPO_DELAY in
	netem | tap | vde) ;;
	*) echo "topo: unknown delay backend '$TOPO_DELAY' (netem, tap or vde)" >&2; return 1 ;;
	esac
	# A forced netem the kernel lacks would give links without delay.
	if [ "$forced" = netem ] && ! _topo_has_netem; then
		echo "topo: the netem delay backend needs sch_netem, which this kernel does not have" >&2
		return 1
	fi
	if [ "$TOPO_DELAY" = vde ] && ! command -v wirefilter >/dev/null; then
		echo "topo: the vde delay backend needs vde2 (make deps)" >&2
		return 1
	fi
	if [ "$TOPO_DELAY" = tap ] && [ ! -x "$TOPO_DELAYLINE" ]; then
		echo "topo: the tap delay backend needs $TOPO_DELAYLINE: build first (make)" >&2
		return 1
	fi
	topo_units size 0 >/dev/null || return 1
	# exported: each process of the run has it in its environment, so that
	# a test can tell them from other runs' (test/net/lib.sh: run_procs)
	export TOPO_ID="ccs$$x$RANDOM"
	TOPO_RUN=$TOPO_RUNS/$TOPO_ID
	topo_reap
	mkdir -p "$TOPO_RUN"
	_topo_trap_exit
	trap 'exit 130' INT TERM
}

# topo_cleanup at exit, before what the caller's EXIT trap does (a bench
# that detaches the CCs it attached): added to that trap, not replacing it.
_topo_trap_exit() {
	local cur
	cur=$(trap -p EXIT) # trap -- 'COMMANDS' EXIT, or nothing
	case $cur in *topo_cleanup*) return ;; esac
	cur=${cur#trap -- }
	eval "cur=${cur% EXIT}"
	# shellcheck disable=SC2064 # the caller's commands, as they are now
	trap "topo_cleanup; $cur" EXIT
}

# The namespace the run's nodes are made from (nsenter --net: the mounts
# stay the host's, where ip netns add pins them).  Its
# tcp_child_ehash_entries gives each node a TCP hash table of its own:
# on the host's, every sock_diag dump (ss, bench's flowsample) walks all
# of its buckets (262144 here), 1 ms a dump and address family, and 20
# senders sampled every 100 ms took half a core from the run.  A node's
# table is this size, its SYN backlog and TIME-WAIT limits the host's
# (the kernel derives them from the table's size).  Without the sysctl
# (kernels before 6.1), nodes share the host's table.
TOPO_EHASH=16384
_topo_parent() {
	[ -n "${TOPO_PARENT:-}" ] && return 0
	TOPO_PARENT=$(topo_ns nsparent)
	ip netns add "$TOPO_PARENT" || return 1
	ip netns exec "$TOPO_PARENT" sysctl -qw net.ipv4.tcp_child_ehash_entries=$TOPO_EHASH \
		2>/dev/null || TOPO_EHASH=0
}

topo_node() {
	local ns
	ns=$(topo_ns "$1")
	_topo_parent || return 1
	if [ "$TOPO_EHASH" != 0 ]; then
		nsenter --net="/run/netns/$TOPO_PARENT" ip netns add "$ns" || return 1
		ip netns exec "$ns" sysctl -qw \
			net.ipv4.tcp_max_syn_backlog="$(sysctl -n net.ipv4.tcp_max_syn_backlog)" \
			net.ipv4.tcp_max_tw_buckets="$(sysctl -n net.ipv4.tcp_max_tw_buckets)"
	else
		ip netns add "$ns" || return 1
	fi
	TOPO_NODES+=("$1")
	ip -n "$ns" link set lo up
	# rp_filter off: multipath hosts receive on one port for another's address.
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.tcp_no_metrics_save=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	# IPv6 as IPv4: every node forwards; no autoconfiguration from RAs; no
	# DAD, whose tentative link-local addresses lose the first packets
	! _topo_v6 || ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 \
		net.ipv6.conf.all.accept_ra=0 net.ipv6.conf.default.accept_ra=0 \
		net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
}

topo_exec() {
	local n=$1
	shift
	ip netns exec "$(topo_ns "$n")" "$@"
}

# topo_stop PID [SIGNAL]: stop a child of this shell and its own children
# (`timeout N bpftrace`: the bpftrace) and reap it: SIGNAL (TERM), again
# each second, and KILL if it has not exited 5 s later.  bpftrace (0.17)
# can miss a signal that comes just before it blocks for its next event,
# and after the traffic ends no event comes: a plain `kill; wait` then
# hung a test until its time limit; one that comes while it blocks wakes
# it (epoll_wait() returns EINTR).  And timeout(1) does not always pass
# a SIGINT on: one bpftrace under it was left running with none pending,
# its maps (printed on exit) lost, and took the next SIGINT at once.
topo_stop() {
	local pid=$1 i
	_topo_signal "${2:-TERM}" "$pid" || { wait "$pid" 2>/dev/null; return 0; }
	for ((i = 1; i <= 50; i++)); do
		sleep 0.1
		kill -0 "$pid" 2>/dev/null || break
		((i % 10)) || _topo_signal "${2:-TERM}" "$pid"
	done
	kill -0 "$pid" 2>/dev/null && _topo_signal KILL "$pid"
	wait "$pid" 2>/dev/null
	return 0
}

# _topo_signal SIGNAL PID: to PID and its children (by PID); fails if PID
# is gone.
_topo_signal() {
	local kids
	kids=$(pgrep -P "$2")
	kill "-$1" "$2" 2>/dev/null || return 1
	# shellcheck disable=SC2086 # a list of PIDs
	[ -z "$kids" ] || kill "-$1" $kids 2>/dev/null
	return 0
}

# topo_spawn NAME cmd...: in the background, $! the command's own PID
# (ip netns exec execs it).  `topo_exec ... &` would background a subshell
# instead: killing $! then leaves the command running.
topo_spawn() {
	local n=$1
	shift
	ip netns exec "$(topo_ns "$n")" "$@" &
}

topo_bg() {
	topo_spawn "$@"
	TOPO_PIDS+=($!)
}

topo_default_cc() {
	topo_exec "$1" sysctl -qw net.ipv4.tcp_congestion_control="$2"
}

_topo_port_up() {
	local ns=$1 dev=$2 ip=$3 ip6=${4:-}
	ip -n "$ns" addr add "$ip/24" dev "$dev"
	[ -z "$ip6" ] || ip -n "$ns" addr add "$ip6/64" dev "$dev" nodad
	ip -n "$ns" link set "$dev" up
	# per-packet behaviour at the switch: no segmentation offloads; a
	# feature the device lacks is fine, one left on is not
	ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1
	if ip netns exec "$ns" ethtool -k "$dev" 2>/dev/null |
		grep -Eq '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload): on'; then
		echo "topo: cannot turn segmentation offloads off on $dev in $ns" >&2
		return 1
	fi
}

# A tap in each namespace, joined by build/delayline.  It runs as a child
# of this shell; its pid is recorded as a wirefilter's is (topo_link_stall
# stops it the same way).
_topo_tap_pair() {
	local a=$1 b=$2 ifa=$3 ifb=$4 dab=$5 dba=$6 loss=${7:-0} dl i
	mkdir -p "$TOPO_RUN"
	"$TOPO_DELAYLINE" -d "$dab" -D "$dba" -l "$loss" ${TOPO_DELAY_RT:+-r "$TOPO_DELAY_RT"} \
		"$(topo_ns "$a"):$ifa" "$(topo_ns "$b"):$ifb" \
		</dev/null >/dev/null 2>"$TOPO_RUN/delayline$TOPO_LINKS.log" &
	dl=$!
	TOPO_PIDS+=("$dl")
	_topo_pid_id $dl >"$TOPO_RUN/wf$TOPO_LINKS.pid"
	for i in $(seq 50); do
		ip -n "$(topo_ns "$a")" link show "$ifa" >/dev/null 2>&1 &&
			ip -n "$(topo_ns "$b")" link show "$ifb" >/dev/null 2>&1 && return 0
		kill -0 $dl 2>/dev/null || break
		sleep 0.1
	done
	echo "topo: delayline for link $TOPO_LINKS ($a - $b) did not start:" \
		"$(cat "$TOPO_RUN/delayline$TOPO_LINKS.log")" >&2
	return 1
}

# A vde_switch directory with a plug connected: a data socket beside ctl.
_topo_vde_plugged() {
	find "$1" -maxdepth 1 -type s ! -name ctl | grep -q .
}

# A tap in each namespace on its own vde_switch, the two joined by a
# wirefilter that delays each direction.  They run in the foreground as
# children of this shell (daemons would be reparented to an init that may
# not reap them); their consoles read a FIFO opened read-write, which never
# reaches EOF (EOF on stdin makes them exit).
_topo_vde_pair() {
	local a=$1 b=$2 ifa=$3 ifb=$4 dab=$5 dba=$6 loss=${7:-0} dir=$TOPO_RUN/vde$TOPO_LINKS i
	local wloss=()
	[ "$loss" = 0 ] || wloss=(-l "LR$loss")
	mkdir -p "$dir"
	mkfifo "$dir/console"
	# (a background job's stdin is /dev/null unless redirected on the job)
	ip netns exec "$(topo_ns "$a")" vde_switch -s "$dir/a" -t "$ifa" <>"$dir/console" >/dev/null 2>&1 &
	TOPO_PIDS+=($!)
	ip netns exec "$(topo_ns "$b")" vde_switch -s "$dir/b" -t "$ifb" <>"$dir/console" >/dev/null 2>&1 &
	TOPO_PIDS+=($!)
	for i in $(seq 50); do
		[ -S "$dir/a/ctl" ] && [ -S "$dir/b/ctl" ] && break
		sleep 0.1
	done
	# A ctl socket exists from bind(), before the switch listens: a
	# wirefilter connecting in between exits, and the link stays dead.
	# Connected, each switch has a data socket
	# beside ctl; a wirefilter that died before that is started again.
	local wf
	for _ in 1 2 3 4 5; do
		wirefilter -v "$dir/a:$dir/b" -d "LR$dab" -d "RL$dba" ${wloss[@]+"${wloss[@]}"} \
			<>"$dir/console" >/dev/null 2>&1 &
		wf=$!
		for i in $(seq 50); do
			_topo_vde_plugged "$dir/a" && _topo_vde_plugged "$dir/b" && break 2
			kill -0 $wf 2>/dev/null || break
			sleep 0.1
		done
		kill $wf 2>/dev/null
		wait $wf 2>/dev/null
	done
	if ! _topo_vde_plugged "$dir/a" || ! _topo_vde_plugged "$dir/b"; then
		echo "topo: wirefilter for link $TOPO_LINKS ($a - $b) did not connect" >&2
		return 1
	fi
	TOPO_PIDS+=("$wf")
	_topo_pid_id $wf >"$TOPO_RUN/wf$TOPO_LINKS.pid"
	for i in $(seq 50); do
		ip -n "$(topo_ns "$a")" link show "$ifa" >/dev/null 2>&1 &&
			ip -n "$(topo_ns "$b")" link show "$ifb" >/dev/null 2>&1 && break
		sleep 0.1
	done
}

# topo_link_stall SECS LINK...: hold every packet on links LINK... (numbers
# in the order topo_link made them) for SECS, then let them all go: their
# delaylines or wirefilters stop (SIGSTOP) and go on.  1 on netem, whose
# queue cannot be paused.
topo_link_stall() {
	local secs=$1 l f=()
	shift
	[ "$TOPO_DELAY" = tap ] || [ "$TOPO_DELAY" = vde ] || return 1
	for l in "$@"; do f+=("$TOPO_RUN/wf$l.pid"); done
	_topo_kill_recorded STOP "${f[@]}"
	sleep "$secs"
	_topo_kill_recorded CONT "${f[@]}"
}

_topo_fmt_ms() { awk -v v="$1" 'BEGIN { printf "%d", v + 0.5 }'; }

# topo_link A B [DELAY_AB_MS [DELAY_BA_MS [LOSS_AB_PCT]]]: LOSS_AB_PCT
# percent of A's packets to B lost at random (wirefilter, or netem).
topo_link() {
	local a=$1 b=$2 dab=${3:-0} dba=${4:-${3:-0}} loss=${5:-0} net
	TOPO_LINKS=$((TOPO_LINKS + 1))
	net=${TOPO_NET:-10.200.$TOPO_LINKS}
	LINK_IF_A="e$TOPO_LINKS-${b:0:10}"
	LINK_IF_B="e$TOPO_LINKS-${a:0:10}"
	LINK_IP_A="$net.1"
	LINK_IP_B="$net.2"
	LINK_IP6_A='' LINK_IP6_B=''
	if _topo_v6; then
		LINK_IP6_A="fd00:c5:$TOPO_LINKS::1"
		LINK_IP6_B="fd00:c5:$TOPO_LINKS::2"
	fi
	if [ "$dab" = 0 ] && [ "$dba" = 0 ] && [ "$loss" = 0 ]; then
		ip link add "$LINK_IF_A" netns "$(topo_ns "$a")" type veth \
			peer name "$LINK_IF_B" netns "$(topo_ns "$b")"
	elif [ "$TOPO_DELAY" = netem ]; then
		ip link add "$LINK_IF_A" netns "$(topo_ns "$a")" type veth \
			peer name "$LINK_IF_B" netns "$(topo_ns "$b")"
		local nloss=""
		[ "$loss" = 0 ] || nloss=" loss $loss%"
		TOPO_NETEM["$(topo_ns "$a") $LINK_IF_A"]="delay ${dab}ms limit 100000$nloss"
		TOPO_NETEM["$(topo_ns "$b") $LINK_IF_B"]="delay ${dba}ms limit 100000"
		# shellcheck disable=SC2086 # nloss: words
		tc -n "$(topo_ns "$a")" qdisc add dev "$LINK_IF_A" root netem delay "${dab}ms" limit 100000 $nloss
		tc -n "$(topo_ns "$b")" qdisc add dev "$LINK_IF_B" root netem delay "${dba}ms" limit 100000
	elif [ "$TOPO_DELAY" = tap ]; then
		_topo_tap_pair "$a" "$b" "$LINK_IF_A" "$LINK_IF_B" "$dab" "$dba" "$loss" || return 1
	else
		_topo_vde_pair "$a" "$b" "$LINK_IF_A" "$LINK_IF_B" \
			"$(_topo_fmt_ms "$dab")" "$(_topo_fmt_ms "$dba")" "$loss" || return 1
	fi
	_topo_port_up "$(topo_ns "$a")" "$LINK_IF_A" "$LINK_IP_A" "$LINK_IP6_A" || return 1
	_topo_port_up "$(topo_ns "$b")" "$LINK_IF_B" "$LINK_IP_B" "$LINK_IP6_B"
}

# topo_units rate|size|time VALUE [FACTOR]: tc's units to bit/s, bytes or ns, read
# by build/units as ccload reads them (loader/lib/parse.c: k/kb = 1024
# bytes, kbit = 1000 bit/s); exit 2 and a message on bad input.
topo_units() {
	if [ ! -x "$TOPO_UNITS" ]; then
		echo "topo: $TOPO_UNITS is missing: build first (make)" >&2
		return 2
	fi
	"$TOPO_UNITS" "$@"
}
topo_bytes() { topo_units size "$1"; }

# tbf's burst for @rate (tc units): two MTU-sized packets, the smallest that
# keeps the rate exact, or TOPO_TBF_SLACK_MS of the rate if more.  tbf drops
# the tokens beyond its burst, so each wake-up that runs late costs rate; in
# a guest under emulation (CCSUITE_VM: test/vm/run, TCG) they run up to
# ~10 ms late, tbf falls behind, and a queue grows in it out of the switch's
# sight; 12 ms of burst covers those wake-ups.
TOPO_TBF_SLACK_MS=${TOPO_TBF_SLACK_MS:-${CCSUITE_VM:+12}}
_topo_burst() {
	local bps
	bps=$(topo_units rate "$1") || return 1
	awk -v r="$bps" -v ms="${TOPO_TBF_SLACK_MS:-0}" 'BEGIN {
		b = r * ms / 8000
		printf "%d", (b > 3028) ? b : 3028 }'
}

# tbf at @rate; a netem delay already on the port moves under it.
_topo_tbf() {
	local ns=$1 dev=$2 rate=$3 limit=$4 netem=${TOPO_NETEM["$1 $2"]:-} burst
	burst=$(_topo_burst "$rate") || return 1
	tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
	tc -n "$ns" qdisc add dev "$dev" root handle 1: tbf rate "$rate" burst "$burst" limit "$limit"
	if [ -n "$netem" ]; then
		# shellcheck disable=SC2086
		tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: netem $netem
	fi
}

# The emulation class of a bottleneck with FlashPass's emulation queue:
# htb at @rate with two classes under it, the data's (1:10, the rest of the
# rate, borrowing all of it when the emulation is idle) and the emulation
# packets' (1:20, at the emulation rate @emu_bps, served first), into which
# the switch puts what its emulation queue passes (--emu-class).  A real
# queue, as a switch's credit queue: it spaces the emulation packets at its
# rate whatever bursts reach it, which a sender whose emulation is clocked
# by its returning credits depends on (docs/testnet.md).  An emulation frame
# (60 bytes over IPv4, 80 over IPv6) counts as a minimum Ethernet frame on
# the wire (mpu 84: the switch's SW_EMU_FRAME), so that the class drains
# at the pace of the switch's virtual queue.  Its burst is two frames, or
# the slack of _topo_burst under TCG (the data's is tbf's), so that it
# spaces them; on a busy machine its timer runs late now and then and a
# queue builds in it beyond the switch's 8, so it holds 64 (4 KB, 8 ms)
# and drops what is beyond where it can be seen (t_flashpass: none).  A
# netem delay line on the port goes under both.
TOPO_EMU_CLASS=1:20
_topo_htb_emu() {
	local ns=$1 dev=$2 rate=$3 limit=$4 emu_bps=$5 netem=${TOPO_NETEM["$1 $2"]:-} bps burst eburst
	bps=$(topo_units rate "$rate") || return 1
	burst=$(_topo_burst "$rate") || return 1
	eburst=$(awk -v r="$emu_bps" -v ms="${TOPO_TBF_SLACK_MS:-0}" 'BEGIN {
		b = r * ms / 8000
		printf "%d", (b > 168) ? b : 168 }')
	tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
	tc -n "$ns" qdisc add dev "$dev" root handle 1: htb default 10
	tc -n "$ns" class add dev "$dev" parent 1: classid 1:1 htb rate "${bps}bit" \
		burst "$burst" cburst "$burst" quantum 1514
	tc -n "$ns" class add dev "$dev" parent 1:1 classid 1:10 htb rate "$((bps - emu_bps))bit" \
		ceil "${bps}bit" burst "$burst" cburst "$burst" prio 1 quantum 1514
	tc -n "$ns" class add dev "$dev" parent 1:1 classid "$TOPO_EMU_CLASS" htb rate "${emu_bps}bit" \
		ceil "${emu_bps}bit" burst "$eburst" cburst "$eburst" prio 0 quantum 1514 mpu 84
	if [ -n "$netem" ]; then
		# shellcheck disable=SC2086
		tc -n "$ns" qdisc add dev "$dev" parent 1:10 handle 10: netem $netem &&
			tc -n "$ns" qdisc add dev "$dev" parent "$TOPO_EMU_CLASS" handle 20: netem $netem
	else
		tc -n "$ns" qdisc add dev "$dev" parent 1:10 handle 10: bfifo limit "$limit" &&
			tc -n "$ns" qdisc add dev "$dev" parent "$TOPO_EMU_CLASS" handle 20: pfifo limit 64
	fi
}

# Realize rate and buffer: tbf paces (_topo_burst), the switch judges the
# queue in it (--queue qdisc), so that a tbf running behind its rate on a
# loaded machine is a slower link, not a queue out of the switch's sight.
# Where a netem delay line sits under tbf its backlog is not a queue: there
# the switch keeps a virtual queue at the rate.  With FlashPass's emulation
# queue (--emulation), htb with an emulation class in tbf's place
# (_topo_htb_emu).
topo_bottleneck() {
	local node=$1 dev=$2 rate=$3 buffer=$4 k=$5 ns queue=qdisc bytes emu=0 a
	shift 5
	ns=$(topo_ns "$node")
	[ -z "${TOPO_NETEM["$ns $dev"]:-}" ] || queue=virtual
	local args=(--queue "$queue" --rate "$rate" --buffer "$buffer" "$@" ${TOPO_SWITCH_ARGS[@]+"${TOPO_SWITCH_ARGS[@]}"})
	[ -n "$k" ] && [ "$k" != 0 ] && args+=(--ecn-k "$k")
	for a in "${args[@]}"; do [ "$a" != --emulation ] || emu=1; done
	[ "$emu" = 0 ] || args+=(--emu-class "$TOPO_EMU_CLASS")
	bytes=$(topo_bytes "$buffer") || return 1
	"$CCLOAD" -q switch attach "$dev" -n "$ns" "${args[@]}" >/dev/null
	if [ "$emu" = 1 ]; then
		emu=$("$CCLOAD" -q switch stats "$dev" -n "$ns" --json | jq -er '.emulation.rate_bps') &&
			_topo_htb_emu "$ns" "$dev" "$rate" $((bytes * 2 + 65536)) "$emu" || return 1
	else
		_topo_tbf "$ns" "$dev" "$rate" $((bytes * 2 + 65536))
	fi
	BN_LIST+=("$ns:$dev")
	# shellcheck disable=SC2034 # for the scripts that source this
	BN_NS=${BN_LIST[0]%%:*} BN_DEV=${BN_LIST[0]#*:}
}

# A host's own port shaped: its queue is the host's, so its TCP senders
# are held back by it (TCP Small Queues, the qdisc's backpressure), never
# dropped or marked, and flows keep the shares their start gave them
# (bench/mptcp-baseline).  A bottleneck to share belongs on a router.
# With @limit the queue under tbf is a bfifo of that many bytes (a buffer
# under test); without, a NIC's default: pfifo_fast, whose first band
# (TC_PRIO_INTERACTIVE: FlashPass's emulation packets, loader/lib/pacer.c)
# leaves ahead of the host's data, so an emulation packet measures the
# bottleneck's queue, not its sender's (tx_queue_len packets, 1000 on veth).
topo_shape() {
	local ns limit
	ns=$(topo_ns "$1")
	limit=$(topo_bytes "${4:-4000000}") || return 1
	_topo_tbf "$ns" "$2" "$3" "$limit"
	[ -z "${4:-}" ] && [ -z "${TOPO_NETEM["$ns $2"]:-}" ] || return 0
	tc -n "$ns" qdisc add dev "$2" parent 1:1 handle 10: pfifo_fast
}

# Switch counters of bottleneck @i (default the first) as JSON.
topo_switch_stats() {
	local i=0
	if [[ ${1:-} =~ ^[0-9]+$ ]]; then i=$1; shift; fi
	local bn=${BN_LIST[$i]}
	"$CCLOAD" -q switch stats "${bn#*:}" -n "${bn%%:*}" --json "$@"
}

# Packets that left by the emulation class (_topo_htb_emu) of bottleneck
# @i (default the first) since the class was made; 0 where it has none.
topo_emu_class_pkts() {
	local bn=${BN_LIST[${1:-0}]}
	# text: this iproute2 writes no JSON for htb's classes
	tc -n "${bn%%:*}" -s class show dev "${bn#*:}" | awk -v c="$TOPO_EMU_CLASS" '
		$1 == "class" { in_c = ($3 == c) }
		in_c && $1 == "Sent" { n = $4 }
		END { print n + 0 }'
}

# _topo_ip HOST IP [IP6]: IP_<HOST>, and IP6_<HOST> when IPv6 is on.
_topo_ip() {
	printf -v "IP_$1" '%s' "$2"
	[ -z "${3:-}" ] || printf -v "IP6_$1" '%s' "$3"
}

# _topo_default NODE GW [GW6]: NODE's default route(s).
_topo_default() {
	topo_exec "$1" ip route add default via "$2"
	[ -z "${3:-}" ] || topo_exec "$1" ip -6 route add default via "$3"
}

topo_ports() {
	ip -n "$(topo_ns "$1")" -o link show |
		awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'
}

# ---- FlashPass ----
# Unscheduled (pre-credit) data is DSCP CS1 (8, bpf_flashpass's
# dscp_unsched): class 1, dropped above LIMIT (default 6 KB, four frames:
# the Aeolus rule's small threshold); emulation packets (UDP to
# TOPO_FP_PORT) go to the emulation queue.  Other CCs' traffic is class 0
# and unaffected.
TOPO_FP_PORT=7190
TOPO_FP_PID=
topo_flashpass_switch() {
	TOPO_SWITCH_ARGS+=(--emulation "$TOPO_FP_PORT" --dscp-class "8=1" --class-limit "1=${1:-6kb}")
}

# `ccload flashpass run` from the SENDERS' namespaces, with the sender
# roles on their ports and the receiver role on the RECEIVERS' ports, in
# the background (stopped by topo_flashpass_stop or topo_cleanup); waits
# until it runs, else prints LOG and fails.
# A release the pacer would send over TOPO_FP_EXPIRY late expires (ccload
# flashpass run --release-expiry; its default, 1 ms, without it).  Under
# TCG the pacer wakes up to ~10 ms late, as tbf does (TOPO_TBF_SLACK_MS):
# at 2 ms, 0.88-0.94 of the credits were released there (three runs),
# against 0.98 on the host.
TOPO_FP_EXPIRY=${TOPO_FP_EXPIRY:-${CCSUITE_VM:+12ms}}
topo_flashpass_run() {
	local log=$1 n dev i args=()
	[ -z "$TOPO_FP_EXPIRY" ] || args+=(--release-expiry "$TOPO_FP_EXPIRY")
	for n in $2; do
		args+=(-n "$(topo_ns "$n")")
		for dev in $(topo_ports "$n"); do
			args+=(--tc "flashpass-sender=$dev@$(topo_ns "$n")" --tc "flashpass-credits=$dev@$(topo_ns "$n")")
		done
	done
	for n in $3; do
		for dev in $(topo_ports "$n"); do args+=(--tc "flashpass-receiver=$dev@$(topo_ns "$n")"); done
	done
	# emptied here, not by the background job's redirection: the wait
	# below would otherwise find an earlier run's "pacer running"
	: >"$log"
	"$CCLOAD" flashpass run "${args[@]}" "${@:4}" >>"$log" 2>&1 &
	TOPO_FP_PID=$!
	TOPO_PIDS+=("$TOPO_FP_PID")
	for ((i = 0; i < 100; i++)); do
		grep -q 'pacer running' "$log" && return 0
		kill -0 "$TOPO_FP_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log"
	topo_flashpass_stop
	return 1
}

topo_flashpass_stop() { topo_flashpass_signal TERM; }

# A server whose clients are connected and quiet: the server's sockets
# (accepted, so on the listener's CC) have nothing to send.  The clients'
# stay on the namespace's default CC.
topo_idle_conns() {
	local py='
import resource, socket, sys, time
n, port, cc = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
resource.setrlimit(resource.RLIMIT_NOFILE, (2 * n + 64, 2 * n + 64))
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc)
ls.bind(("127.0.0.1", port))
ls.listen(128)
keep = []
for _ in range(n):
    c = socket.create_connection(("127.0.0.1", port))
    s, _ = ls.accept()
    keep += [c, s]
print("ready", n, flush=True)
while True:
    time.sleep(3600)
'
	topo_bg "$1" python3 -c "$py" "$2" "$3" "$4" >"$5" 2>&1
}

topo_cpu_ticks() {
	local c t
	t=$(awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null)
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		t=$((t + $(topo_cpu_ticks "$c")))
	done
	echo "${t:-0}"
}

topo_flashpass_signal() {
	local pid=$TOPO_FP_PID rc i
	[ -n "$pid" ] || return 0
	kill -"$1" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	TOPO_FP_PID=
	for i in "${!TOPO_PIDS[@]}"; do
		[ "${TOPO_PIDS[i]}" = "$pid" ] && unset 'TOPO_PIDS[i]'
	done
	TOPO_PIDS=(${TOPO_PIDS[@]+"${TOPO_PIDS[@]}"})
	return $rc
}

# ---- topologies ----

topo_dumbbell() {
	local n=$1 rate=$2 buffer=$3 k=$4 delays=${5:-} access=${6:-} i d a
	local -a dl ac
	IFS=, read -r -a dl <<<"$delays"
	IFS=, read -r -a ac <<<"$access"
	topo_node r || return 1
	topo_node d || return 1
	topo_link r d || return 1
	topo_bottleneck r "$LINK_IF_A" "$rate" "$buffer" "$k"
	_topo_ip D "$LINK_IP_B" "$LINK_IP6_B"
	_topo_default d "$LINK_IP_A" "$LINK_IP6_A"
	for ((i = 1; i <= n; i++)); do
		d=${dl[i - 1]:-${dl[0]:-0}}
		a=${ac[i - 1]:-}
		topo_node "s$i" || return 1
		if [[ $d == r* ]]; then
			_topo_return_link "s$i" r "${d#r}" || return 1
		else
			# "F:R": F ms towards the router, R ms back (per direction)
			topo_link "s$i" r "${d%%:*}" "${d##*:}" || return 1
		fi
		_topo_default "s$i" "$LINK_IP_B" "$LINK_IP6_B"
		[ -n "$a" ] && [ "$a" != 0 ] && topo_shape "s$i" "$LINK_IF_A" "$a"
		_topo_ip "S$i" "$LINK_IP_A" "$LINK_IP6_A"
	done
}

# "rR" (a dumbbell delay): R ms on the way back only, on a link of its own:
# A's traffic to B leaves on a veth link, B's traffic to A's address
# comes back over a second, delayed link.  The way there then has no
# user-space forwarding (VDE's, which holds packets while its process
# waits for a CPU and then releases them together) before the bottleneck.
# Leaves LINK_* as the first link's.
_topo_return_link() {
	local a=$1 b=$2 r=$3 ip_a if_a ip_b if_b ip6_a ip6_b
	topo_link "$a" "$b" || return 1
	ip_a=$LINK_IP_A if_a=$LINK_IF_A ip_b=$LINK_IP_B if_b=$LINK_IF_B
	ip6_a=$LINK_IP6_A ip6_b=$LINK_IP6_B
	topo_link "$a" "$b" 0 "$r" || return 1
	topo_exec "$b" ip route replace "$ip_a/32" via "$LINK_IP_A" dev "$LINK_IF_B"
	[ -z "$ip6_a" ] ||
		topo_exec "$b" ip -6 route replace "$ip6_a/128" via "$LINK_IP6_A" dev "$LINK_IF_B"
	LINK_IP_A=$ip_a LINK_IF_A=$if_a LINK_IP_B=$ip_b LINK_IF_B=$if_b
	LINK_IP6_A=$ip6_a LINK_IP6_B=$ip6_b
}

topo_parking_lot() {
	local rate=$1 buffer=$2 k=$3 d=$4 r12a r12b r23a r23b
	topo_node r1 || return 1; topo_node r2 || return 1; topo_node r3 || return 1
	topo_link r1 r2 "$d" "$d" || return 1; r12a=$LINK_IP_A; r12b=$LINK_IP_B
	topo_bottleneck r1 "$LINK_IF_A" "$rate" "$buffer" "$k"
	topo_link r2 r3 "$d" "$d" || return 1; r23a=$LINK_IP_A; r23b=$LINK_IP_B
	topo_bottleneck r2 "$LINK_IF_A" "$rate" "$buffer" "$k"
	local h r gw
	for h in l:r1 c1:r1 x1:r2 c2:r2 ld:r3 x2:r3; do
		r=${h#*:}
		h=${h%%:*}
		topo_node "$h" || return 1
		topo_link "$h" "$r" || return 1
		topo_exec "$h" ip route add default via "$LINK_IP_B"
		_topo_ip "${h^^}" "$LINK_IP_A"
	done
	# Routers: everything towards r3's side goes right, the rest left.
	topo_exec r1 ip route add default via "$r12b"
	topo_exec r3 ip route add default via "$r23a"
	for h in L C1; do
		gw=IP_$h
		topo_exec r2 ip route add "${!gw%.*}.0/24" via "$r12a"
	done
	for h in LD X2; do
		gw=IP_$h
		topo_exec r2 ip route add "${!gw%.*}.0/24" via "$r23b"
	done
}

# Sites 1, 2, 3; site s's hosts are in 10.10s.0.0/16.
topo_wan3() {
	local rate=$1 buffer=$2 k=$3 hosts=$4 scale=${5:-1} s t i d
	local -A dl=([12]=20 [23]=30 [13]=40) gw=()
	for s in 1 2 3; do topo_node "b$s"; done
	for st in 12 23 13; do
		s=${st:0:1} t=${st:1:1}
		d=$(awk -v d="${dl[$st]}" -v f="$scale" 'BEGIN { print d * f }')
		topo_link "b$s" "b$t" "$d" "$d" || return 1
		topo_bottleneck "b$s" "$LINK_IF_A" "$rate" "$buffer" "$k"
		topo_bottleneck "b$t" "$LINK_IF_B" "$rate" "$buffer" "$k"
		gw[$s$t]=$LINK_IP_B
		gw[$t$s]=$LINK_IP_A
	done
	for s in 1 2 3; do
		for ((i = 1; i <= hosts; i++)); do
			topo_node "h${s}_$i" || return 1
			TOPO_NET="10.10$s.$i" topo_link "h${s}_$i" "b$s"
			topo_exec "h${s}_$i" ip route add default via "$LINK_IP_B"
			_topo_ip "H${s}_$i" "$LINK_IP_A"
		done
		for t in 1 2 3; do
			[ "$s" = "$t" ] || topo_exec "b$s" ip route add "10.10$t.0.0/16" via "${gw[$s$t]}"
		done
	done
}

# a reaches b over r1 (a's first address) and r2 (its second, policy-routed),
# each path with its own bottleneck r_i -> b; MPTCP may use both.
#   topo_two_path RATE BUFFER K D1 D2 [RATE2 [LOSS_PCT [WIRED]]]
# (path 2 at RATE2, default RATE; LOSS_PCT of a's packets lost on each;
# WIRED ms each way of a server's wired link behind each bottleneck, all
# of it on the way back, b -> r_i: so that nothing delays packets between
# the bottleneck's queue and the switch that judges it (with netem there,
# topo_bottleneck would fall back to a virtual queue), and VDE's 1 ms
# bursts do not land in the queue).
topo_two_path() {
	local rate=$1 buffer=$2 k=$3 d1=$4 d2=$5 rate2=${6:-$1} loss=${7:-0} wired=${8:-0} p
	topo_node a || return 1; topo_node b || return 1
	for p in 1 2; do
		local d=$d1 r=$rate
		[ $p = 2 ] && d=$d2 r=$rate2
		topo_node "r$p" || return 1
		topo_link a "r$p" "$d" "$d" "$loss" || return 1
		local aip=$LINK_IP_A rip=$LINK_IP_B
		topo_link "r$p" b 0 $((2 * wired)) || return 1
		topo_bottleneck "r$p" "$LINK_IF_A" "$r" "$buffer" "$k"
		topo_exec b ip route add "${aip%.*}.0/24" via "$LINK_IP_A"
		topo_exec "r$p" ip route add default via "$LINK_IP_B"
		_topo_ip "A$p" "$aip"
		_topo_ip "B$p" "$LINK_IP_B"
		topo_exec a ip rule add from "$aip" table $((100 + p))
		topo_exec a ip route add default via "$rip" table $((100 + p))
	done
	topo_exec a ip route add default via "${IP_A1%.*}.2"
	_topo_mptcp a b "$IP_A2"
}

# a has two ports to r (MPTCP subflows), c one; both share r -> b.
#   topo_shared_two_path RATE BUFFER K D [LOSS_PCT [WIRED]]
# (LOSS_PCT of a's and c's packets lost on their way to r; WIRED ms each
# way of a wired link r - b, all of it on the way back, as topo_two_path).
topo_shared_two_path() {
	local rate=$1 buffer=$2 k=$3 d=$4 loss=${5:-0} wired=${6:-0} p
	topo_node a || return 1; topo_node b || return 1; topo_node c || return 1; topo_node r || return 1
	for p in 1 2; do
		topo_link a r "$d" "$d" "$loss" || return 1
		_topo_ip "A$p" "$LINK_IP_A"
		topo_exec a ip rule add from "$LINK_IP_A" table $((100 + p))
		topo_exec a ip route add default via "$LINK_IP_B" table $((100 + p))
	done
	topo_exec a ip route add default via "${IP_A1%.*}.2"
	topo_link c r "$d" "$d" "$loss" || return 1
	_topo_ip C "$LINK_IP_A"
	topo_exec c ip route add default via "$LINK_IP_B"
	topo_link r b 0 $((2 * wired)) || return 1
	topo_bottleneck r "$LINK_IF_A" "$rate" "$buffer" "$k"
	_topo_ip B "$LINK_IP_B"
	topo_exec b ip route add default via "$LINK_IP_A"
	_topo_mptcp a b "$IP_A2"
}

# Every IPv4 route of host NAME gets the quickack attribute: its TCP
# sockets ACK each data segment when it arrives instead of delaying the ACK.
topo_quickack() {
	local rt
	topo_exec "$1" ip -4 route show table all type unicast | while read -r rt; do
		# shellcheck disable=SC2086 # the route's words are ip's arguments
		topo_exec "$1" ip -4 route change $rt quickack 1 || return 1
	done
}

# MPTCP: @a announces a subflow from @extra; both accept subflows.  Both
# ACK every segment at once (topo_quickack; TOPO_DELACK=1 keeps the
# kernel's delayed ACKs): with delayed ACKs a subflow's ACK leaves later
# than a TCP flow's at the same receiver, and at equal windows its RTT is
# higher (bench/published/mptcp-baseline/).
_topo_mptcp() {
	local a=$1 b=$2 extra=$3 dev
	for h in "$a" "$b"; do
		topo_exec "$h" sysctl -qw net.mptcp.enabled=1
		topo_exec "$h" ip mptcp limits set subflows 4 add_addr_accepted 4
		[ "${TOPO_DELACK:-0}" = 1 ] || topo_quickack "$h"
	done
	dev=$(topo_exec "$a" ip -o addr show to "$extra" | awk '{print $2}')
	topo_exec "$a" ip mptcp endpoint add "$extra" dev "$dev" subflow
}
