# shellcheck shell=bash
# Samplers for a run: the bottleneck's queue (ccload switch stats --interval),
# every TCP flow's cwnd, RTT and pacing rate (build/flowsample), and optionally a bpftrace
# script's events (bench/trace/), as JSON lines.

# sample_queue OUT_FILE INTERVAL_MS [BOTTLENECK_INDEX]
sample_queue() {
	local bn=${BN_LIST[${3:-0}]}
	"$CCLOAD" -q switch stats "${bn#*:}" -n "${bn%%:*}" --interval "$2" >"$1" &
	SAMPLER_PIDS+=($!)
}

# sample_flows NODE OUT_FILE INTERVAL_MS PORT_LO PORT_HI: established TCP
# sockets of NODE towards ports [LO, HI] (the run's receivers), what ss -ti
# shows, from build/flowsample (sock_diag, one process for the run).
sample_flows() {
	topo_spawn "$1" "$ROOT/build/flowsample" "$1" "$3" "$4" "$5" >"$2" 2>"$2.err"
	SAMPLER_PIDS+=($!)
}

# sample_trace OUT_FILE SCRIPT: bench/trace/SCRIPT.bt's output, from a
# private mount namespace with tracefs (the host's mounts stay as they are).
# Returns once the probes are attached (bpftrace takes seconds to start).
sample_trace() {
	local out=$1 i
	unshare -m sh -c 'mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs nodev /sys/kernel/tracing && exec bpftrace "$0"' \
		"$ROOT/bench/trace/$2.bt" >"$out" 2>"$out.err" &
	SAMPLER_PIDS+=($!)
	for ((i = 0; i < 150; i++)); do
		grep -qs '^Attaching' "$out" && return 0
		kill -0 "${SAMPLER_PIDS[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# trace_unsupported: why bench/trace/*.bt cannot run on this kernel (one
# line, status 0), or nothing and status 1 when they can.  They reach the
# socket through tcp:tcp_probe's skaddr field, which older kernels (6.1)
# do not have.
trace_unsupported() {
	local fmt
	fmt=$(unshare -m sh -c 'mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs nodev /sys/kernel/tracing &&
		cat /sys/kernel/tracing/events/tcp/tcp_probe/format' 2>/dev/null)
	if [ -z "$fmt" ]; then
		echo "no tracefs or no tcp:tcp_probe tracepoint in kernel $(uname -r)"
	elif ! grep -q 'skaddr;' <<<"$fmt"; then
		echo "tcp:tcp_probe has no skaddr field in kernel $(uname -r) (the scripts read the socket through it)"
	else
		return 1
	fi
}

stop_samplers() {
	local p
	for p in "${SAMPLER_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${SAMPLER_PIDS[@]}"; do
		topo_stop "$p"	# (again, and KILL after 5 s: bpftrace)
	done
	SAMPLER_PIDS=()
}
