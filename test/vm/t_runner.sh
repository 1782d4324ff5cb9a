#!/usr/bin/env bash
# Tests of test/vm/run itself, booting the pinned Debian 6.1 kernel
# (test/vm/kernel.sh) a few times, one check per line ("ok - ..." or
# "not ok - ..."), then "runner: N passed, N failed"; non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

KERNEL=$(test/vm/kernel.sh) || { echo "not ok - test/vm/kernel.sh gives the kernel"; echo "runner: 0 passed, 1 failed"; exit 1; }
OUT=$(mktemp -d)
RUNNER=$PWD/test/vm/run
trap 'rm -rf "$OUT"' EXIT
passed=0 failed=0

ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# vm NAME [runner options] -- COMMAND...: run it (time limit 120 s unless
# given; a guest that hangs while booting, a rare emulator hiccup under
# TCG, boots once more); its stdout, stderr, exit status and wall time go
# to $OUT/NAME.{out,err,rc,time}.
vm() {
	local name=$1 rc=0 start=$SECONDS
	shift
	"$RUNNER" --kernel "$KERNEL" --timeout 120 --boot-tries 2 "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
	echo $rc >"$OUT/$name.rc"
	echo $((SECONDS - start)) >"$OUT/$name.time"
}
# rc_is NAME STATUS; on a mismatch, NAME's stderr (the runner's diagnosis).
rc_is() {
	[ "$(cat "$OUT/$1.rc")" = "$2" ] && return 0
	echo "# $1: exit $(cat "$OUT/$1.rc"), not $2; its stderr:"
	tail -n 40 "$OUT/$1.err" | sed 's/^/#   /'
	return 1
}
not() { ! "$@" >/dev/null; }
took() { echo "$(cat "$OUT/$1.time") s"; }
# line NAME N: line N of NAME's stdout.
line() { sed -n "$2p" "$OUT/$1.out"; }

# One boot for what a passing command sees and sends back.
# shellcheck disable=SC2016  # a literal $ is the point
args=("a  b" "it's" '$HOME' '"q"' '' '*')
vm basic -- bash -c '
	printf "[%s]" "$@"; echo
	pwd
	echo to-stderr >&2
	seq 100000 | md5sum
	uname -r
	stat -f -c %T /tmp /sys/fs/bpf /sys/fs/cgroup /sys/fs/cgroup/unified /sys/kernel/tracing | xargs
	' _ "${args[@]}"
check "exit 0 gives 0 ($(took basic))" rc_is basic 0
check "arguments arrive exactly (spaces, quotes, \$, *, empty)" \
	[ "$(line basic 1)" = "$(printf '[%s]' "${args[@]}")" ]
check "the command runs in the host's working directory" [ "$(line basic 2)" = "$PWD" ]
check "stderr reaches the host's stderr" grep -qx to-stderr "$OUT/basic.err"
check "... and not its stdout" not grep to-stderr "$OUT/basic.out"
check "100000 lines of stdout arrive complete" [ "$(line basic 3)" = "$(seq 100000 | md5sum)" ]
check "the guest runs the 6.1 kernel ($(line basic 4))" [ "$(line basic 4)" = "${KERNEL##*/vmlinuz-}" ]
check "tmpfs /tmp, bpffs, cgroup2 at /sys/fs/cgroup{,/unified}, tracefs" \
	[ "$(line basic 5)" = "tmpfs bpf_fs cgroup2fs cgroup2fs tracefs" ]

# A working directory under /tmp (a CI clone there) is there in the guest,
# over its tmpfs /tmp, which stays writable.
CWD=$(mktemp -d)
echo in-tmp >"$CWD/f"
(cd "$CWD" && vm tmpcwd -- sh -c 'pwd; cat f; touch /tmp/w && echo writable')
check "a working directory under /tmp: there, and /tmp writable ($(took tmpcwd))" \
	[ "$(tr '\n' ' ' <"$OUT/tmpcwd.out")" = "$CWD in-tmp writable " ]
rm -rf "$CWD"

vm exit1 -- false
check "exit 1 gives 1 ($(took exit1))" rc_is exit1 1
vm exit7 -- sh -c 'exit 7'
check "exit 7 gives 7 ($(took exit7))" rc_is exit7 7

vm panic -- sh -c 'echo c >/proc/sysrq-trigger'
check "a kernel panic gives 120, no status ($(took panic))" rc_is panic 120
check "the panic's console lines are shown" grep -q 'Kernel panic' "$OUT/panic.err"

