#!/usr/bin/env bash
# What `ccload flashpass run`, the emulation pacer, may do while it runs,
# on t_flashpass's network (s1, s2 -> r -> d, 20 ms back):
#
#   signals        SIGHUP and SIGQUIT stop it as SIGTERM does: exit 0, and
#                  what it attached (the CC, its roles, its pins) removed.
#   one pacer      a second refuses to start, naming the first one's PID,
#                  and attaches nothing; the first runs on.
#   privileges     the worker that paces (a child of run) holds no
#                  capability in any set (CAP_BPF where bpf() needs it),
#                  runs as nobody with no_new_privs at its real-time
#                  priority, and still paces; it stops when run is killed.
#   namespaces     it sends only for flows of the namespaces it serves
#                  with their source address: with one -n (s1) none for
#                  s2's flow, with none (the test's own namespace) none
#                  for s1's, and with two none for a flow of a third
#                  namespace that holds s1's address.
#   rate cap       all flows' emulation packets together at most the sum
#                  of its links' r_max: four flows from s1, at a link rate
#                  a tenth of the path's (no emulation loss, each flow at
#                  r_max), get one r_max between them.
#   idle sockets   4096 idle server connections on bpf_flashpass (their
#                  ledgers have no demand) do not keep it busy: it reads
#                  them a share a scan (bench/flashpass-pacer-idle); and
#                  a flow that starts among them is paced.
#   no credit      a flow that gets no credit at all (no receiver role,
#                  fallback put off) has its emulation rate lowered to
#                  the lowest, not held where it started.
source "$(dirname "$0")/lib.sh"

RATE=100mbit
[ -z "${CCSUITE_VM:-}" ] || RATE=10mbit

flashpass_net 2
topo_node x # connected to nothing: s1's address on its loopback
ip -n "$(topo_ns x)" addr add "$IP_S1/32" dev lo
S1=$(topo_ns s1) S2=$(topo_ns s2)
read -r S1DEV _ <<<"$(topo_ports s1 | tr '\n' ' ')"
read -r S2DEV _ <<<"$(topo_ports s2 | tr '\n' ' ')"

# start_pacer "SENDERS" [RECEIVER [ccload args]]: the pacer from SENDERS'
# namespaces, their roles, the receiver role on RECEIVER's port if given
start_pacer() { topo_flashpass_run "$TMP/pacer.log" "$1" "${2:-}" --link-rate "$RATE" "${@:3}"; }

# transfer PORT SECS HOST...: a bulk $CC transfer to d from each HOST at
# once, in the background (PIDs in XFERS; reports in $TMP/client.HOST.I)
transfer() {
	local port=$1 secs=$2 n
	shift 2
	topo_bg d "$TCPXFER" server -C $CC -p "$port" -n $# >/dev/null
	sleep 0.3
	XFERS=()
	for n in "$@"; do
		# topo_spawn: $! is tcpxfer itself, which topo_stop can stop
		topo_spawn "$n" "$TCPXFER" client -c "$IP_D" -p "$port" -C $CC -t "$secs" \
			>"$TMP/client.$n.${#XFERS[@]}"
		XFERS+=($!)
	done
}
transfer_wait() { local pid; for pid in "${XFERS[@]}"; do wait "$pid"; done; }
# ledger SRC PORT: the ledger (and the pacer's view) of SRC's flow to d:PORT
ledger() { "$CCLOAD" -q flashpass flows --json | jq -c --arg ip "$1" --argjson p "$2" 'select(.src == $ip and .dport == $p)'; }
# worker: the PID of the running pacer's worker, its child
worker() { awk '{ print $1 }' "/proc/$TOPO_FP_PID/task/$TOPO_FP_PID/children" 2>/dev/null; }

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

echo "privileges: the worker that paces holds none"
check "ccload flashpass run starts" start_pacer s1 d
W=$(worker)
check "it paces in a child process (PID ${W:-none})" [ -n "$W" ]
ST=/proc/${W:-0}/status
# cap_set FIELD: the worker's capability set FIELD of its status, empty
# but for CAP_BPF (bit 39) where the kernel wants it for map reads
cap_set() { awk -v f="$1:" '$1 == f { print $2 }' "$ST"; }
for f in CapEff CapPrm CapInh CapAmb CapBnd; do
	check "its $f holds nothing ($(cap_set $f))" \
		bash -c '[ "$1" = 0000000000000000 ] || [ "$1" = 0000008000000000 ]' _ "$(cap_set $f)"
