#!/usr/bin/env bash
# bpf_lia and bpf_ppqd on upstream MPTCP: a (two ports) and c (one) share
# r's bottleneck to b (topo_shared_two_path).  An MPTCP connection of two
# subflows from a runs on each CC: both subflows carry it, the coupling
# table holds its one entry with both subflows while it lives (from its
# first data, before any ACK) and none once it closed, the coupled term sets the growth, bpf_ppqd's smoothing
# state is listed per subflow, and bench/trace/mptcp.bt shows both.  Beside
# a TCP flow from c, bpf_lia's and bpf_ppqd's connections take about that
# flow's share (bpf_ppqd by yielding its delay control to it).
# A plain TCP flow on either CC is a connection of one subflow.  With a
# table of one entry, a second connection runs uncoupled (counted) and the
# first keeps its entry.
source "$(dirname "$0")/lib.sh"
source "$TOPO_ROOT/bench/lib/sample.sh" # trace_unsupported, sample_trace
# shellcheck disable=SC2034 # sample_trace reads ROOT and SAMPLER_PIDS
ROOT=$TOPO_ROOT SAMPLER_PIDS=()

# Under TCG emulation (test/vm/run) the guest carries a fraction of the rate.
RATE=20mbit SECS=6
[ -z "${CCSUITE_VM:-}" ] || RATE=4mbit SECS=10
TMP=$(mktemp -d)

