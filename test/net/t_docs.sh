#!/usr/bin/env bash
# The command blocks of README.md and docs/*.md that say they run
# (<!-- runs -->, docs/blocks.sh), run as a reader would: line by line in
# order, from the top of the tree, as root.  A line ending in & runs in
# the background until its block ends; a --watch line runs for 3 s.  A
# block that uses an algorithm it does not attach itself runs after the
# block above it would have attached it: the test attaches it first.
# Everything a block attached is detached after it.  tcpxfer runs in a
# network namespace of its own, so its port is free and its loopback
# traffic touches nothing else.
source "$(dirname "$0")/lib.sh"
cd "$TOPO_ROOT" || exit 1
# shellcheck source=docs/blocks.sh
source docs/blocks.sh

NS=ccs-docs-$$
bg=()
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -f "$TMP_OUT"
}
TMP_OUT=$(mktemp)
trap cleanup EXIT
ip netns add "$NS" && ip -n "$NS" link set lo up || { fail "a network namespace for tcpxfer"; exit 1; }

# run_line WHERE LINE: one line of a block; fails the check unless it
# exits 0 (a --watch line: still running after 3 s)
run_line() {
	local where=$1 line=$2 cmd back=0 secs=60 want=0 rc
	cmd=${line%%#*}
	cmd=${cmd%"${cmd##*[![:space:]]}"}
	[ -n "$cmd" ] || return 0
	if [[ $cmd == *"&" ]]; then
		back=1 cmd=${cmd%&}
	fi
	[[ $cmd == *--watch* ]] && secs=3 want=124
	[[ $cmd == *build/tcpxfer* ]] && cmd="ip netns exec $NS $cmd"
	if [ $back = 1 ]; then
		bash -c "exec $cmd" </dev/null >/dev/null 2>&1 &
		bg+=($!)
		sleep 0.5
		check "$where: $cmd & (still running)" kill -0 "${bg[-1]}"
		return
	fi
	timeout "$secs" bash -c "$cmd" </dev/null >"$TMP_OUT" 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		pass "$where: $cmd"
	else
		fail "$where: $cmd (exit $rc, want $want): $(tail -n 3 "$TMP_OUT" | tr '\n' ' ')"
	fi
}

blocks=0
for doc in README.md docs/*.md; do
	fences=$(doc_blocks "$doc" | awk -F'\t' '$2 == "runs" { print $1 }' | sort -un)
	for fence in $fences; do
		blocks=$((blocks + 1))
		lines=$(doc_blocks "$doc" | awk -F'\t' -v f="$fence" '$1 == f { print $3 "\t" $4 }')
		ccs=$(cut -f2 <<<"$lines" | grep -o 'bpf_[a-z0-9_]*' | sort -u)
		echo "$doc:$fence"
		busy=""
		for cc in $ccs; do cc_available "$cc" && busy="$busy $cc"; done
		if [ -n "$busy" ]; then
			skip "$doc:$fence: registered before the test (not ours to detach):$busy"
			continue
		fi
		for cc in $ccs; do
			grep -qE "build/ccload (-q )?attach $cc( |$)" <<<"$lines" ||
				check "$doc:$fence: $cc attached first (the block above attaches it)" "$CCLOAD" -q attach "$cc"
		done
		while IFS=$'\t' read -r n line; do
			run_line "$doc:$n" "$line"
		done <<<"$lines"
		for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
		wait 2>/dev/null
		bg=()
		for cc in $ccs; do
			if cc_available "$cc"; then "$CCLOAD" -q detach "$cc" >/dev/null; fi
			check "$doc:$fence: $cc is not registered after the block" bash -c "! grep -qw $cc /proc/sys/net/ipv4/tcp_available_congestion_control"
		done
	done
done
check_range "blocks marked <!-- runs --> found and run" "$blocks" 4 1000
