#!/usr/bin/env bash
# bpf_flashpass against hosts and namespaces that are not the flow's, on
# t_flashpass's network (s1, s2 -> r -> d, 100 Mbit/s, 30 KB, 20 ms back),
# the pacer at its defaults:
#
#   spoofed ACKs   s2, off the path, sends two pure ACKs "from d" to s1's
#                  flow during its transfer, checksum wrong and acks about
#                  2^30 and 2^31 ahead.  The sender's ingress, which sees them
#                  before TCP does, must not keep them as the flow's ACK
#                  (every release would become an ACK TCP discards: the
#                  transfer fell to a sixth of its rate when it did).
#   another netns  a namespace connected to nothing opens and closes a
#                  bpf_flashpass connection with the victim's 4-tuple on
#                  its loopback.  Ledgers are in one host-wide map, keyed
#                  by namespace and 4-tuple: the copy gets a ledger of its
#                  own, and neither replaces nor frees the victim's.
#   a router       the receiver role on the router r, none on d: the
#                  emulation packets s1 sends d pass r untouched (d does
#                  not answer them), and s1's flow gets no credit.
#   rx_pps         a receiver that turns at most rx_pps emulation packets
#                  of a source a second into credits: s1's flow gets no
#                  more (the reflector answers whoever a source names).
source "$(dirname "$0")/lib.sh"

RATE=100mbit SECS=6
[ -z "${CCSUITE_VM:-}" ] || RATE=10mbit SECS=12
PORT=5351

flashpass_net 2
topo_node evil
EVIL=$(topo_ns evil)

fpstat() { ccstat $CC "$1"; }
# the ledger of s1's flow to d:PORT, as flows --json lists it
victim() { "$CCLOAD" -q flashpass flows --json | jq -c --arg ip "$IP_S1" --argjson p "$1" 'select(.src == $ip and .dport == $p)'; }

# transfer PORT OUT: a verified transfer s1 -> d in the background; its
# PID in $xfer
transfer() {
	topo_bg d "$TCPXFER" server -C $CC -p "$1" -n 1 >/dev/null
	sleep 0.3
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p "$1" -C $CC -t $SECS >"$2" &
	xfer=$!
}

# Two pure IPv4 ACKs from SRC:SPORT to DST:DPORT, seq SEQ, acks ACK + 2^30
# and ACK + 2^31 - 2^16 (2^31 itself reads as older than ACK: not kept,
# and not counted), the TCP checksum wrong: sent from namespace NS.
spoof_acks() {
	ip netns exec "$1" python3 - "$2" "$3" "$4" "$5" "$6" "$7" <<'PY'
import socket, struct, sys
src, sport, dst, dport, seq, ack = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for ahead in (1 << 30, (1 << 31) - (1 << 16)):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, (ack + ahead) & 0xffffffff, 5 << 4, 0x10, 512, 0xbad, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 0, 0x4000, 64, socket.IPPROTO_TCP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    s.sendto(ip + tcp, (dst, 0))
PY
}

check "ccload flashpass run starts (attaching $CC and three roles)" \
	topo_flashpass_run "$TMP/pacer.log" "s1 s2" d --link-rate "$RATE"

echo "a transfer with nobody interfering"
implausible0=$(fpstat ack_implausible)
transfer $PORT "$TMP/base"
wait $xfer
check "it exits 0" [ $? -eq 0 ]
check_reports "every byte arrived, on $CC" 1 ".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0" "$TMP/base"
check_range "genuine ACKs the sender's ingress refused to keep" $(($(fpstat ack_implausible) - implausible0)) 0 0

