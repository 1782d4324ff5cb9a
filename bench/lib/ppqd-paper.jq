# bench/ppqd-paper's table from its runs (jq -s: one object per run).
# Out: { shared: [...], paths: [...], scale: [...], md: "..." }
def mean: if length == 0 then null else add / length end;
def sd: if length < 2 then null else (mean as $m | map((. - $m) * (. - $m)) | add / (length - 1) | sqrt) end;
def r(n): if . == null then null else (. * pow(10; n) | round) / pow(10; n) end;
def range_of: if length == 0 then "-" else "\(min | r(2))-\(max | r(2))" end;
def mbit: . / 1e6;
def jain($x; $y): ($x + $y) * ($x + $y) / (2 * ($x * $x + $y * $y));

# The connection's delivered bytes over time from flowsample's samples
# (both subflows): per 100 ms bin, the sum of each subflow's last count.
def delivered_bins:
	group_by(.sub) | map(group_by(.t_ms / 100 | floor) | map({ b: (.[0].t_ms / 100 | floor), acked: (map(.acked) | max) }))
	| (map(.[0].b) | min) as $b0 | (map(.[-1].b) | min) as $b1
	| [range($b0; $b1 + 1) as $b | { b: $b, acked: (map([.[] | select(.b <= $b)] | last.acked // 0) | add) }];

# ms from the burst's end (burst_ms + 200) until the goodput over the next
# 500 ms is back to 90 % of the 3 s before the burst; null if never.
def recovery_ms:
	.burst_ms as $t | (.series | delivered_bins) as $c
	| ($c | map(select(.b == (($t - 3000) / 100 | floor))) | .[0].acked) as $a0
	| ($c | map(select(.b == ($t / 100 | floor))) | .[0].acked) as $a1
	| if $a0 == null or $a1 == null then null else
		(($a1 - $a0) / 3) as $pre
		| [$c[] | select(.b * 100 >= $t + 200) | .b as $b
		   | ($c | map(select(.b == $b + 5)) | .[0].acked) as $e
		   | select($e != null and ($e - .acked) / 0.5 >= 0.9 * $pre) | .b * 100 - $t - 200]
		| first // null end;

. as $runs
| ([$runs[] | select(.kind == "shared")] | group_by(.case) | map(
	(map(.mp_flow.goodput_bps | mbit)) as $m | (map(.tcp_flow.goodput_bps | mbit)) as $t
	| { case: .[0].case, mp: .[0].mp, tcp: .[0].tcp, reps: length,
	    verified: all(.mp_flow.pattern_ok and .mp_flow.subflows == 2 and .tcp_flow.pattern_ok),
	    mp_mbit: ($m | mean | r(2)), tcp_mbit: ($t | mean | r(2)),
	    ratio: ([range(length)] | map($m[.] / $t[.]) | mean | r(3)),
	    ratio_range: ([range(length)] | map($m[.] / $t[.]) | range_of),
	    mp_share: ([range(length)] | map($m[.] / ($m[.] + $t[.])) | mean | r(3)),
	    jain: ([range(length)] | map(jain($m[.]; $t[.])) | mean | r(3)),
	    losses: (map(.stats.losses // null) | if any(. == null) then null else mean | r(1) end),
	    joined: (map(.stats.losses_joined // null) | if any(. == null) then null else mean | r(1) end),
	    yields: (map(.stats.competes // null) | if any(. == null) then null else mean | r(1) end) })) as $shared
| ([$runs[] | select(.kind == "paths")] | group_by(.case) | map(
	(map(.mp_flow.goodput_bps | mbit)) as $g
	| [.[] | .series[] | select(.rtt_ms > 0) | .rtt_ms] as $rtt
	| { case: .[0].case, mp: .[0].mp, reps: length,
	    verified: all(.mp_flow.pattern_ok and .mp_flow.subflows == 2),
	    mbit: ($g | mean | r(2)), mbit_range: ($g | range_of),
	    rtt_ms_mean: ($rtt | mean | r(2)), rtt_ms_sd: ($rtt | sd | r(2)),
	    rtt_ms_var: (($rtt | sd) as $s | if $s == null then null else $s * $s | r(2) end),
	    delay_decreases: (map(.stats.delay_decreases // 0) | mean | r(1)),
	    losses: (map(.stats.losses // .stats.cwnd_reductions // 0) | mean | r(1)),
	    yields: (map(.stats.competes // null) | if any(. == null) then null else mean | r(1) end),
	    recovery_ms: (map(recovery_ms) | map(select(. != null)) | mean | r(0)),
	    recovered: (map(recovery_ms) | map(select(. != null)) | length) })) as $paths
| ([$runs[] | select(.kind == "scale")] | group_by(.case) | map(
	{ case: .[0].case, mp: .[0].mp, reps: length, conns: .[0].conns,
	  conns_open: (map(.conns_open // null) | if any(. == null) then "-" else range_of end),
	  entries_live: (map(.entries_live) | range_of),
	  exact: (map(select(.conns_open != null and .entries_live == .conns_open)) | length),
	  subflows_live: (map(.subflows_live) | range_of),
	  members_live: (map(.members_live // null) | if any(. == null) then "-" else range_of end),
	  entries_after: (map(.entries_after) | max), sockets_left: (map(.sockets_left // null) | if any(. == null) then "-" else max end),
	  verified_2_subflows: (map(.verified_2_subflows) | min) })) as $scale
| ($paths | map({ key: .mp, value: .mbit }) | from_entries) as $pm
| ([$runs[] | select(.kind != "scale") | .wired_ms // 0] | unique) as $w
| (if $w == [0] then "" else " + \($w | map(tostring) | join("/")) ms wired each way" end) as $wired
| { shared: $shared, paths: $paths, scale: $scale,
    ppqd_over_lia: (if $pm.bpf_ppqd and $pm.bpf_lia then $pm.bpf_ppqd / $pm.bpf_lia | r(3) else null end),
    md: ([
	"### 1. Shared bottleneck (15 Mbit/s, 2 ms each way\($wired), 0.1 % loss on the way in, 30 KB)",
	"",
	"| MPTCP (2 subflows) | TCP | reps | MPTCP Mbit/s | TCP Mbit/s | MPTCP / TCP (range) | MPTCP share of the two | Jain | halvings | losses not halved again | PPQD yields | verified |",
	"|---|---|---|---|---|---|---|---|---|---|---|---|",
	($shared[] | "| \(.mp) | \(.tcp) | \(.reps) | \(.mp_mbit) | \(.tcp_mbit) | \(.ratio) (\(.ratio_range)) | \(.mp_share) | \(.jain) | \(.losses // "-") | \(.joined // "-") | \(.yields // "-") | \(.verified) |"),
	"",
	"Paper: PPQD 7.49 vs TCP 7.52 Mbit/s; uncoupled about 70 % of the link.",
	"",
	"### 2. Two disjoint paths (15 Mbit/s 2 ms, 10 Mbit/s 1 ms\($wired), 30 KB each), a loss burst halfway",
	"",
	"| MPTCP | reps | Mbit/s (range) | subflow RTT mean ms | RTT variance ms^2 | delay cuts | loss halvings | PPQD yields | recovery after the burst, ms | verified |",
	"|---|---|---|---|---|---|---|---|---|---|",
	($paths[] | "| \(.mp) | \(.reps) | \(.mbit) (\(.mbit_range)) | \(.rtt_ms_mean) | \(.rtt_ms_var) | \(.delay_decreases) | \(.losses) | \(.yields // "-") | \(.recovery_ms // "-") (\(.recovered) of \(.reps)) | \(.verified) |"),
	"",
	"Paper: PPQD 6.58 vs LIA 5.17 Mbit/s (+27 %); here bpf_ppqd / bpf_lia = \($pm.bpf_ppqd // 0 | . / ($pm.bpf_lia // 1) | r(3)).",
	"",
	"### 4. Scale: connections of two subflows at once",
	"",
	"Halfway through (5 s of 8): the connections open (MPTCP sockets established on the client) and the table's entries; the subflows established and those the table counts; after the clients ended: the entries left (most in a run) and the client's sockets not yet closed then.",
	"",
	"| CC | reps | connections | open halfway | table entries then | entries = open | subflows open | subflows in the table | entries after | sockets still open then | verified with 2 subflows (fewest) |",
	"|---|---|---|---|---|---|---|---|---|---|---|",
	($scale[] | "| \(.mp) | \(.reps) | \(.conns) | \(.conns_open) | \(.entries_live) | \(.exact) of \(.reps) | \(.subflows_live) | \(.members_live) | \(.entries_after) | \(.sockets_left) | \(.verified_2_subflows) |")
	] | join("\n")) }
