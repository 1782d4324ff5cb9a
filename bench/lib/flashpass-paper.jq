# bench/flashpass-paper's table (flashpass.json): the static runs, the
# data crash and the buffer sweep, with what the paper reports.
# Input: bench/lib/experiment.sh's {scenarios: {name: result.json}}.
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
# the rate and the buffer as bench/run parsed them (build/units)
def env_num($k): .env[$k] // error("\(.scenario): no env.\($k) in its result.json (an older bench/run's): run it again");
def rate_bps: env_num("rate_bps");
def buffer_bytes: env_num("buffer_bytes");
# one CC of one run: what the tables show
def cc($r): . as $s | {
	runs: $s.runs,
	utilization: (if $s.goodput_mbps then $s.goodput_mbps * 1e6 / ($r | rate_bps) | r3 else null end),
	goodput_mbps: $s.goodput_mbps,
	class0_drops: $s.class0_drops, class0_drop_rate: $s.class0_drop_rate,
	retrans: $s.retrans, jain: $s.jain, max_backlog: $s.max_backlog, rtt_p50_ms: $s.rtt_p50_ms,
	cpu_busy: $s.cpu_busy, cpu_softirq: $s.cpu_softirq };
def algos($r): $r.summary | with_entries(.value |= cc($r));
.scenarios as $S
| {
	kernel: ([$S[]][0].env.kernel // null), date: (now | todate),
	paper: {
		static_20: { flashpass: { utilization: 0.91, loss: 0 }, cubic: { utilization: 0.64, loss: 0.017 } },
		crash: "Figure 4: without calibration the second flow's data lands on the first's, a queue of about dRTT x line rate; with it, a few packets" },
	static: ([$S | to_entries[] | select(.key | startswith("flashpass-static")) | .value as $r | {
		scenario: .key, description: $r.description, rate: $r.env.rate, buffer: $r.env.buffer,
		buffer_bdp: (($r | buffer_bytes) / (($r | rate_bps) / 8 * $r.env.base_rtt_ms / 1000) | r3),
		base_rtt_ms: $r.env.base_rtt_ms, algos: algos($r) }] | sort_by(.scenario) | reverse),
	# every run's peaks (the summary keeps only the largest), and what
	# share of its credits the flows could not spend
	crash: ([$S | to_entries[] | select(.key | startswith("flashpass-crash")) | .value as $r |
		($r.runs | map(select(.algo == "bpf_flashpass"))) as $runs | {
		key: (.key | ltrimstr("flashpass-crash-")),
		value: { description: $r.description, max_backlog: $r.summary.bpf_flashpass.max_backlog,
			runs: ($runs | length),
			peaks: ($runs | map(.switch.max_backlog)),
			class0_peaks: ($runs | map(.switch.class_max_backlog[0] // null)),
			class1_peaks: ($runs | map(.switch.class_max_backlog[1] // null)),
			credits_wasted: ($runs | map(.cc_stats.bpf_flashpass // null | if . == null or .credits == 0 then null
				else .credits_wasted / .credits | r3 end)),
			class0_drops: $r.summary.bpf_flashpass.class0_drops,
			goodput_mbps: $r.summary.bpf_flashpass.goodput_mbps,
			goodput_spread_mbps: $r.summary.bpf_flashpass.goodput_spread_mbps,
			# what a crash would pile up: the RTT difference (20 ms) at half the line rate
			crash_estimate_bytes: (0.020 * ($r | rate_bps) / 8 / 2 | floor) } }] | from_entries),
	# the pacer as it is, with --no-settle and with --jitter 0, cubic beside
	control: ([$S | to_entries[] | select(.key | startswith("flashpass-control-")) | .value as $r |
		($r.runs | map(select(.algo == "bpf_flashpass"))) as $runs | {
		scenario: $r.scenario, description: $r.description,
		pacer: ($r.env.flashpass_pacer // "default"), algos: algos($r),
		credits_wasted: ($runs | map(.cc_stats.bpf_flashpass // null | if . == null or .credits == 0
			then null else .credits_wasted / .credits | r3 end)) }] | sort_by([.scenario, .pacer])),
	# how credits reach segments: releases, credits as ACKs, and the loop
	# in the kernel (bench/flashpass-paper loop), cubic beside each
	loop: ([$S | to_entries[] | select(.key | startswith("flashpass-loop-")) | .value as $r | {
		scenario: $r.scenario, description: $r.description,
		mode: (.key | sub("^.*-"; "")), pacer: ($r.env.flashpass_pacer // ""),
		algos: algos($r) }] | sort_by([.scenario, .mode])),
	sweep: ([$S | to_entries[] | select(.key | startswith("flashpass-sweep")) | .value as $r | {
		buffer: $r.env.buffer, buffer_bytes: ($r | buffer_bytes),
		buffer_bdp: (($r | buffer_bytes) / (($r | rate_bps) / 8 * $r.env.base_rtt_ms / 1000) | r3),
		algos: algos($r) }] | sort_by(.buffer_bytes))
}
