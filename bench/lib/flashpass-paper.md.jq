# flashpass.json as Markdown (its result page takes it as it is).
def pct: if . == null then "-" else (. * 1000 | round) / 10 | tostring + " %" end;
def n: if . == null then "-" else tostring end;
# drop rates: to 0.01 %, so that 20 frames in 100 000 do not read "0 %"
def rate: if . == null then "-" else (. * 10000 | round) / 100 | tostring + " %" end;
# goodput as the share of the link its frames take, the way ns-2 counts
# the paper's throughput: a full-sized segment's 1448 payload bytes (MTU
# 1500, TCP timestamps) are a 1514-byte frame, as the bottleneck's tbf
# counts it (no preamble, gap or FCS)
def frames: if . == null then null else . * 1514 / 1448 end;
def row: "| \(.key) | \(.value.utilization | pct) | \(.value.utilization | frames | pct) | \(.value.class0_drops | n) (\(.value.class0_drop_rate | rate)) | \(.value.retrans | n) | \(.value.jain | n) | \(.value.max_backlog | n) | \(.value.cpu_busy | pct) (\(.value.cpu_softirq | pct)) |";
"## Static workload (scenario 1)", "",
"Paper (ns-2, 20 senders, RTTs 0..40 ms): FlashPass 91 % of the link with no data loss, Cubic 64 % with 1.7 % loss.", "",
"CPU busy: the machine's CPUs (all of them: senders, test network, pacer, samplers) from the flows' launch to their end; near 100 %, the machine set the rate.", "",
"Utilization: goodput over the link rate, and the share of the link its frames take (the paper's measure).  FlashPass's ceiling: one credit per 1622 bytes of link, one 1448-byte segment (a 1514-byte frame) per credit, 89.3 % in goodput, 93.3 % in frames.", "",
(.static[] | "### \(.scenario): \(.description)", "",
	"Buffer \(.buffer), \(.buffer_bdp) BDP at the longest RTT (\(.base_rtt_ms) ms).", "",
	"| CC | utilization | in frames | class-0 data drops (rate) | retransmissions | Jain | peak queue (bytes) | CPU busy (softirq) |",
	"|---|---|---|---|---|---|---|---|",
	(.algos | to_entries[] | row), ""),
"## Data crash (scenario 2)", "",
"One row per scenario (`join`: the second flow starts 1 s after the first; `paced`: each credit an ACK, paced at the last 8 credits); peaks per run, in bytes; the join's peak from 0.9 to 1.3 s after the first queued packet.", "",
"| scenario | runs | peak data queue | join's peak | class-0 (scheduled) peak | class-1 (unscheduled) peak | credits wasted | class-0 drops | goodput |",
"|---|---|---|---|---|---|---|---|---|",
(.crash | to_entries[] | .value as $c |
	"| \(.key) | \($c.runs // 1) | \($c.peaks // [$c.max_backlog] | map(n) | join(", ")) | \($c.join_peaks | if . == null then "-" else map(n) | join(", ") end) | \($c.class0_peaks // [] | map(n) | join(", ")) | \($c.class1_peaks // [] | map(n) | join(", ")) | \($c.credits_wasted // [] | map(pct) | join(", ")) | \($c.class0_drops | n) | \($c.goodput_mbps | n) Mbit/s (spread \($c.goodput_spread_mbps | n)) |"),
"", "A crash would pile up about \(.crash.off.crash_estimate_bytes // .crash.on.crash_estimate_bytes // "-" | tostring) bytes (the 20 ms RTT difference at half the line rate).", "",
"## Buffer sweep (scenario 3)", "",
(if (.sweep | length) == 0 then "(not run)" else
	(.sweep[0].algos | keys) as $cc |
	("| buffer | BDP | " + ($cc | map("\(.) utilization | \(.) drop rate") | join(" | ")) + " |"),
	("|---|---|" + ($cc | map("---|---|") | join(""))),
	(.sweep[] | . as $b | "| \(.buffer) | \(.buffer_bdp) | " +
		($cc | map($b.algos[.] as $a | "\($a.utilization | pct) | \($a.class0_drop_rate | rate)") | join(" | ")) + " |")
end),
"", "## Rate control: as it is (`--settle`, `--jitter 90`), with `--no-settle` and with `--jitter 0`", "",
(if (.control // [] | length) == 0 then "(not run)" else
	"Each row one scenario run with the pacer as it is (`--settle --jitter 90`, the defaults), with `--no-settle` or with `--jitter 0`, cubic beside it in the same run.", "",
	"| scenario | pacer | FlashPass utilization | class-0 drops (rate) | credits wasted per run | Jain | cubic utilization | cubic class-0 drops (rate) |",
	"|---|---|---|---|---|---|---|---|",
	(.control[] | .algos.bpf_flashpass as $f | .algos.cubic as $c |
		"| \(.scenario) | \(.pacer) | \($f.utilization | pct) | \($f.class0_drops | n) (\($f.class0_drop_rate | rate)) | \(.credits_wasted | map(pct) | join(", ")) | \($f.jain | n) | \($c.utilization | pct) | \($c.class0_drops | n) (\($c.class0_drop_rate | rate)) |")
end)
