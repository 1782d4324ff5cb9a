#!/usr/bin/env bash
# ccload service, the commands ccsuite.service runs: check without root;
# start from a config; reload that re-registers only the line that
# changed (the other algorithm's registration and a connection on it
# untouched); a broken config that changes nothing and says where, in one
# line; a line removed; stop, which puts the default back.  The units pass
# systemd-analyze verify.
source "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
chmod 755 "$TMP"	# check runs as nobody too
STATE=/run/ccsuite/service
trap 'rm -rf "$TMP"' EXIT
if [ -e "$STATE" ]; then
	skip "ccload service is in use on this host ($STATE): not touched"
	exit 0
fi
for a in bpf_dctcp bpf_bbr; do
	if cc_available $a; then
		skip "$a is attached by someone else: not touched"
		exit 0
	fi
done
NS=ccs-svc-$$
DEF0=$(sysctl -n net.ipv4.tcp_congestion_control)
cleanup() {
	"$CCLOAD" -q service stop >/dev/null 2>&1
	"$CCLOAD" -q detach bpf_dctcp >/dev/null 2>&1
	"$CCLOAD" -q detach bpf_bbr >/dev/null 2>&1
	[ -z "${SRV:-}" ] || kill "$SRV" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	sysctl -qw net.ipv4.tcp_congestion_control="$DEF0"
	rm -rf "$TMP"
}
trap cleanup EXIT
svc() { "$CCLOAD" service "$@"; }
shift_g_is() { "$CCLOAD" -q list | grep -A40 '^bpf_dctcp' | grep -Eq "shift_g += $1( |$)"; }
CONF=$TMP/ccsuite.conf
# conf LINE...: the config, one line each, with a comment and a blank line
conf() { { echo "# t_service"; echo; printf '%s\n' "$@"; } >"$CONF"; }

