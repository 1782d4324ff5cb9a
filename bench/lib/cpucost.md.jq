# bench/cpucost's tables (markdown) from cpucost.json.
def r(n): if . == null then "-" else . * pow(10; n) | round / pow(10; n) end;
def verdict: if . == null then "" elif . then "ok" else "**below**" end;
"kernel \(.kernel), \(.date), one core (cpu\(.cpu)), slices of \(.slice_ms) ms (the first \(.warm_ms) ms not measured); native DCTCP: \(.native_dctcp)\n",
"| path | suite CC | compared with | Gbit per CPU-s (suite / other), median slice | ratio, median of rounds | 95 % interval (bootstrap) | rounds | goal | | BPF ns per callback (bpf_stats on) |",
"|---|---|---|---|---|---|---|---|---|---|",
(.pairs[] | "| \(.path) | \(.suite) | \(.native)\(if .twin then " (twin)" else "" end) | \(.suite_gbit_per_cpu_s | r(2)) / \(.native_gbit_per_cpu_s | r(2)) | \(.ratio | r(3)) | \(.lo | r(3))..\(.hi | r(3)) | \(.n) | \(if .goal then ">= \(.goal)" else "-" end) | \(.pass | verdict) | \(.bpf_ns_per_call | r(1)) |"),
"",
"**Per callback** (a separate run with `kernel.bpf_stats_enabled=1`, whose two clock reads per call are in these ns; share: of the CC's CPU time; callbacks of fewer than 0.1 calls per MB, init, release and the like, left out)\n",
"| path | CC | callback | ns per call | calls per MB | share of CPU |",
"|---|---|---|---|---|---|",
(.callbacks | to_entries[] | .key as $p | .value[] | select(.calls_per_mb >= 0.1) | "| \($p) | \(.cc) | \(.prog) | \(.ns_per_call | r(1)) | \(.calls_per_mb | r(1)) | \(.share * 100 | r(2)) % |"),
# Scale rows without native_gbit_per_cpu_s are the earlier --scale's (one
# process per CC, no reno): a published cpucost.json made then keeps its
# own table.
(if (.scale | length) > 0 then
	(.scale | any(has("native_gbit_per_cpu_s"))) as $reno |
	"",
	"**Scale** (loopback; bpf_tldct's flows in tasks of 10; \(if $reno then "receivers in a process of their own; " else "" end)memory: bytes_memlock of bpf_tldct's maps, live entries halfway through)\n",
	if $reno then
		"| flows per CC | bpf_tldct / twin_dctcp / reno Gbit per CPU-s | ratio to twin_dctcp | 95 % interval | ratio to reno | 95 % interval | bpf_tldct maps: bytes (entries) |",
		"|---|---|---|---|---|---|---|"
	else
		"| flows per CC | bpf_tldct / twin_dctcp Gbit per CPU-s | ratio | 95 % interval | bpf_tldct maps: bytes (entries) |",
		"|---|---|---|---|---|"
	end,
	(.scale[] | (if .maps then [.maps[] | "\(.pin) \(.bytes) (\(.entries // "-"))"] | join(", ") else "-" end) as $maps |
		if $reno then
			"| \(.flows) | \(.tldct_gbit_per_cpu_s | r(2)) / \(.twin_gbit_per_cpu_s | r(2)) / \(.native_gbit_per_cpu_s | r(2)) | \(.ratio | r(3)) | \(.lo | r(3))..\(.hi | r(3)) | \(.native.ratio | r(3)) | \(.native.lo | r(3))..\(.native.hi | r(3)) | \($maps) |"
		else
			"| \(.flows) | \(.tldct_gbit_per_cpu_s | r(2)) / \(.twin_gbit_per_cpu_s | r(2)) | \(.ratio | r(3)) | \(.lo | r(3))..\(.hi | r(3)) | \($maps) |"
		end)
else empty end)