done
check "it runs as nobody ($(grep -E '^(Uid|Gid):' "$ST" | tr -s '\t\n' '  '))" \
	bash -c "grep -Eq '^Uid:\s+65534\s+65534\s+65534\s+65534$' '$ST' &&
		grep -Eq '^Gid:\s+65534\s+65534\s+65534\s+65534$' '$ST' && grep -Eq '^Groups:\s*$' '$ST'"
check "with no_new_privs" grep -Eq '^NoNewPrivs:\s+1$' "$ST"
check "at its real-time priority ($(chrt -p "${W:-0}" 2>&1 | head -n1))" \
	bash -c "chrt -p '${W:-0}' | grep -q SCHED_FIFO"
transfer 5401 2 s1
sleep 1
l=$(ledger "$IP_S1" 5401)
echo "    s1's ledger 1 s in: $l"
check "and paces: s1's flow got emulation packets, and credits came back" \
	jq -e '.emu_sent > 0 and .credits > 0' <<<"$l"
transfer_wait
check "killed, run takes its worker with it" \
	bash -c "kill -KILL $TOPO_FP_PID; for i in \$(seq 50); do kill -0 '${W:-0}' 2>/dev/null || exit 0; sleep 0.1; done; exit 1"
topo_flashpass_signal CONT # reaps it
"$CCLOAD" -q detach $CC >/dev/null 2>&1

echo "namespaces: only flows of the namespaces served, from their own addresses"
# emu_sent FILE SRC PORT: the pacer's emulation packets for that flow, as
# flows --json listed it in FILE (0 for a flow it has no view of)
emu_sent() { jq -s --arg ip "$2" --argjson p "$3" '[.[] | select(.src == $ip and .dport == $p)] | if length == 1 then .[0].emu_sent else "no ledger" end' "$1"; }
# unserved: the pacer's count of flows from no namespace of its, at its stop
unserved() { grep -o '[0-9]* flows from no namespace of ours' "$TMP/pacer.log" | awk '{ print $1 }'; }
check "ccload flashpass run -n s1 starts" start_pacer s1 d
transfer 5411 2 s1 s2
sleep 1
"$CCLOAD" -q flashpass flows --json >"$TMP/flows"
transfer_wait
check_range "one namespace: s1's flow got emulation packets" "$(emu_sent "$TMP/flows" "$IP_S1" 5411)" 1 1e9
check_range "one namespace: s2's flow got none" "$(emu_sent "$TMP/flows" "$IP_S2" 5411)" 0 0
check "the pacer stops cleanly" topo_flashpass_stop
# (d's server sockets too, which send their reports)
check_range "it counted s2's flow (and d's) as from no namespace of its" "$(unserved)" 1 1e9
# no -n: the pacer serves the namespace it runs in (the test's), which
# has no test address
check "ccload flashpass run without -n starts" \
	topo_flashpass_run "$TMP/pacer.log" "" d --link-rate "$RATE" \
	--tc "flashpass-sender=$S1DEV@$S1" --tc "flashpass-credits=$S1DEV@$S1"
transfer 5412 2 s1
sleep 1
"$CCLOAD" -q flashpass flows --json >"$TMP/flows"
transfer_wait
check_range "no namespace named: s1's flow got none" "$(emu_sent "$TMP/flows" "$IP_S1" 5412)" 0 0
check "the pacer stops cleanly" topo_flashpass_stop
check_range "it counted s1's flow (and d's) as from no namespace of its" "$(unserved)" 1 1e9
# x holds s1's address: its flow to that address (over its loopback)
# has s1's source address, and is not s1's
check "ccload flashpass run -n s1 -n s2 starts" start_pacer "s1 s2" d
topo_bg x "$TCPXFER" server -C $CC -p 5413 -n 1 >/dev/null
sleep 0.3
topo_spawn x "$TCPXFER" client -c "$IP_S1" -p 5413 -C $CC -t 2 >"$TMP/client.x"
XFERS=($!)
sleep 1
"$CCLOAD" -q flashpass flows --json >"$TMP/flows"
transfer_wait
check_range "x's flow with s1's source address got none" "$(emu_sent "$TMP/flows" "$IP_S1" 5413)" 0 0
check "the pacer stops cleanly" topo_flashpass_stop