echo "the same transfer, two spoofed ACKs from s2 a second in"
# s1's TCP counts a segment with a wrong checksum: the spoofed ACKs reached it
csum_errors() { topo_exec s1 nstat -az TcpInCsumErrors | awk '$1 == "TcpInCsumErrors" { v = $2 } END { print v + 0 }'; }
implausible0=$(fpstat ack_implausible) csum0=$(csum_errors)
transfer $((PORT + 1)) "$TMP/spoofed"
sleep 1
v=$(victim $((PORT + 1)))
echo "    victim's ledger: $(jq -c '{sport, phase, snd_una, snd_nxt, rcv_nxt}' <<<"$v")"
check "the victim's flow is listed, in the credit phase" jq -s -e 'length == 1 and .[0].phase == "credit"' <<<"$v"
spoof_acks "$(topo_ns s2)" "$IP_D" $((PORT + 1)) "$IP_S1" "$(jfield "$v" .sport)" \
	"$(jfield "$v" .rcv_nxt)" "$(jfield "$v" .snd_una)"
check "s2 sent them" [ $? -eq 0 ]
wait $xfer
check "it exits 0" [ $? -eq 0 ]
check_reports "every byte arrived, on $CC" 1 ".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0" "$TMP/spoofed"
check_range "segments with a wrong checksum s1's TCP dropped (the spoofed ACKs came)" $(($(csum_errors) - csum0)) 2 2
check_range "ACKs the sender's ingress refused to keep" $(($(fpstat ack_implausible) - implausible0)) 2 1e9
# Measured before the fix: 83 -> 14 Mbit/s (0.17).  The spoofed transfer
# runs beside nothing, as the first: the same rate within run-to-run
# spread.  Either transfer alone carries 61-85 Mbit/s; the ratio on the
# host, 20 runs: mean 1.031, sd 0.112, 0.818-1.185 (a CI run 1.256).
# Held to [0.55, 1.5], over 4 sd either side; the attack is far below.
ratio=$(jq -s '.[1].goodput_bps / .[0].goodput_bps * 1000 | round / 1000' "$TMP/base" "$TMP/spoofed")
check_range "goodput with the spoofed ACKs, of that without ($(jq -s -c 'map(.goodput_bps / 1e6 | round)' "$TMP/base" "$TMP/spoofed") Mbit/s)" \
	"$ratio" 0.55 1.5

echo "another namespace opens and closes a connection with the victim's 4-tuple"
lost0=$(fpstat ledger_lost)
transfer $((PORT + 2)) "$TMP/victim"
sleep 1
v=$(victim $((PORT + 2)))
sport=$(jfield "$v" .sport)
ip -n "$EVIL" addr add "$IP_S1/32" dev lo
ip -n "$EVIL" addr add "$IP_D/32" dev lo
# The copy says "open" on its stdout, then closes when told on its stdin;
# meanwhile the ledgers of the 4-tuple are read (here: `ip netns exec`
# hides bpffs): the victim's and the copy's own.  At most 20 s.
mkfifo "$TMP/copy.in" "$TMP/copy.out"
timeout 20 ip netns exec "$EVIL" python3 -c '
import socket, sys
src, sport, dst, dport, cc = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); l.bind((dst, dport)); l.listen(1)
c = socket.socket(); c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode()); c.bind((src, sport))
c.connect((dst, dport)); a, _ = l.accept(); c.sendall(b"x" * 1000); a.recv(1000)
print("open", flush=True); sys.stdin.readline()
c.close(); a.close(); l.close()' "$IP_S1" "$sport" "$IP_D" $((PORT + 2)) $CC <"$TMP/copy.in" >"$TMP/copy.out" &
copy=$!
exec {copy_in}>"$TMP/copy.in"
read -r -t 10 said <"$TMP/copy.out"
"$CCLOAD" -q flashpass flows --json >"$TMP/both"
# (not to a copy that is gone: a write to no reader would kill this shell)
! kill -0 $copy 2>/dev/null || echo close >&"$copy_in"
exec {copy_in}>&-
wait $copy
rc=$?
check "the copy connected and closed in its namespace" test "$rc" -eq 0 -a "$said" = open
check "while it was open, the 4-tuple had two ledgers, of two namespaces" \
	jq -s -e --arg ip "$IP_S1" --argjson s "$sport" --argjson p $((PORT + 2)) \
	'map(select(.src == $ip and .sport == $s and .dport == $p)) | length == 2 and (map(.netns) | unique | length == 2)' \
	"$TMP/both"
