# shellcheck shell=bash
# Helpers for the integration tests: checks that record PASS/FAIL/SKIP lines
# in $RESULTS (test/net/run tallies them) and read JSON fields.
source "$(dirname "${BASH_SOURCE[0]}")/topo.sh"

RESULTS=${RESULTS:-/dev/null}
TCPXFER=${TCPXFER:-$TOPO_ROOT/build/tcpxfer}
T=$(basename "$0" .sh)

pass() { printf '  ok    %s\n' "$*"; echo "PASS $T: $*" >>"$RESULTS"; }
fail() { printf '  FAIL  %s\n' "$*"; echo "FAIL $T: $*" >>"$RESULTS"; }
# skip WHAT: WHY: a check this kernel or machine cannot make (say which and
# why); never for a check that ran and failed.
skip() { printf '  skip  %s\n' "$*"; echo "SKIP $T: $*" >>"$RESULTS"; }

# check DESC cmd...: passes when the command succeeds (its output is not
# shown: the description says what was checked).
check() {
	local desc=$1
	shift
	if "$@" >/dev/null; then pass "$desc"; else fail "$desc"; fi
}

# is_number V: V is a decimal number (sign, fraction, exponent allowed);
# not empty, "null", "nan", "inf" or text around a number.
is_number() { [[ $1 =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; }

# check_range DESC VALUE LO HI: LO <= VALUE <= HI (numbers, may be
# fractions).  A VALUE that is not a number fails: a missing JSON field
# (null) or a parse that found nothing is no measurement.
check_range() {
	local desc=$1 v=$2 lo=$3 hi=$4
	if ! is_number "$v"; then
		fail "$desc: '${v}' is not a number (bounds [$lo, $hi])"
	elif awk -v v="$v" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(v + 0 >= lo + 0 && v + 0 <= hi + 0) }'; then
		pass "$desc: $v in [$lo, $hi]"
	else
		fail "$desc: $v not in [$lo, $hi]"
	fi
}

# check_reports DESC N PRED FILE...: the FILEs hold N JSON reports in all
# (a client that died wrote none, and all() of nothing is true), and the
# jq expression PRED holds for each.
check_reports() {
	local desc=$1 n=$2 pred=$3 got
	shift 3
	got=$(cat -- "$@" 2>/dev/null | jq -s length 2>/dev/null)
	if [ "$got" != "$n" ]; then
		fail "$desc: ${got:-unreadable} of $n reports"
	else
		check "$desc ($n reports)" jq -s -e "all($pred)" "$@"
	fi
}

# check_fails DESC EXPECTED_STDERR_REGEX cmd...: exits non-zero, says why.
check_fails() {
	local desc=$1 re=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && grep -Eq -- "$re" <<<"$err"; then
		pass "$desc (exit $rc: $(head -n1 <<<"$err"))"
	else
		fail "$desc (exit $rc, stderr: ${err:-<empty>})"
	fi
}

cc_available() { tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx "$1"; }

# ccstat ALGO NAME: one counter from ccload stats --json.
ccstat() { "$CCLOAD" -q stats "$1" --json | jq -r ".\"$1\".$2"; }

# struct_ops map id of a registered CC (from ccload list).
cc_map_id() { "$CCLOAD" -q list | awk -v n="$1" '$1 == n { getline; if ($1 == "registered") { gsub(/[^0-9]/, "", $5); print $5 } }'; }

jfield() { jq -r "$2" <<<"$1"; }

# descendant PID NAME: PID, or the first of its descendants, whose command
# is NAME: a process this test started, where a search by name would also
# find other runs' (ip netns exec shares the host's PID namespace).
descendant() {
	local c
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && { echo "$1"; return 0; }
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		descendant "$c" "$2" && return 0
	done
	return 1
}

# run_procs ID: the processes started under the topology run ID (topo_init
# exports TOPO_ID; every process of the run has it in its environment).
run_procs() { grep -lsz "^TOPO_ID=$1" /proc/[0-9]*/environ | cut -d/ -f3; }

# test_net [CC...]: the test's scratch directory ($TMP) and network
# (topo_init); on exit the network goes (topo_cleanup), each CC is
# detached (a run that failed half-way leaves none registered) and $TMP
# is removed.
test_net() {
	TMP=$(mktemp -d)
	TEST_DETACH=("$@")
	topo_init
	trap _test_net_end EXIT
}
# flashpass_net N: the network of bpf_flashpass's tests: s1..sN -> r,
# the switch with the emulation queue and a 30 KB buffer -> d, every link
# at $RATE, 20 ms back on a return link of each sender's own (that of
# bench/scenarios/flashpass-static-1.conf); CC=bpf_flashpass, detached on
# exit (test_net).
flashpass_net() {
	local i delays="" access=""
	CC=bpf_flashpass
	test_net $CC
	topo_flashpass_switch
	for ((i = 0; i < $1; i++)); do
		delays+=${delays:+,}r20 access+=${access:+,}$RATE
	done
	topo_dumbbell "$1" "$RATE" 30kb 0 "$delays" "$access"
}
_test_net_end() {
	local a
	topo_cleanup
	for a in ${TEST_DETACH[@]+"${TEST_DETACH[@]}"}; do
		"$CCLOAD" -q detach "$a" >/dev/null 2>&1
	done
	rm -rf "$TMP"
}