echo "check"
conf "attach bpf_dctcp --set shift_g=4 --default   # the default" "attach bpf_bbr"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$CCLOAD" service check "$CONF" 2>&1)
check "a good config checks without root ($out)" grep -q ": 2 algorithm(s), no error" <<<"$out"
# broken FILE LINENO REGEX LINES...: check and reload both refuse it, at
# LINENO (the config's line), saying REGEX, in one line
broken() {
	local n=$1 re=$2 err rc
	shift 2
	conf "attach bpf_bbr" "$@"
	for cmd in check reload; do
		err=$(svc "$cmd" "$CONF" 2>&1 >/dev/null)
		rc=$?
		if [ $rc -ne 0 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -Eq "^$CONF:$n: .*$re" <<<"$err"; then
			pass "$cmd refuses: $err"
		else
			fail "$cmd of a config with $re at line $n (exit $rc, stderr: ${err:-<empty>})"
		fi
	done
}
# (reload before any start: nothing may be attached by it)
broken 4 "unknown algorithm 'bpf_nosuch'" "attach bpf_nosuch"
broken 4 "no tunable 'nosuch'" "attach bpf_dctcp --set nosuch=1"
broken 4 "tunable shift_g: 'x' is not" "attach bpf_dctcp --set shift_g=x"
broken 4 "'detach' is not a directive" "detach bpf_dctcp"
broken 4 "bpf_bbr is attached by line 3 already" "attach bpf_bbr --default"
broken 5 "two defaults" "attach bpf_dctcp --default" "attach bpf_tldct --default"
broken 4 "no device 'ccs-nodev0'" "attach bpf_flashpass --tc flashpass-sender=ccs-nodev0"
broken 4 "--obj is not for the config" "attach --obj $TOPO_ROOT/build/bpf/dctcp.bpf.o"
broken 4 "'--sett' is not an option of attach" "attach bpf_dctcp --sett shift_g=5"
broken 4 "'--set' is not an option of attach, or lacks its value" "attach bpf_dctcp --set"
broken 4 "'--help' is not for a config line" "attach bpf_dctcp --help"
broken 4 "attach wants one algorithm" "attach"
broken 4 "attach wants one algorithm" "attach bpf_dctcp bpf_tldct"
check "nothing was attached by them" bash -c "! grep -qw -e bpf_bbr -e bpf_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control"
check "and no state was written" [ ! -e "$STATE" ]

echo "start"
conf "attach bpf_dctcp --set shift_g=5 --default   # the default" "attach bpf_bbr"
check "it exits 0" svc start "$CONF"
check "both are registered" bash -c "cc_ok() { grep -qw \$1 /proc/sys/net/ipv4/tcp_available_congestion_control; }; cc_ok bpf_dctcp && cc_ok bpf_bbr"
check "bpf_dctcp is the default" [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = bpf_dctcp ]
check "shift_g is 5 (its default is 4)" shift_g_is 5
dctcp0=$(cc_map_id bpf_dctcp) bbr0=$(cc_map_id bpf_bbr)
out=$("$CCLOAD" service start "$CONF" 2>&1)
check "start again is a reload with nothing to do: both unchanged" [ "$(grep -c ': unchanged' <<<"$out")" = 2 ]

echo "reload with one tunable changed, a connection open on the other"
ip netns add "$NS" && ip -n "$NS" link set lo up || { fail "cannot make namespace $NS"; exit 1; }
ip netns exec "$NS" "$TCPXFER" server -C bpf_bbr -p 5499 -n 1 >"$TMP/srv.json" 2>/dev/null &
SRV=$!
for ((i = 0; i < 50; i++)); do
	ip netns exec "$NS" ss -ltnH 'sport = :5499' | grep -q . && break
	sleep 0.1
done
secs=5
[ -n "${CCSUITE_VM:-}" ] && secs=15	# (reload takes seconds under TCG)
ip netns exec "$NS" "$TCPXFER" client -c 127.0.0.1 -p 5499 -C bpf_bbr -t $secs >"$TMP/cli.json" 2>"$TMP/cli.err" &
cli=$!
for ((i = 0; i < 50; i++)); do
	[ "$(ccstat bpf_bbr flows_init)" -ge 2 ] 2>/dev/null && break
	sleep 0.1
done
init0=$(ccstat bpf_bbr flows_init)
conf "attach bpf_dctcp --set shift_g=6 --default" "attach bpf_bbr"
check "it exits 0" svc reload "$CONF"
check "the connection on bpf_bbr was open across it" kill -0 $cli
check "bpf_dctcp was registered again (map id $dctcp0 -> $(cc_map_id bpf_dctcp))" [ "$(cc_map_id bpf_dctcp)" != "$dctcp0" ]
check "bpf_bbr's registration is the same (map id $bbr0)" [ "$(cc_map_id bpf_bbr)" = "$bbr0" ]
check "shift_g is 6" shift_g_is 6
check "bpf_dctcp is still the default (the new registration: the sysctl names it again)" \
	[ "$(sysctl -n net.ipv4.tcp_congestion_control)" = bpf_dctcp ]
wait $cli
rc=$?
check "the connection finished (exit $rc: $(head -c 200 "$TMP/cli.err"))" [ $rc = 0 ]
check_reports "it moved its bytes intact, on bpf_bbr" 1 '.cc == "bpf_bbr" and .pattern_ok and .bytes == .received and .bytes > 0' "$TMP/cli.json"
check "bpf_bbr's counters were kept (flows_init $init0 -> $(ccstat bpf_bbr flows_init))" \
	[ "$(ccstat bpf_bbr flows_init)" -ge "$init0" ]
wait "$SRV" 2>/dev/null
SRV=""

echo "reload with a broken config"
cp "$STATE" "$TMP/state0"
dctcp1=$(cc_map_id bpf_dctcp)
conf "attach bpf_dctcp --set shift_g=7 --default" "attach bpf_bbr --set nosuch=1"
check_fails "it fails, at line 4" "^$CONF:4: bpf_bbr has no tunable 'nosuch'" svc reload "$CONF"
check "nothing changed: bpf_dctcp's registration and shift_g, bpf_bbr's, the state" bash -c \
	"[ '$(cc_map_id bpf_dctcp)' = '$dctcp1' ] && [ '$(cc_map_id bpf_bbr)' = '$bbr0' ] && cmp -s '$STATE' '$TMP/state0'"
check "shift_g is still 6" shift_g_is 6

echo "a registration replaced by hand is attached again"
"$CCLOAD" -q attach bpf_bbr >/dev/null 2>&1
bbr1=$(cc_map_id bpf_bbr)
conf "attach bpf_dctcp --set shift_g=6 --default" "attach bpf_bbr"
out=$("$CCLOAD" service reload "$CONF" 2>&1)
check "reload exits 0, bpf_dctcp unchanged, bpf_bbr not" bash -c "grep -q 'bpf_dctcp: unchanged' <<<'$out' && ! grep -q 'bpf_bbr: unchanged' <<<'$out'"
check "bpf_bbr is the service's registration again (map id $bbr0, by hand $bbr1, now $(cc_map_id bpf_bbr))" \
	bash -c "[ '$(cc_map_id bpf_bbr)' != '$bbr1' ] && [ -n '$(cc_map_id bpf_bbr)' ]"

echo "the default moves to another line, then the line goes"
conf "attach bpf_dctcp --set shift_g=6" "attach bpf_bbr --default"
check "reload exits 0" svc reload "$CONF"
check "bpf_bbr is the default" [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = bpf_bbr ]
conf "attach bpf_dctcp --set shift_g=6"
check "reload exits 0" svc reload "$CONF"
check "bpf_bbr is detached" bash -c "! grep -qw bpf_bbr /proc/sys/net/ipv4/tcp_available_congestion_control"
check "the default is $DEF0 again" [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$DEF0" ]
dctcp2=$(cc_map_id bpf_dctcp)

echo "killed part way through a reload, then stop"
conf "attach bpf_dctcp --set shift_g=6" "attach bpf_bbr"
CCLOAD_FAULT=pinned "$CCLOAD" -q service reload "$CONF" >/dev/null 2>&1
check "the state names bpf_bbr, whose attach was killed (recorded first)" grep -qx 'attach bpf_bbr' "$STATE"
check "bpf_dctcp is untouched (map id $dctcp2)" [ "$(cc_map_id bpf_dctcp)" = "$dctcp2" ]
check "stop exits 0" svc stop
check "nothing of ours is registered" bash -c "! grep -qw -e bpf_dctcp -e bpf_bbr /proc/sys/net/ipv4/tcp_available_congestion_control"
check "the default is $DEF0" [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$DEF0" ]
check "the state is gone" [ ! -e "$STATE" ]
check "stop again exits 0 (nothing to stop)" svc stop

echo "the units"
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze verify: no systemd-analyze on this machine"
else
	# the units name /usr/sbin/ccload and man:ccload(8), which verify wants
	# to exist: this build's
	mkdir -p "$TMP/units" "$TMP/man/man8"
	for u in "$TOPO_ROOT"/loader/service/*.service "$TOPO_ROOT"/loader/service/*.timer; do
		sed "s|/usr/sbin/ccload|$CCLOAD|g" "$u" >"$TMP/units/${u##*/}"
	done
	make -s -C "$TOPO_ROOT" man >/dev/null && cp "$TOPO_ROOT/build/ccload.8" "$TMP/man/man8/"
	out=$(cd "$TMP/units" && MANPATH=$TMP/man SYSTEMD_LOG_LEVEL=notice systemd-analyze verify ./*.service ./*.timer 2>&1)
	rc=$?
	check "systemd-analyze verify passes ccsuite.service, ccsuite-flashpass.service, ccsuite-prom.service and .timer (exit $rc: ${out:-no message})" [ $rc = 0 ]
fi