topo_init
cleanup() {
	stop_samplers
	topo_cleanup
	"$CCLOAD" -q detach bpf_lia >/dev/null 2>&1
	"$CCLOAD" -q detach bpf_ppqd >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
topo_shared_two_path "$RATE" 50kb 0 10
for h in a b c r; do topo_default_cc "$h" reno; done
A=$(topo_ns a)

# conns CC: the coupling table's entries (ccload lia|ppqd conns --json)
conns() { "$CCLOAD" -q "${1#bpf_}" conns --json; }
# mptcp_socks PORT: a's MPTCP subflows to b:PORT, one CC name a line
mptcp_socks() {
	topo_exec a ss -tinH state established "dst $IP_B:$1" |
		awk '/^[0-9]/ { next } /tcp-ulp-mptcp/ { print $1 }'
}
# wait_no_conns CC: the table empties within 10 s of the close
wait_no_conns() {
	for _ in $(seq 50); do
		[ -z "$(conns "$1")" ] && return 0
		sleep 0.2
	done
	return 1
}

check "attach bpf_lia" "$CCLOAD" -q attach bpf_lia
check "attach bpf_ppqd" "$CCLOAD" -q attach bpf_ppqd

port=5910
for CC in bpf_lia bpf_ppqd; do
	echo "an MPTCP connection of two subflows on $CC"
	port=$((port + 1))
	coupled0=$(ccstat $CC sub_coupled)
	topo_bg b "$TCPXFER" server -C $CC -p $port -n 1 -M >"$TMP/server"
	sleep 0.3
	bt=
	if [ $CC = bpf_ppqd ]; then
		if why=$(trace_unsupported); then
			skip "bench/trace/mptcp.bt: $why"
		else
			sample_trace "$TMP/bt" mptcp
			bt=1
		fi
	fi
	topo_exec a "$TCPXFER" client -c "$IP_B" -p $port -C $CC -t $SECS -M >"$TMP/client" &
	cl=$!
	sleep $((SECS / 2))
	socks=$(mptcp_socks $port | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')
	echo "    subflows: $socks"
	check "both subflows run $CC" [ "$(mptcp_socks $port | grep -cx $CC)" -eq 2 ]
	live=$(conns $CC)
	echo "    coupling table: $(tr '\n' ' ' <<<"$live")"
	check "the table holds one entry, with both subflows' windows and RTTs" \
		jq -s -e -f "$TOPO_ROOT/bench/lib/mptcp-conn-entry.jq" <<<"$live"
	check "w_total is the sum of the subflows' windows (within one ACK's growth)" \
		jq -s -e '.[0] | (.w_total - ([.subflows[].cwnd] | add)) | fabs <= 2' <<<"$live"
	if [ $CC = bpf_ppqd ]; then
		# both listings at once, while the connection lives (the guest
		# under TCG takes a second or more per command)
		"$CCLOAD" -q ppqd flows --json -n "$A" >"$TMP/flows"
		"$CCLOAD" -q ppqd flows -n "$A" >"$TMP/flows.txt"
		tok=$(jq -s -r '.[0].token' <<<"$live")
		sed 's/^/    /' "$TMP/flows"
		check "ppqd flows lists both subflows of the connection, smoothed past the warm-up" \
			jq -s -e --arg t "$tok" -f "$TOPO_ROOT/bench/lib/ppqd-flows-smoothed.jq" "$TMP/flows"
		check "ppqd flows (text) lists them" grep -q "$tok" "$TMP/flows.txt"
	fi
	wait $cl
	echo "    $(cat "$TMP/client")"
	check "every byte arrived intact, over two subflows, on $CC" \
		jq -e --arg cc $CC '.cc == $cc and .pattern_ok and .bytes == .received and .bytes > 0 and
			.subflows == 2' "$TMP/client"
	check "the table is empty once the connection closed" wait_no_conns $CC
	check_range "subflows counted in a connection (both ends)" \
		$(($(ccstat $CC sub_coupled) - coupled0)) 2 4
	inc_c=$(ccstat $CC inc_coupled) inc_u=$(ccstat $CC inc_uncoupled)
	# Measured: 0 to 9 of 3500 to 7000 growing ACKs set by the uncoupled
	# bound (two subflows, one bottleneck: the coupled term is the smaller).
	check_range "share of growing ACKs the coupled term set ($inc_c of $((inc_c + inc_u)))" \
		"$(awk -v c="$inc_c" -v u="$inc_u" 'BEGIN { print c / (c + u) }')" 0.95 1
	if [ -n "$bt" ]; then
		stop_samplers
		{ grep -m2 '^@ppqd\[[0-9]*, '$port'\]' "$TMP/bt"; grep -m1 '^@conn\[[1-9]' "$TMP/bt"; } |
			sed 's/^/    mptcp.bt: /'
		grep -q '^@ppqd\[' "$TMP/bt" || sed 's/^/    ! /' "$TMP/bt.err" | head -5
		# @ppqd[sport, dport]: (token, cwnd, forecast, queue, mean, mode)
		check "mptcp.bt shows bpf_ppqd subflows with a window and a forecast RTT" \
			awk -F'[(),]' '/^@ppqd\[/ && $4 > 0 && $5 > 0 { ok = 1 } END { exit !ok }' "$TMP/bt"
		check "mptcp.bt shows the connection's w_total and alpha" \
			awk -F'[(),]' '/^@conn\[/ && $2 > 0 && $3 > 0 { ok = 1 } END { exit !ok }' "$TMP/bt"
	fi
done

echo "a plain TCP flow on each: a connection of one subflow"
for CC in bpf_lia bpf_ppqd; do
	port=$((port + 1))
	plain0=$(ccstat $CC plain_tcp)
	topo_bg b "$TCPXFER" server -C $CC -p $port -n 1 >/dev/null
	sleep 0.3
	topo_exec c "$TCPXFER" client -c "$IP_B" -p $port -C $CC -b 8mb >"$TMP/client"
	check "a plain TCP flow on $CC completes with every byte" \
		jq -e --arg cc $CC '.cc == $cc and .pattern_ok and .bytes == .received and
			.bytes == 8388608 and .subflows == 0' "$TMP/client"
	check_range "$CC counted it as plain TCP (both ends)" $(($(ccstat $CC plain_tcp) - plain0)) 1 2
	check "no coupling entry for it" [ -z "$(conns $CC)" ]
done

# An undone halving: both of a's links stall three times, 0.6 s each, so
# every subflow of a connection times out; the ACKs of the originals come
# after the retransmissions, the kernel finds the timeouts spurious
# (timestamps) and undoes them (undo_cwnd()), and an undo takes back the
# congestion event its halving stamped on the connection.  The kernel
# also undoes fast-recovery halvings the stalls' reordering set off
# (DSACKs), so undos are bounded by all window reductions, not by the
# timeouts alone.
echo "an undone halving: the paths stall, the kernel finds the timeouts spurious"
if [ "$TOPO_DELAY" = netem ]; then
	skip "stalling a link needs the tap or VDE backend (this run: netem)"
else
	port=$((port + 1))
	rto0=$(ccstat bpf_lia rto) undo0=$(ccstat bpf_lia undo) unst0=$(ccstat bpf_lia unstamped)
	red0=$(ccstat bpf_lia cwnd_reductions)
	topo_bg b "$TCPXFER" server -C bpf_lia -p $port -n 1 -M >/dev/null
	sleep 0.3
	topo_exec a "$TCPXFER" client -c "$IP_B" -p $port -C bpf_lia -t 6 -r 5mbit -M >"$TMP/client" &
	cl=$!
	sleep 2
	for _ in 1 2 3; do
		topo_link_stall 0.6 1 2
		sleep 1
	done
	wait $cl
	rto=$(($(ccstat bpf_lia rto) - rto0)) undo=$(($(ccstat bpf_lia undo) - undo0))
	unst=$(($(ccstat bpf_lia unstamped) - unst0))
	red=$(($(ccstat bpf_lia cwnd_reductions) - red0))
	echo "    timeouts $rto, window reductions $red, undone $undo, events taken back $unst"
	check "the stalled connection carried every byte over two subflows" \
		jq -e '.pattern_ok and .bytes == .received and .bytes > 0 and .subflows == 2' "$TMP/client"
	check_range "the stalls timed its subflows out" "$rto" 3 1000
	check_range "the kernel undid halvings it found spurious" "$undo" 1 "$red"
	check_range "undone halvings took back their connection's event" "$unst" 1 "$undo"
fi

# share CC PORT SECS: the goodput of CC's connection over a reno TCP
# flow's beside it on the shared bottleneck, for SECS; CC's counters
# before it in $TMP/stats.  (It runs in $(...): the caller moves port on.)
share() {
	local port=$2 secs=$3
	"$CCLOAD" -q stats "$1" --json | jq -c ".\"$1\"" >"$TMP/stats"
	topo_bg b "$TCPXFER" server -p $port -n 2 -M >/dev/null
	sleep 0.3
	topo_exec a "$TCPXFER" client -c "$IP_B" -p $port -C "$1" -t "$secs" -M >"$TMP/mp" &
	p1=$!
	topo_exec c "$TCPXFER" client -c "$IP_B" -p $port -C reno -t "$secs" >"$TMP/tcp" &
	p2=$!
	wait $p1 $p2
	echo "    MPTCP on $1: $(jq -c '{cc, goodput_bps, subflows}' "$TMP/mp"); TCP: $(jq -c '{cc, goodput_bps}' "$TMP/tcp")" >&2
	jq -s -r '.[0].goodput_bps / .[1].goodput_bps' "$TMP/mp" "$TMP/tcp"
}
# since CC: how much counter NAME of CC moved since share() began
since() { echo $(($(ccstat "$1" "$2") - $(jq -r ".$2" "$TMP/stats"))); }

if [ -n "${CCSUITE_VM:-}" ]; then
	skip "bpf_lia's and bpf_ppqd's share beside a TCP flow: not measured under TCG emulation"
else
	echo "bpf_lia beside a TCP flow (reno) on the shared bottleneck"
	port=$((port + 1))
	ratio=$(share bpf_lia $port 60)
	halved=$(since bpf_lia losses) joined=$(since bpf_lia losses_joined)
	echo "    connection: $halved halvings, $joined losses within an RTT of one (not halved)"
	# About the TCP flow's share, and well under uncoupled reno's 2.
	# Measured with b ACKing each segment (topo_quickack), 60 s runs on
	# the tap backend: 0.99 to 1.24, mean 1.11, sd 0.07 (11 runs);
	# uncoupled reno 1.97 and 2.05.  A freshly booted machine runs
	# higher: 1.10 to 1.40, mean 1.21, sd 0.09 (16 runs; one CI run saw
	# 1.43), uncoupled 1.90 to 2.04 (3); 20 runs at 7d01e7e (test/spread):
	# 1.147 to 1.376, mean 1.247, sd 0.068.  [0.85, 1.6]: 5.8 sd below
	# and 5.2 above that mean, 5 sd under uncoupled (mean 1.98).  On VDE the
	# same runs gave 0.95 to 1.05 (5 runs; earlier 0.91 to 1.05, 10):
	# the backend moves the mean by about 0.1, for a cause not found
	# yet.  Shorter runs spread wider, as two saw-tooths' phases do
	# (VDE: 45 s sd 0.08, 14 s sd 0.15).
	check_range "bpf_lia's connection over the TCP flow's goodput" "$ratio" 0.85 1.6
	check "its subflows halved for congestion (cut_once counts each event once)" \
		[ "$halved" -gt 0 ]
	echo "bpf_ppqd beside a TCP flow (reno) on the shared bottleneck"
	port=$((port + 1))
	ratio=$(share bpf_ppqd $port 14)
	competes=$(since bpf_ppqd competes)
	joined=$((joined + $(since bpf_ppqd losses_joined)))
	echo "    $competes times a subflow yielded to the loss-based flow (competed until its loss)"
	# 6 to 13 such losses over the two runs (7 times): the two subflows
	# do lose in one overflow of the drop-tail queue
	check "losses within an RTT of another subflow's halving were not halved again ($joined)" \
		[ "$joined" -gt 0 ]
	check "bpf_ppqd's subflows yielded to the loss-based flow's queue" [ "$competes" -gt 0 ]
	# Measured (14 s runs, b ACKing each segment) on the tap backend,
	# 20 runs at 7d01e7e (test/spread): 0.737 to 1.424, mean 0.986, sd
	# 0.164; on VDE 0.55 to 1.02, mean 0.77, sd 0.12 (22 runs; with the
	# paper's a = 0.5: 0.48 to 0.83; with yield=0 too, 0.29 to 0.40).
	# Held to [0.3, 1.65], 4.2 sd below the tap mean and 4 above, under
	# uncoupled reno's 2: the yields counted above are what tells it
	# from yield=0.
	check_range "bpf_ppqd's connection over the TCP flow's goodput" "$ratio" 0.3 1.65
fi

echo "a connection is in the table from its first data, before any ACK of it"
# b cut off once connected (its link down): the subflows send data and
# get no ACK; they are counted from their first data (CA_EVENT_TX_START).
port=$((port + 1))
topo_bg b "$TCPXFER" server -p $port -n 1 -M >/dev/null
sleep 0.3
B=$(topo_ns b)
b_if=$(ip -n "$B" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2; exit }')
b_gw=$(ip -n "$B" route show default | awk '{ print $3; exit }')
rm -f "$TMP/go" "$TMP/done"
topo_exec a python3 - "$IP_B" $port "$TMP" >"$TMP/early" 2>&1 <<'PY' &
import os, socket, sys, time
def wait_for(name):
    while not os.path.exists(os.path.join(sys.argv[3], name)):
        time.sleep(0.05)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)  # IPPROTO_MPTCP
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"bpf_lia")
s.connect((sys.argv[1], int(sys.argv[2])))
print("connected", flush=True)
wait_for("go")
s.sendall(bytes(65536))
wait_for("done")
s.close()
PY
early=$!
for _ in $(seq 100); do grep -q connected "$TMP/early" && break; sleep 0.1; done
ip -n "$B" link set dev "$b_if" down
touch "$TMP/go"
entry=
for _ in $(seq 50); do
	entry=$(conns bpf_lia)
	[ -n "$entry" ] && break
	sleep 0.1
