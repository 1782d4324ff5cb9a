# bench/accuracy: a repeatability item per CC from a bench/run result.json;
# extra_ms is the RTT under load beyond base RTT + the bottleneck's mean
# queueing delay (at 100 Mbit/s): delay the backend itself adds when busy.
. as $r | .summary | to_entries[] | .key as $a | { backend: $be,
  what: "repeatability", algo: $a, runs: .value.runs, goodput_mbps: .value.goodput_mbps,
  spread_mbps: .value.goodput_spread_mbps, rtt_p50_ms: .value.rtt_p50_ms,
  extra_ms: (.value.rtt_p50_ms - $r.env.base_rtt_ms - ([$r.runs[] | select(.algo == $a)
	| .switch.avg_backlog * 8 / 100e6 * 1000] | add / length) | . * 10 | round / 10) }