vm warn -- sh -c 'echo "WARNING: injected by t_runner" >/dev/kmsg'
check "a WARNING on the console fails a command that exited 0: 121 ($(took warn))" rc_is warn 121
check "the offending console line is shown" grep -q 'WARNING: injected by t_runner' "$OUT/warn.err"

vm hang --timeout 20 -- sleep 1000
check "a hung guest is killed at --timeout 20: 124 ($(took hang))" rc_is hang 124
check "... in time" [ "$(cat "$OUT/hang.time")" -le 30 ]

# A boot (about 6 s) longer than the limit: killed before the command ran,
# as often as --boot-tries says.
vm boot --timeout 2 --boot-tries 1 -- true
check "a guest killed while booting gives 123, not 124" rc_is boot 123
vm boot2 --timeout 2 -- true
check "--boot-tries 2 (the default here): 123 too" rc_is boot2 123
check "... after booting twice" [ "$(grep -c 'booting again' "$OUT/boot2.err")" = 1 ]

# qemu dying of a signal while the guest boots (as Debian's 7.2 does now
# and then under TCG) is booted again: SIGSEGV to this run's own qemu.
descendants() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}
# qemu_of PID: "QPID START" of each qemu under PID, START (/proc/QPID/stat
# field 22) telling it from a later process that got the same PID.
qemu_of() {
	local p st
	for p in $(descendants "$1"); do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = qemu-system-x86 ] || continue
		st=$(cat /proc/"$p"/stat 2>/dev/null) || continue
		st=${st##*) }	# the fields after "pid (comm) ", from field 3 on
		echo "$p $(awk '{ print $20 }' <<<"$st")"
	done
}
# ended "QPID START": one was found, and that process is gone (or a
# zombie, which has ended).
ended() {
	local pid start st
	read -r pid start <<<"$1"
	[ -n "$start" ] || return 1
	st=$(cat /proc/"$pid"/stat 2>/dev/null) || return 0
	st=${st##*) }
	awk -v start="$start" '{ exit !($1 == "Z" || $20 != start) }' <<<"$st"
}
crash_at_boot() {
	local tmp=$OUT/crash runner p rc=0
	mkdir "$tmp"
	TMPDIR=$tmp "$RUNNER" --kernel "$KERNEL" --timeout 120 --boot-tries 2 -- true \
		>/dev/null 2>"$OUT/crash.err" &
	runner=$!
	for _ in $(seq 60); do
		[ -s "$(find "$tmp" -name console 2>/dev/null | head -n1)" ] && break
		sleep 0.2
	done
	for p in $(descendants $runner); do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = qemu-system-x86 ] && kill -SEGV "$p"
	done
	wait $runner || rc=$?
	echo $rc
}
rc=$(crash_at_boot)
check "qemu killed by SIGSEGV while booting: booted again, the command's 0 ($rc)" [ "$rc" = 0 ]
check "... saying so" grep -q 'qemu died (signal 11) while the guest booted (try 1 of 2): booting again' \
	"$OUT/crash.err"

CCSUITE_VM_HOLD_POWEROFF=1 CCSUITE_VM_POWEROFF_GRACE=3 vm nopoweroff -- sh -c 'exit 5'
check "a guest that does not power off after the command: killed, its status kept: 5 ($(took nopoweroff))" \
	rc_is nopoweroff 5
check "... with a warning" grep -q 'did not power off' "$OUT/nopoweroff.err"

# kill_mid_run SIGNAL: start a run whose guest sleeps, send the runner
# SIGNAL once qemu writes its console, and check what is left behind.
kill_mid_run() {
	local sig=$1 tmp=$OUT/$1 runner rc=0 qemu
	mkdir "$tmp"
	TMPDIR=$tmp test/vm/run --kernel "$KERNEL" -- sleep 1000 >/dev/null 2>&1 &
	runner=$!
	for _ in $(seq 60); do
		[ -s "$(find "$tmp" -name console 2>/dev/null | head -n1)" ] && break
		sleep 0.5
	done
	qemu=$(qemu_of $runner)	# this run's, by PID: not another run's qemu
	kill -"$sig" $runner
	wait $runner 2>/dev/null || rc=$?
	sleep 1
	check "SIG$sig stops the runner ($rc)" [ $rc = $((128 + $(kill -l "$sig"))) ]
	check "... and its qemu, pid ${qemu%% *}" ended "$qemu"
}
kill_mid_run TERM
check "... and the run's temporary files" [ -z "$(ls -A "$OUT/TERM")" ]
kill_mid_run KILL

echo "runner: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
