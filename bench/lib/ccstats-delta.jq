# bench/run: a run's metrics.json plus the counters of the suite CCs among
# $algos over the run, from `ccload stats --json` before ($b) and after
# ($a): the difference, and for a gauge (_bps, _us) its value at the end.
. + { cc_stats: ($algos | split(",") | map(select(startswith("bpf_")))
	| map(. as $n | { key: $n, value: ($a[0][$n] // {} | with_entries(.key as $k
		| .value = (if ($k | test("_bps$|_us$")) then .value
			else .value - ($b[0][$n][$k] // 0) end))) }) | from_entries) }
