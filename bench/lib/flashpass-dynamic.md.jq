# bench/flashpass-paper dynamic's and rpc's tables (dynamic.md, rpc.md)
# from their JSON.
def n: if . == null then "-" else tostring end;
def ms: if . == null or .mean == null then "-" else (.mean | round | tostring)
	+ (if .sd then " ± \(.sd | round)" else "" end) end;
def pct: if . == null then "-" else (. * 100 | round | tostring) + " %" end;
def signed: if . == null then "-" else (. * 100 | round) as $p
	| (if $p > 0 then "+" else "" end) + ($p | tostring) + " %" end;
def x: if . == null or .mean == null then "-" else (.mean * 100 | round / 100 | tostring) end;
(.dynamic[0].kind == "rpc") as $rpc |
if $rpc then "### Request/response flows (`bench/flashpass-paper rpc`)"
else "### Dynamic workload, buffers of \(.dynamic[0].buffer_bytes // "-") bytes (`bench/flashpass-paper dynamic\(if (.dynamic[0].buffer_bdp // 1) < 0.05 then "-shallow" else "" end)`)" end, "",
(if (.dynamic // [] | length) == 0 then "(not run)" else
	(.dynamic[0] | "3-site WAN, links of \(.rate_bps / 1e6) Mbit/s, RTTs \(.base_rtt_ms / 2)/\(.base_rtt_ms * 3 / 4)/\(.base_rtt_ms) ms, buffers \(.buffer_bytes) bytes (\(.buffer_bdp) BDP of the longest path), the WAN mix x \(.scale), Poisson arrivals\(if $rpc then ", each flow \(.rounds) requests of that size on one connection, each answered with \(.response) before the next (the answers on the receivers' Reno); sizes and classes are a request's, an FCT all of a flow's rounds, the load the requests' bytes, the slowdown over the handshake's RTT and per round an RTT and the request's and answer's bytes at the link rate; fallbacks: bpf_flashpass flows that ran out of credits and on as Reno" else "" end); each row the runs of one CC in one `bench/run`, the CCs alternating (run `pacer`: bpf_flashpass on the pacer's releases, the default, beside cubic and bbr; run `loop`: bpf_flashpass on the kernel's credit loop, beside cubic). FCTs in ms of the flows that completed, mean over runs ± their sd; small: < 100 KB; first window: \(if $rpc then "requests of " else "" end)at most 14464 bytes, which with wlgen's 16-byte header fit in the initial window (10 segments); \(if $rpc then "" else "slowdown: FCT over two RTTs plus the bytes at the link rate; " end)drops: frames dropped at the switches, class 0 (bpf_flashpass's scheduled data; for cubic and bbr all their traffic, ACKs included) and class 1 (bpf_flashpass's unscheduled data); not completed: flows failed, corrupt or still open at the end, in no FCT (had they been timed, they would raise their CC's)."), "",
	"In short (mean FCT and the small flows' p99, ms, and their change against cubic in the same run):", "",
	"| load | run | CC | FCT | vs cubic | small p99 | vs cubic |",
	"|---|---|---|---|---|---|---|",
	(.dynamic[] | . as $d | .algos | to_entries[] | select(.key != "cubic") | .key as $a | .value |
		"| \($d.load) | \($d.path) | \($a) | \(.fct_ms | ms) | \(.fct_vs_cubic | signed) | \(.small_p99_ms | ms) | \(.small_p99_vs_cubic | signed) |"),
	"", "In full:", "",
	"| load | run | CC | runs | flows | FCT | vs cubic | small | small p99 | vs cubic | medium | first window | slowdown | drops 0 / 1 | achieved load | not completed |\(if $rpc then " fallbacks |" else "" end) CPU busy |",
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\(if $rpc then "---|" else "" end)---|",
	(.dynamic[] | . as $d | .algos | to_entries[] | .key as $a | .value |
		"| \($d.load) | \($d.path) | \($a) | \(.runs) | \(.flows) | \(.fct_ms | ms) | \(.fct_vs_cubic | signed) | \(.small_ms | ms) | \(.small_p99_ms | ms) | \(.small_p99_vs_cubic | signed) | \(.medium_ms | ms) | \(.first_window_ms | ms) | \(.slowdown | x) | \(.class0_drops | n) / \(.class1_drops | n) | \(.achieved_load | x) | \(.not_completed | n) |\(if $rpc then " \(.fallbacks | n) |" else "" end) \(.cpu_busy.mean | pct) |")
end)
