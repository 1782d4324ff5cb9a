#!/usr/bin/env bash
# An attach killed (SIGKILL) at each of its steps leaves a state that the
# next attach or detach puts right: bpf_tldct (a struct_ops map, maps to
# pin, two cgroup-root programs), replacing an earlier registration of
# itself, is killed after the verifier (nothing changed yet), after the
# old registration is gone and before the new one exists (the replace
# window: for that moment no bpf_tldct is registered), after the new
# registration (the old pins still there), after the old pins went, after
# the new ones, and after the cgroup programs.  After each: what is
# registered, then attach again gives one registration, its pins, and
# each cgroup program once; detach at the end leaves nothing.
source "$(dirname "$0")/lib.sh"

CC=bpf_tldct
PIN=/sys/fs/bpf/ccsuite/$CC
cleanup() { "$CCLOAD" -q detach "$CC" >/dev/null 2>&1; }
trap cleanup EXIT

# cgroup programs of bpf_tldct attached anywhere (bpftool's link list)
cg_links() { bpftool -j link show 2>/dev/null | jq '[.[] | select(.type == "cgroup")] | length'; }
tldct_progs() {
	bpftool -j prog show 2>/dev/null |
		jq '[.[] | select(.name == "tldct_sockops" or .name == "tldct_setsockopt")] | length'
}
registrations() { bpftool -j struct_ops show 2>/dev/null | jq --arg n "$CC" '[.[] | select(.name == "tldct" or .name == $n)] | length'; }

links0=$(cg_links)
check "attach $CC" "$CCLOAD" -q attach "$CC"
check_range "two cgroup links of its own" $(($(cg_links) - links0)) 2 2

for step in loaded unregistered registered unpinned pinned cgroup; do
	echo "killed at '$step'"
	CCLOAD_FAULT=$step "$CCLOAD" -q attach "$CC" >/dev/null 2>&1
	rc=$?
	check_range "ccload died by SIGKILL (exit 128 + 9)" "$rc" 137 137
	case $step in
	loaded) check "nothing changed: $CC still registered" cc_available "$CC" ;;
	unregistered) check "the replace window: no $CC registered" bash -c "! grep -qw $CC /proc/sys/net/ipv4/tcp_available_congestion_control" ;;
	*) check "$CC is registered" cc_available "$CC" ;;
	esac
	check "attach again" "$CCLOAD" -q attach "$CC"
	check_range "one registration" "$(registrations)" 1 1
	check "its maps pinned" test -e "$PIN/ops" -a -e "$PIN/stats" -a -e "$PIN/tldct_rx_tasks"
	check_range "each cgroup program attached once" $(($(cg_links) - links0)) 2 2
	check "ccload list agrees" bash -c "'$CCLOAD' -q list | grep -A1 '^$CC ' | grep -q 'registered (struct_ops map id'"
done

echo "killed at 'pinned', then detach instead of attach"
CCLOAD_FAULT=pinned "$CCLOAD" -q attach "$CC" >/dev/null 2>&1
check "detach" "$CCLOAD" -q detach "$CC"
check "not registered" bash -c "! grep -qw $CC /proc/sys/net/ipv4/tcp_available_congestion_control"
check "no pins" test ! -e "$PIN"
check_range "no cgroup link of it left" $(($(cg_links) - links0)) 0 0
check_range "no program of it left loaded (sockets may hold the CC's)" "$(tldct_progs)" 0 0
