# bench/run's result.json: the runs' metrics.json (bench/lib/metrics.jq),
# their mean per algorithm (summary) and the ratios to the native CC.
# Arguments: bench/run's --arg/--argjson list.
def mean: if length == 0 then null else add / length end;
def median: if length == 0 then null else sort | if length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end end;
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
($runs | group_by(.algo) | map({
	key: .[0].algo,
	value: {
		runs: length,
		goodput_mbps: (map(.goodput_bps / 1e6) | mean | r3),
		goodput_median_mbps: (map(.goodput_bps / 1e6) | median | r3),
		goodput_spread_mbps: ((map(.goodput_bps / 1e6) | max) - (map(.goodput_bps / 1e6) | min) | r3),
		jain: (map(.jain) | map(select(. != null)) | mean | r3),
		cpu_busy: (map(.cpu.busy) | map(select(. != null)) | mean | r3),
		cpu_softirq: (map(.cpu.softirq) | map(select(. != null)) | mean | r3),
		retrans: (map(.retrans) | mean | r3),
		drops: (map(.switch.dropped) | mean | r3),
		class0_drops: (map(.switch.class_dropped[0] // 0) | mean | r3),
		class0_drop_rate: (map((.switch.class_dropped[0] // 0) / ([(.switch.class_pkts[0] // 0) + (.switch.class_dropped[0] // 0), 1] | max)) | mean | . * 1e5 | round / 1e5),
		max_backlog: (map(.switch.max_backlog) | map(select(. != null)) | max),
		marks: (map(.switch.marked) | mean | r3),
		rtt_p50_ms: (map(.rtt_ms.p50) | map(select(. != null)) | mean | r3),
		rtt_p95_ms: (map(.rtt_ms.p95) | map(select(. != null)) | mean | r3),
		fct_mean_ms: (map(.fct.all.mean_ms) | map(select(. != null)) | mean | r3),
		tct_mean_ms: (map(.tct.all.mean_ms) | map(select(. != null)) | mean | r3),
		tct_fastest_ms: (map(.tct.fastest) | map(select(. != null)) | if length == 0 then null else
			(.[0] | keys) as $k | [$k[] as $p | { key: $p, value: (map(.[$p]) | mean | r3) }] | from_entries end),
		tct_by_kind_ms: (map(.tct.by_kind) | map(select(. != null)) | if length == 0 then null else
			(map(keys) | add | unique) as $k | [$k[] as $c | { key: $c,
				value: (map(.[$c].mean_ms // empty) | mean | r3) }] | from_entries end),
		fct_small_p99_ms: (map(.fct.small.p99_ms) | map(select(. != null)) | mean | r3),
		converge_s: (map(.staggered.converge_s) | map(select(. != null)) | mean | r3),
		jain_overlap: (map(.staggered.jain_overlap) | map(select(. != null)) | mean | r3),
		shares: (map(.shares) | map(select(. != null)) | if length == 0 then null else
			(map(keys) | add | unique) as $k | [$k[] as $c | { key: $c,
				value: (map(.[$c] // 0) | mean | r3) }] | from_entries end),
		probe_rtt: (map(.modes.probe_rtt) | map(select(. != null)) | mean | r3),
		probe_rtt_interval_s: (map(.modes.probe_rtt_interval_s) | map(select(. != null)) | mean | r3),
		mode_seqs: (map(.modes.seq) | map(select(. != null)) | unique | if length == 0 then null else . end)
	}}) | from_entries) as $sum
| {
	scenario: $scenario, description: $desc,
	env: { kernel: $kernel, delay_backend: $backend, topology: $topology, seed: $seed,
	       reseed: ($reseed == 1), duration_s: $duration,
	       date: $date, rate: $rate, buffer: $buffer, ecn_k: $k, base_rtt_ms: $rtt,
	       rate_bps: $rate_bps, buffer_bytes: $buffer_bytes, load: $load, scale: $wscale,
	       cpus: $cpus, tunables: $tunables, scenario_file: $text,
	       trace_skipped: (if $trace_skipped == "" then null else $trace_skipped end),
	       flashpass_pacer: (if $fp_pacer == "" then null else $fp_pacer end) },
	runs: $runs,
	summary: $sum,
	ratios_to_native: (if $native == "" or ($sum[$native] | not) then null else
		($sum | with_entries(.value |= {
			goodput: (if $sum[$native].goodput_mbps > 0 then (.goodput_mbps / $sum[$native].goodput_mbps | r3) else null end),
			rtt_p50: (if ($sum[$native].rtt_p50_ms // 0) > 0 and .rtt_p50_ms then (.rtt_p50_ms / $sum[$native].rtt_p50_ms | r3) else null end),
			rtt_p95: (if ($sum[$native].rtt_p95_ms // 0) > 0 and .rtt_p95_ms then (.rtt_p95_ms / $sum[$native].rtt_p95_ms | r3) else null end),
			retrans: (if ($sum[$native].retrans // 0) > 0 then (.retrans / $sum[$native].retrans | r3) else null end),
			fct_mean: (if ($sum[$native].fct_mean_ms // 0) > 0 and .fct_mean_ms then (.fct_mean_ms / $sum[$native].fct_mean_ms | r3) else null end),
			tct_mean: (if ($sum[$native].tct_mean_ms // 0) > 0 and .tct_mean_ms then (.tct_mean_ms / $sum[$native].tct_mean_ms | r3) else null end)
		})) end),
	native: $native
}
