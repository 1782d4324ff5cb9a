# bench/flashpass-paper dynamic's, rpc's and overprov's tables
# (dynamic.json, rpc.json, overprov.json): per load, path and CC, flow
# completion times and what the network did, over the runs (the runs
# flashpass-dynamic-PATH-LOAD, flashpass-rpc-PATH-LOAD or
# flashpass-overprov-PATH-VARIANT; .dynamic holds any kind).
# Input: bench/lib/experiment.sh's {scenarios: {name: result.json}}.
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def mean: if length == 0 then null else add / length end;
def sd: if length < 2 then null else mean as $m
	| (map((. - $m) * (. - $m)) | add / (length - 1) | sqrt) end;
# [values] of the runs -> {mean, sd, runs}
def spread: map(select(. != null)) | { mean: (mean | r3), sd: (sd | r3), runs: map(r3) };
# The value of KEY=VALUE in a scenario file's text, or null.
def setting($key): split("\n") | map(select(startswith($key + "=")) | .[($key | length) + 1:]) | last;
def cc($runs): {
	runs: ($runs | length),
	fct_ms: ($runs | map(.fct.all.mean_ms) | spread),
	fct_p99_ms: ($runs | map(.fct.all.p99_ms) | spread),
	small_ms: ($runs | map(.fct.small.mean_ms) | spread),
	small_p99_ms: ($runs | map(.fct.small.p99_ms) | spread),
	medium_ms: ($runs | map(.fct.medium.mean_ms) | spread),
	large_ms: ($runs | map(.fct.large.mean_ms) | spread),
	first_window_ms: ($runs | map(.fct.first_window.mean_ms) | spread),
	slowdown: ($runs | map(.fct.all.slowdown_mean) | spread),
	small_slowdown_p99: ($runs | map(.fct.small.slowdown_p99) | spread),
	flows: ($runs | map(.workload.flows) | add),
	small_flows: ($runs | map(.fct.small.n // 0) | add),
	first_window_flows: ($runs | map(.fct.first_window.n // 0) | add),
	# a flow not completed intact is in no FCT: counted here
	not_completed: ($runs | map(.workload | .failed + .corrupt + .unfinished + .unstarted + .skipped) | add),
	class0_drops: ($runs | map(.switch.class_dropped[0] // 0) | add),
	class1_drops: ($runs | map(.switch.class_dropped[1] // 0) | add),
	data_pkts: ($runs | map(.switch.class_pkts[0:2] | add // 0) | add),
	achieved_load: ($runs | map(.workload.achieved_load) | spread),
	cpu_busy: ($runs | map(.cpu.busy) | spread),
	credits_wasted: ($runs | map(.cc_stats.bpf_flashpass // null | if . == null or .credits == 0 then null
		else .credits_wasted / .credits end) | spread),
	# the emulation queues that saw emulation packets, added up: the
	# packets they passed in Mbit/s a queue over the run, and as a share
	# of their rate; the over-provisioned ones passed and dropped, the
	# normal ones dropped
	emu_mbps: ($runs | map(.elapsed_s as $t | .switch.emulation_sum // null
		| if . == null or ($t // 0) <= 0 then null
		else (.normal.pkts + .over_provisioned.pkts) * 84 * 8 / $t / .queues / 1e6 end) | spread),
	emu_share: ($runs | map(.elapsed_s as $t | .switch.emulation_sum // null
		| if . == null or ($t // 0) <= 0 or .rate_bps == 0 then null
		else (.normal.pkts + .over_provisioned.pkts) * 84 * 8 / $t / .rate_bps end) | spread),
	emu_over_pkts: ($runs | map(.switch.emulation_sum.over_provisioned.pkts // null)
		| if all(. == null) then null else map(. // 0) | add end),
	emu_over_dropped: ($runs | map(.switch.emulation_sum.over_provisioned.dropped // null)
		| if all(. == null) then null else map(. // 0) | add end),
	emu_normal_dropped: ($runs | map(.switch.emulation_sum.normal.dropped // null)
		| if all(. == null) then null else map(. // 0) | add end),
	# flows of the CC that ran out of credits and on as Reno
	fallbacks: ($runs | map(.cc_stats.bpf_flashpass.fallbacks // null) | if all(. == null) then null
		else map(. // 0) | add end) };
.scenarios as $S
| {
	kernel: ([$S[]][0].env.kernel // null), cpus: ([$S[]][0].env.cpus // null),
	# when the last of its runs was made (the runs, not this table)
	date: ([$S[].env.date // empty] | max // (now | todate)),
	paper: { fct_vs_cubic: [-0.32, -0.285], small_p99_vs_cubic: -0.495,
		note: "ns-2, 10 Gbit/s WAN links 20/30/40 ms one way, 20 KB of buffer per Gbit/s, FlashPass with Aeolus's line-rate start" },
	dynamic: ([$S | to_entries[] | select(.key | test("^flashpass-(dynamic|rpc|overprov)-")) | .value as $r
		| (.key | split("-")) as $k | {
		scenario: .key, kind: $k[1], path: $k[2], load: $r.env.load,
		# overprov: on (the paper's), nosel (no selective dropping), off
		variant: (if $k[1] == "overprov" then $k[3] else null end),
		# request/response: the answer's bytes and the requests a flow
		response: ($r.env.scenario_file | setting("response")),
		rounds: ($r.env.scenario_file | setting("rounds") | if . then tonumber else null end),
		rate_bps: $r.env.rate_bps, buffer_bytes: $r.env.buffer_bytes,
		buffer_bdp: ($r.env.buffer_bytes / ($r.env.rate_bps / 8 * $r.env.base_rtt_ms / 1000) | r3),
		base_rtt_ms: $r.env.base_rtt_ms, scale: $r.env.scale,
		pacer: ($r.env.flashpass_pacer // ""),
		algos: ($r.runs | group_by(.algo) | map({ key: .[0].algo, value: cc(.) }) | from_entries) }
		] | sort_by([.load, .path, (if .variant == null then 0 else { on: 0, nosel: 1, off: 2 }[.variant] // 3 end)])
	# against cubic of the same run, or (a run without it) of the first
	# run of the same kind and load that has it; overprov's also against
	# the same path with over-provisioning on
	| . as $rows | map(. as $d
		| ($rows | map(select(.kind == $d.kind and .load == $d.load and .algos.cubic)) | .[0]) as $o
		| ($d.algos.cubic // $o.algos.cubic) as $cub
		| $cub.fct_ms.mean as $c | $cub.small_p99_ms.mean as $cp
		| ($rows | map(select(.kind == $d.kind and .path == $d.path and .variant == "on"))
			| .[0].algos.bpf_flashpass.fct_ms.mean) as $on
		| .algos |= with_entries(.value += {
			fct_vs_cubic: (if $c and .value.fct_ms.mean then .value.fct_ms.mean / $c - 1 | r3 else null end),
			small_p99_vs_cubic: (if $cp and .value.small_p99_ms.mean then .value.small_p99_ms.mean / $cp - 1 | r3 else null end) }
			+ (if $d.kind == "overprov" and .key == "bpf_flashpass" then
				{ fct_vs_on: (if $on and .value.fct_ms.mean then .value.fct_ms.mean / $on - 1 | r3 else null end) }
			else {} end))))
}
