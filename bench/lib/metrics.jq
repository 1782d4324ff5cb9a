# Metrics of one run, from the files the runner collected (jq -n with
# --slurpfile/--arg).  Inputs:
#   $iperf   iperf3 -J results, one per bulk flow (may be empty)
#   $ss      ss samples: {t_ms, node, flow, cc, cwnd, rtt_ms, acked}
#   $sw      final switch counters, one per bottleneck
#   $wl      wlgen JSON lines (flows, tasks, summaries) (may be empty)
#   $meta    [{algo, rep, rate_bps, duration, ...}]
def pct(p): if length == 0 then null else sort | .[((length - 1) * p) | floor] end;
def mean: if length == 0 then null else add / length end;
def jain: if length == 0 or (map(. * .) | add) == 0 then null
	else (add * add) / (length * (map(. * .) | add)) end;
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def size_class: if . < 100000 then "small" elif . < 10000000 then "medium" else "large" end;
def fct_stats: { n: length, mean_ms: (map(.fct_us / 1000) | mean | r3),
	p50_ms: (map(.fct_us / 1000) | pct(0.5) | r3), p99_ms: (map(.fct_us / 1000) | pct(0.99) | r3) };

($meta[0]) as $m
| ($iperf | map(
	(.start.connected[0].local_port | tostring) as $lport
	| (.start.connected[0].remote_port) as $rport
	| ($ss | map(select(.flow | test(":" + $lport + "-")))) as $samples
	| {
		cc: .end.sender_tcp_congestion,
		src: .start.connected[0].local_host,
		dst: .start.connected[0].remote_host,
		port: $rport,
		start_s: (.start.timestamp.timesecs // 0),
		goodput_bps: .end.sum_received.bits_per_second,
		retrans: (.end.sum_sent.retransmits // 0),
		rtt_ms: { p50: ($samples | map(.rtt_ms) | pct(0.5)), p95: ($samples | map(.rtt_ms) | pct(0.95)),
			  p99: ($samples | map(.rtt_ms) | pct(0.99)) },
		intervals: [.intervals[] | [.sum.end, .sum.bits_per_second]]
	})) as $flows
| ($flows | map(.start_s) | min // 0) as $t0
| ($wl | map(select(.type == "flow" and .ok))) as $wflows
| ($wl | map(select(.type == "task"))) as $tasks
| ($wl | map(select(.type == "summary"))) as $sums
# Flow workloads: goodput is the bytes of completed flows over the arrival span.
| (if ($sums | length) > 0
   then ($sums | map(if .arrival_span_s > 0 then .bytes * 8 / .arrival_span_s else 0 end) | add)
   else ($flows | map(.goodput_bps) | add // 0) end) as $goodput
| {
	algo: $m.algo, rep: $m.rep,
	flows: ($flows | map(.start_s -= $t0)),
	goodput_bps: $goodput,
	goodput_fraction: (($goodput / $m.rate_bps) | r3),
	jain: ($flows | map(.goodput_bps) | jain | r3),
	retrans: (($flows | map(.retrans) | add // 0) + ($wl | map(select(.type == "flow") | .retrans // 0) | add // 0)),
	rtt_ms: ($ss | map(select(.acked > 100000) | .rtt_ms) |
		{ p50: pct(0.5), p95: pct(0.95), p99: pct(0.99) }),
	switch: {
		dropped: ($sw | map(.dropped) | add // 0),
		marked: ($sw | map(.marked) | add // 0),
		avg_backlog: ($sw[0].avg_backlog // null),
		max_backlog: ($sw[0].max_backlog // null),
		per_bottleneck: ($sw | map({dev, dropped, marked, avg_backlog, max_backlog}))
	}
}
+ (if ($wl | length) == 0 then {} else {
	fct: ({ all: ($wflows | fct_stats) } + ($wflows | group_by(.size | size_class)
		| map({ key: (.[0].size | size_class), value: fct_stats }) | from_entries)),
	tct: (if ($tasks | map(select(.flows > 1)) | length) == 0 then null else
		({ all: ($tasks | map(.fct_us = .tct_us) | fct_stats) } + ($tasks | map(.fct_us = .tct_us)
		| group_by(.bytes | size_class) | map({ key: (.[0].bytes | size_class), value: fct_stats })
		| from_entries)) end),
	workload: { flows: ($sums | map(.flows) | add), completed: ($sums | map(.completed) | add),
		failed: ($sums | map(.failed) | add), skipped: ($sums | map(.skipped) | add),
		unfinished: ($sums | map(.unfinished) | add),
		offered_load: ($sums | map(.offered_load) | add | r3),
		achieved_load: ($sums | map(.achieved_load) | add | r3) }
} end)
