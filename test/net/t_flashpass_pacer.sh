#!/usr/bin/env bash
# What `ccload flashpass run`, the emulation pacer, may do while it runs,
# on t_flashpass's network (s1, s2 -> r -> d, 20 ms back):
#
#   signals        SIGHUP and SIGQUIT stop it as SIGTERM does: exit 0, and
#                  what it attached (the CC, its roles, its pins) removed.
#   one pacer      a second refuses to start, naming the first one's PID,
#                  and attaches nothing; the first runs on.
source "$(dirname "$0")/lib.sh"

RATE=100mbit
[ -z "${CCSUITE_VM:-}" ] || RATE=10mbit
CC=bpf_flashpass
TMP=$(mktemp -d)

topo_init
trap 'topo_cleanup; "$CCLOAD" -q detach $CC >/dev/null 2>&1; rm -rf "$TMP"' EXIT
topo_flashpass_switch
topo_dumbbell 2 "$RATE" 30kb 0 r20,r20 "$RATE,$RATE"
S1=$(topo_ns s1) S2=$(topo_ns s2)
read -r S1DEV _ <<<"$(topo_ports s1 | tr '\n' ' ')"
read -r S2DEV _ <<<"$(topo_ports s2 | tr '\n' ' ')"

# start_pacer "SENDERS" [RECEIVER [ccload args]]: the pacer from SENDERS'
# namespaces, their roles, the receiver role on RECEIVER's port if given
start_pacer() { topo_flashpass_run "$TMP/pacer.log" "$1" "${2:-}" --link-rate "$RATE" "${@:3}"; }

# nothing_left: what a pacer that attached everything removes when it stops
nothing_left() {
	! cc_available $CC && [ ! -e /sys/fs/bpf/ccsuite/$CC ] &&
		[ -z "$(tc -n "$S1" filter show dev "$S1DEV" egress)" ] &&
		[ -z "$(tc -n "$S1" filter show dev "$S1DEV" ingress)" ]
}

# signal_pacer SIG: SIG to the pacer, then its exit status.  One still
# running 20 s on is killed (exit 137): a process started in the
# background by a shell without job control ignores SIGQUIT (and
# SIGINT) unless it handles them.
signal_pacer() {
	local pid=$TOPO_FP_PID i
	kill -"$1" "$pid"
	for ((i = 0; i < 200; i++)); do
		[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
		sleep 0.1
	done
	[ $i -lt 200 ] || kill -KILL "$pid"
	topo_flashpass_signal CONT # it has exited: reaped, its status
}

echo "signals: SIGHUP and SIGQUIT stop the pacer as SIGTERM does"
for sig in HUP QUIT; do
	check "ccload flashpass run starts" start_pacer s1 d
	signal_pacer $sig
	rc=$?
	check "it exits 0 on SIG$sig (exit $rc)" [ "$rc" -eq 0 ]
	check "it reported its run" grep -q 'ns per packet' "$TMP/pacer.log"
	check "$CC, its pins and s1's roles are gone after SIG$sig" nothing_left
done

echo "one pacer: a second one refuses to start beside it"
check "ccload flashpass run starts" start_pacer s1 d
first=$TOPO_FP_PID
# bounded: one that started would run until stopped
check_fails "a second pacer, from s2, names the first one's PID" \
	"another pacer is running \(PID $first\b" \
	timeout 10 "$CCLOAD" flashpass run -n "$S2" --tc "flashpass-sender=$S2DEV@$S2"
check "it attached no role on s2's port" bash -c "[ -z \"\$(tc -n '$S2' filter show dev '$S2DEV' egress)\" ]"
check "the first one runs on" kill -0 "$first"
check "$CC stays registered" cc_available $CC
check "the first one stops cleanly" topo_flashpass_stop
check "a pacer starts once the first has exited" start_pacer s1 d
check "and stops cleanly" topo_flashpass_stop