done
acked=$(topo_exec a ss -tinH state established "dst $IP_B:$port" |
	grep -o 'bytes_acked:[0-9]*' | cut -d: -f2 | sort -n | tail -1)
echo "    coupling table: $(tr '\n' ' ' <<<"$entry")(most bytes acked on a subflow: ${acked:-0})"
check "the table holds the connection with its subflows before any ACK of data" \
	jq -s -e 'length == 1 and .[0].members >= 1' <<<"$entry"
check_range "bytes of data acked on its subflows (the handshake's 1)" "${acked:-0}" 0 1
ip -n "$B" link set dev "$b_if" up
ip -n "$B" route replace default via "$b_gw"
touch "$TMP/done"
wait $early
check "the table is empty once it closed" wait_no_conns bpf_lia

echo "a full coupling table: the next connection runs uncoupled"
"$CCLOAD" -q detach bpf_lia >/dev/null
check "attach bpf_lia with a table of one connection" "$CCLOAD" -q attach bpf_lia --set max_conns=1
full0=$(ccstat bpf_lia sub_uncoupled_full)
port=$((port + 1))
topo_bg b "$TCPXFER" server -p $port -n 2 -M >/dev/null
sleep 0.3
topo_exec a "$TCPXFER" client -c "$IP_B" -p $port -C bpf_lia -t 4 -M >"$TMP/first" &
p1=$!
sleep 1
topo_exec a "$TCPXFER" client -c "$IP_B" -p $port -C bpf_lia -t 2 -M >"$TMP/second" &
p2=$!
sleep 1
live=$(conns bpf_lia)
wait $p2
rc2=$?
check "the first connection keeps its entry of two subflows" \
	jq -s -e 'length == 1 and .[0].members == 2' <<<"$live"
check_range "subflows of the second counted as uncoupled, table full" \
	$(($(ccstat bpf_lia sub_uncoupled_full) - full0)) 2 4
wait $p1
rc1=$?
check "both clients exited 0 ($rc1 $rc2)" [ "$rc1$rc2" = 00 ]
check_reports "both connections carried every byte" 2 \
	'.cc == "bpf_lia" and .pattern_ok and .bytes == .received and .bytes > 0' \
	"$TMP/first" "$TMP/second"
check "the table is empty once both closed" wait_no_conns bpf_lia

echo "refusals"
check_fails "a table of 0 connections" "max_conns" "$CCLOAD" attach bpf_ppqd --set max_conns=0
check_fails "a smoothing factor of 1.0" "tunable a:" "$CCLOAD" attach bpf_ppqd --set a=1000
check_fails "flows with a namespace that does not exist" "no network namespace" \
	"$CCLOAD" ppqd flows -n "ccs-none-$$"
check_fails "an option flows does not take" "" "$CCLOAD" lia conns -n "$A"
