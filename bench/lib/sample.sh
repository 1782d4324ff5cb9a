# shellcheck shell=bash
# Samplers for a run: the bottleneck's queue (ccload switch stats --interval),
# every TCP flow's cwnd, RTT and pacing rate (ss), and optionally a bpftrace
# script's events (bench/trace/), as JSON lines.

# sample_queue OUT_FILE INTERVAL_MS [BOTTLENECK_INDEX]
sample_queue() {
	local bn=${BN_LIST[${3:-0}]}
	"$CCLOAD" -q switch stats "${bn#*:}" -n "${bn%%:*}" --interval "$2" >"$1" &
	SAMPLER_PIDS+=($!)
}

# sample_flows NODE OUT_FILE INTERVAL_MS PORT_LO PORT_HI: established TCP
# sockets of NODE towards ports [LO, HI] (the run's receivers).
sample_flows() {
	local node=$1 out=$2 ms=$3 lo=$4 hi=$5
	(
		t0=$(date +%s%N)
		while :; do
			now=$(date +%s%N)
			topo_exec "$node" ss -tinH state established "( dport >= :$lo and dport <= :$hi )" 2>/dev/null |
				awk -v t=$(((now - t0) / 1000000)) -v node="$node" '
				# ss prints a socket on one line, its details (-i) on the next
				/^[0-9]/ { flow = $(NF - 1) "-" $NF; next }
				{
					cc = $1; cwnd = ""; rtt = ""; pacing = 0; deliv = 0; acked = 0
					for (i = 1; i <= NF; i++) {
						if ($i ~ /^cwnd:/) { split($i, a, ":"); cwnd = a[2] }
						else if ($i ~ /^bytes_acked:/) { split($i, a, ":"); acked = a[2] }
						else if ($i ~ /^rtt:/) { split($i, a, "[:/]"); rtt = a[2] }
						else if ($i == "pacing_rate") pacing = $(i + 1)
						else if ($i == "delivery_rate") deliv = $(i + 1)
					}
					if (cwnd != "")
						printf "{\"t_ms\":%d,\"node\":\"%s\",\"flow\":\"%s\",\"cc\":\"%s\",\"cwnd\":%s,\"rtt_ms\":%s,\"pacing\":\"%s\",\"delivery\":\"%s\",\"acked\":%s}\n", t, node, flow, cc, cwnd, rtt, pacing, deliv, acked
				}'
			sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
		done
	) >"$out" 2>/dev/null &
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
		wait "$p" 2>/dev/null || true
	done
	SAMPLER_PIDS=()
}