v2=$(victim $((PORT + 2)) | jq -c --argjson n "$(jfield "$v" .netns)" 'select(.netns == $n)')
check "the victim's ledger is still there, its own ($(jq -c '{sport, phase}' <<<"$v2"))" \
	jq -s -e --argjson s "$sport" 'length == 1 and .[0].sport == $s and .[0].phase == "credit"' <<<"$v2"
wait $xfer
check "the victim's transfer exits 0" [ $? -eq 0 ]
check_reports "every byte arrived, on $CC" 1 ".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0" "$TMP/victim"
check_range "ledgers lost" $(($(fpstat ledger_lost) - lost0)) 0 0
check "no flow fell back ($(fpstat fallbacks) fallbacks)" [ "$(fpstat fallbacks)" -eq 0 ]
check "the pacer stops cleanly" topo_flashpass_stop

echo "a router with the receiver role: transit emulation packets pass"
check "ccload flashpass run starts, the receiver role on r's ports only" \
	topo_flashpass_run "$TMP/pacer.log" s1 r --link-rate "$RATE"
transit0=$(fpstat rx_transit) reflected0=$(fpstat reflected)
transfer $((PORT + 3)) "$TMP/transit"
sleep 1.5
v=$(victim $((PORT + 3)))
echo "    s1's ledger: $(jq -c '{phase, emu_sent, credits}' <<<"$v")"
check "s1's flow sent emulation packets and got no credit" \
	jq -s -e 'length == 1 and .[0].emu_sent > 0 and .[0].credits == 0' <<<"$v"
wait $xfer
check "its transfer exits 0" [ $? -eq 0 ]
check_reports "every byte arrived, on $CC" 1 ".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0" "$TMP/transit"
check_range "emulation packets r passed on" $(($(fpstat rx_transit) - transit0)) 1 1e9
check_range "emulation packets r turned into credits" $(($(fpstat reflected) - reflected0)) 0 0
check "the pacer stops cleanly" topo_flashpass_stop

RX_PPS=500
[ -z "${CCSUITE_VM:-}" ] || RX_PPS=100 # 10 Mbit/s: r_max 770, a quarter of it to start
echo "a receiver at rx_pps=$RX_PPS: no more credits a second for one source"
check "ccload flashpass run starts, bpf_flashpass with rx_pps=$RX_PPS" \
	topo_flashpass_run "$TMP/pacer.log" s1 d --link-rate "$RATE" --set rx_pps=$RX_PPS
transfer $((PORT + 4)) "$TMP/limited"
sleep 1
t0=$(date +%s%N) c0=$(jfield "$(victim $((PORT + 4)))" .credits) limited0=$(fpstat rx_limited)
sleep 2
c1=$(jfield "$(victim $((PORT + 4)))" .credits) t1=$(date +%s%N)
wait $xfer
check "its transfer exits 0" [ $? -eq 0 ]
check_reports "every byte arrived, on $CC" 1 ".cc == \"$CC\" and .pattern_ok and .bytes == .received and .bytes > 0" "$TMP/limited"
# by construction: rx_pps a second from the first read's start to the
# second's end, and a burst of 64 (FP_RX_BURST)
ms=$(((t1 - t0) / 1000000))
check_range "credits s1's flow got in $ms ms" $((c1 - c0)) 1 $((ms * RX_PPS / 1000 + 64))
check_range "emulation packets over the rate, dropped" $(($(fpstat rx_limited) - limited0)) 1 1e9
check "the pacer stops cleanly" topo_flashpass_stop
