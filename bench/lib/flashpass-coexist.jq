# bench/flashpass-paper coexist's table (coexist.json): bpf_flashpass and
# cubic on one bottleneck, per buffer size: each side's share and what the
# switch dropped of each (class 2: bpf_flashpass's scheduled data, 1: its
# unscheduled data, 0: cubic's), with the switch's emulation yielding to
# cubic (fp_emu_keep, ccload switch --emu-keep) or not.
# Input: bench/lib/experiment.sh's {scenarios: {name: result.json}}.
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def mean: if length == 0 then null else add / length end;
def sd: if length < 2 then null else mean as $m
	| (map((. - $m) * (. - $m)) | add / (length - 1) | sqrt) end;
def spread: map(select(. != null)) | { mean: (mean | r3), sd: (sd | r3), runs: map(r3) };
# The value of KEY=VALUE in a scenario file's text (the last), or null.
def setting($key): split("\n") | map(select(startswith($key + "=")) | .[($key | length) + 1:]) | last;
# a class's drops over its frames, of one run
def rate($c): (.switch.class_dropped[$c] // 0) as $d
	| $d / ([$d + (.switch.class_pkts[$c] // 0), 1] | max);
.scenarios as $S
| {
	kernel: ([$S[]][0].env.kernel // null), cpus: ([$S[]][0].env.cpus // null),
	# when the last of its runs was made (the runs, not this table)
	date: ([$S[].env.date // empty] | max // (now | todate)),
	coexist: ([$S | to_entries[] | select(.key | startswith("flashpass-coexist-")) | .value as $r | {
		scenario: .key, description: $r.description, rate_bps: $r.env.rate_bps,
		# the % of its rate the emulation keeps when it yields, or null
		keep_pct: ($r.env.scenario_file | setting("fp_emu_keep") | if . == null or . == "" then null else tonumber end),
		buffer_bytes: $r.env.buffer_bytes,
		buffer_bdp: ($r.env.buffer_bytes / ($r.env.rate_bps / 8 * $r.env.base_rtt_ms / 1000) | r3),
		runs: ($r.runs | length),
		share: ($r.runs | [.[0].shares // {} | keys[]] as $k
			| [$k[] as $c | { key: $c, value: (map(.shares[$c]) | spread) }] | from_entries),
		utilization: ($r.runs | map(.goodput_fraction) | spread),
		scheduled_drops: ($r.runs | map(.switch.class_dropped[2] // 0) | add),
		scheduled_drop_rate: ($r.runs | map(rate(2)) | spread),
		unscheduled_drops: ($r.runs | map(.switch.class_dropped[1] // 0) | add),
		cubic_drops: ($r.runs | map(.switch.class_dropped[0] // 0) | add),
		cubic_drop_rate: ($r.runs | map(rate(0)) | spread),
		credits_wasted: ($r.runs | map(.cc_stats.bpf_flashpass // null | if . == null or .credits == 0
			then null else .credits_wasted / .credits end) | spread),
		cpu_busy: ($r.runs | map(.cpu.busy) | spread) }] | sort_by([.keep_pct // 100, .buffer_bytes]))
}