echo "rate cap: all flows' emulation packets at most the sum of the links' r_max"
# a tenth of the path's rate: its emulation queue takes ten times what
# the flows send, so none is lost and each flow's own rate stays at r_max
CAP_RATE=10mbit
[ -z "${CCSUITE_VM:-}" ] || CAP_RATE=1mbit
R_MAX=$(($(topo_units rate $CAP_RATE) / (1622 * 8)))
# emu_total PORT: s1's flows to d:PORT, their emulation packets so far
emu_total() { "$CCLOAD" -q flashpass flows --json | jq -s --arg ip "$IP_S1" --argjson p "$1" '[.[] | select(.src == $ip and .dport == $p) | .emu_sent] | add // 0'; }
check "ccload flashpass run -n s1 --link-rate $CAP_RATE --start 1024 starts" \
	topo_flashpass_run "$TMP/pacer.log" s1 d --link-rate $CAP_RATE --start 1024
check "it says its cap: r_max $R_MAX per flow, $R_MAX in all" \
	grep -q "r_max $R_MAX emulation packets/s per flow, $R_MAX in all" "$TMP/pacer.log"
transfer 5421 4 s1 s1 s1 s1
sleep 1.5
e0=$(emu_total 5421) t0=$(date +%s.%N)
sleep 1
e1=$(emu_total 5421) t1=$(date +%s.%N)
transfer_wait
pps=$(awk -v a="$e0" -v b="$e1" -v s="$t0" -v t="$t1" 'BEGIN { printf "%.0f", (b - a) / (t - s) }')
# (each flow alone at r_max: four times it)
check_range "four flows' emulation packets a second, 1.5-2.5 s in (r_max $R_MAX)" \
	"$pps" $((R_MAX * 8 / 10)) $((R_MAX * 11 / 10))
check "the pacer stops cleanly" topo_flashpass_stop
check_range "its report: packets the cap held back" \
	"$(grep -o '[0-9]* held back by the rate cap' "$TMP/pacer.log" | awk '{ print $1 }')" 1 1e9

echo "idle sockets: 4096 idle server connections on $CC, and the pacer's CPU"
check "ccload flashpass run -n s1 starts" start_pacer s1 d
topo_idle_conns x 4096 5431 $CC "$TMP/conns"
idle=$!
for _ in $(seq 300); do grep -q '^ready' "$TMP/conns" && break; sleep 0.1; done
check "4096 connections are open ($(head -c 200 "$TMP/conns"))" grep -q '^ready 4096' "$TMP/conns"
# all of them: the loader gives the LRU table room for the free entries
# the kernel keeps per CPU (3968 of 4096 were kept before it did)
n=$("$CCLOAD" -q flashpass flows --json | jq -c 'select(.src == "127.0.0.1" and .sport == 5431)' | wc -l)
check_range "their ledgers" "$n" 4096 4096
c0=$(topo_cpu_ticks "$TOPO_FP_PID")
sleep 3
c1=$(topo_cpu_ticks "$TOPO_FP_PID")
pct=$(awk -v d=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", 100 * d / hz / 3 }')
if [ -n "${CCSUITE_VM:-}" ]; then
	skip "the pacer's CPU beside idle ledgers ($pct %): not measured under TCG emulation"
else
	# reading every ledger every scan took the core it runs on
	check_range "the pacer's CPU beside them, % of a core over 3 s" "$pct" 0 15
fi
transfer 5432 3 s1
sleep 1.5
l=$(ledger "$IP_S1" 5432)
echo "    s1's ledger 1.5 s in: $l"
transfer_wait
check "a flow that starts among them gets emulation packets and credits" \
	jq -e '.emu_sent > 0 and .credits > 0' <<<"$l"
check "the pacer stops cleanly" topo_flashpass_stop
topo_stop "$idle"

echo "no credit: a flow that gets none has its emulation rate lowered"
R_MAX=$(($(topo_units rate "$RATE") / (1622 * 8)))
check "ccload flashpass run -n s1 without the receiver role, fallback after 60 s, starts" \
	start_pacer s1 "" --set fallback_ms=60000 --set fallback_rtts=1000
transfer 5441 10 s1
sleep 2
l=$(ledger "$IP_S1" 5441)
echo "    s1's ledger 2 s in: $l"
# its data hardly moves without credits: stopped, not waited for
for pid in "${XFERS[@]}"; do topo_stop "$pid"; done
check "its flow is in the pre-credit phase, with no credit" \
	jq -e '.phase == "pre-credit" and .credits == 0 and .emu_sent > 0' <<<"$l"
# it starts at a quarter of r_max and held that without credits; the
# lowest is one packet per RTT (50 a second at 20 ms)
check_range "its emulation rate, 2 s in (r_max $R_MAX)" "$(jq .emu_pps <<<"$l")" 1 $((R_MAX / 16))
check "the pacer stops cleanly" topo_flashpass_stop
