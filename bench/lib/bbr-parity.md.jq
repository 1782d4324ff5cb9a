# parity.json as the markdown table its result page shows.
def v: if . == null then "-" else tostring end;
def verdict: if . == null then "" elif . then "ok" else "**out**" end;
"kernel \(.kernel), delay backend \(.delay_backend), \(.date)\n",
(.scenarios[] |
	"**\(.description)** (`\(.name)`, \(.runs_each) run\(if .runs_each == 1 then "" else "s" end) each, buffer \(.env.buffer))\n",
	"| metric | bbr | bpf_bbr | ratio | tolerance | |",
	"|---|---|---|---|---|---|",
	(.rows[] | "| \(.metric) | \(.native | v) | \(.bpf | v) | \(.ratio | v) | \(.tolerance | v) | \(.pass | verdict) |"),
	""),
# CPU rows with ratio_min and ratio_max are the earlier bench/cpucost's
# (whole runs at a fixed offered rate, min..max of the repetitions): a
# published parity.json made then keeps its own header.
(if .cpucost then
	(.cpucost | any(has("ratio_min"))) as $fixed |
	if $fixed then "**CPU cost** (bulk transfer at a fixed offered rate, one core; `bench/cpucost --pairs bpf_bbr:bbr`)\n"
	else "**CPU cost** (CPU-bound bulk transfers on one core, the two CCs alternating in 250 ms slices; `bench/cpucost --pairs bpf_bbr:bbr`)\n" end,
	"| path | bbr Gbit per CPU-s | bpf_bbr Gbit per CPU-s | \(if $fixed then "ratio, median (min..max)" else "ratio, median of rounds (95 % interval)" end) | goal | | BPF ns per callback |",
	"|---|---|---|---|---|---|---|",
	(.cpucost[] | "| \(.path) | \(.native_gbit_per_cpu_s) | \(.bpf_gbit_per_cpu_s) | \(.ratio) (\(.ratio_lo // .ratio_min)..\(.ratio_hi // .ratio_max)) | \(.goal) | \(.pass | verdict) | \(.bpf_ns_per_call | v) |"),
	"" else empty end),
"Mode sequences: S STARTUP, D DRAIN, BW PROBE_BW, RTT PROBE_RTT (bench/trace/bbr-modes.bt)."
