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
(if (.scale | length) > 0 then
	"",
	"**Scale** (loopback; bpf_tldct's flows in tasks of 10; receivers in a process of their own; memory: bytes_memlock of bpf_tldct's maps, live entries halfway through)\n",
	"| flows per CC | bpf_tldct / twin_dctcp / reno Gbit per CPU-s | ratio to twin_dctcp | 95 % interval | ratio to reno | 95 % interval | bpf_tldct maps: bytes (entries) |",
	"|---|---|---|---|---|---|---|",
	(.scale[] | "| \(.flows) | \(.tldct_gbit_per_cpu_s | r(2)) / \(.twin_gbit_per_cpu_s | r(2)) / \(.native_gbit_per_cpu_s // "-" | r(2)) | \(.ratio | r(3)) | \(.lo | r(3))..\(.hi | r(3)) | \(.native.ratio | r(3) // "-") | \(.native.lo | r(3) // "-")..\(.native.hi | r(3) // "-") | \(if .maps then [.maps[] | "\(.pin) \(.bytes) (\(.entries // "-"))"] | join(", ") else "-" end) |")
else empty end)
