# Metrics of one run, from the files the runner collected (jq -n with
# --slurpfile/--arg).  Inputs:
#   $iperf   iperf3 -J results, one per bulk flow (may be empty)
#   $ss      flow samples (build/flowsample): {t_ms, epoch_ms, node, flow, cc, cwnd, rtt_ms, acked}
#   $sw      final switch counters, one per bottleneck
#   $wl      wlgen JSON lines (flows, tasks, summaries) (may be empty)
#   $trace   events of the run's bench/trace script, e.g. bbr-modes.bt's
#            {ns, sport, dport, cc, mode} (may be empty)
#   $meta    [{algo, rep, rate_bps, links, duration, sample_ms, cpu,
#            elapsed_s}]; cpu: the "cpu" lines of /proc/stat at the launch
#            and at the flows' end, elapsed_s the seconds between them;
#            links: bottlenecks of rate_bps the flows load side by side
#            (wan3: one per pair), which goodput and load are fractions of
def pct(p): if length == 0 then null else sort | .[((length - 1) * p) | floor] end;
def mean: if length == 0 then null else add / length end;
def jain: if length == 0 or (map(. * .) | add) == 0 then null
	else (add * add) / (length * (map(. * .) | add)) end;
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def size_class: if . < 100000 then "small" elif . < 10000000 then "medium" else "large" end;
# A flow of at most 10 segments of 1448 bytes (with wlgen's 16-byte header)
# fits in Linux's initial window: it can end before any feedback (for
# bpf_flashpass, before any credit).
def first_window: . + 16 <= 14480;
# The machine's CPU between two "cpu" lines of /proc/stat (user nice
# system idle iowait irq softirq steal, in ticks): busy and softirq time
# as shares of all CPUs' time.  The test network's forwarding runs as
# softirqs on the same cores as the senders, the pacer and the samplers,
# so a busy share near 1 says the machine, not the CC, set the rate.
def cpu_use: map(split(" ") | map(select(. != "")) | .[1:9] | map(tonumber))
	| ((.[1] | add) - (.[0] | add)) as $all
	| if $all <= 0 then null else
		{ busy: (1 - ((.[1][3] + .[1][4]) - (.[0][3] + .[0][4])) / $all | r3),
		  softirq: ((.[1][6] - .[0][6]) / $all | r3) } end;
def mode_name: ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"][.] // "?";
# A flow's [absolute time (s), bit/s] per iperf3 interval.
def series: .start_s as $s | [.intervals[] | [.[0] + $s, .[1]]];
def win_mean($a; $b): map(select(.[0] > $a and .[0] <= $b) | .[1]) | mean // 0;
def fairness: if max > 0 then min / max else 0 end;
# slowdown: FCT over the ideal one (wlgen --rtt), where the flows have it
def fct_stats: { n: length, mean_ms: (map(.fct_us / 1000) | mean | r3),
	p50_ms: (map(.fct_us / 1000) | pct(0.5) | r3), p99_ms: (map(.fct_us / 1000) | pct(0.99) | r3) }
	+ (map(select(.ideal_us > 0) | .fct_us / .ideal_us) | if length == 0 then {} else
		{ slowdown_mean: (mean | r3), slowdown_p99: (pct(0.99) | r3) } end);

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
		# bench/run passes the client's launch (epoch ms) as iperf3's
		# extra data; iperf3's own start is in whole seconds, and the
		# flow's first sample (epoch_ms) came at most a sample interval
		# after its connection did.  A flow counts from the latest of
		# these: one that started after its launch (a busy machine; a
		# SYN or the control connection's data lost in a full buffer,
		# resent a second or more later) counted from its launch would
		# run past the span of the run, and its goodput gain that time.
		start_s: ([(.extra_data // empty | tonumber) / 1000, .start.timestamp.timesecs // 0,
			   ($samples | map(.epoch_ms // empty) | min // empty) / 1000
			   - ($m.sample_ms // 0) / 1000] | max),
		goodput_bps: .end.sum_received.bits_per_second,
		bytes: .end.sum_received.bytes,
		secs: .end.sum_received.seconds,
		retrans: (.end.sum_sent.retransmits // 0),
		rtt_ms: { p50: ($samples | map(.rtt_ms) | pct(0.5)), p95: ($samples | map(.rtt_ms) | pct(0.95)),
			  p99: ($samples | map(.rtt_ms) | pct(0.99)) },
		intervals: [.intervals[] | [.sum.end, .sum.bits_per_second]],
		# bbr-modes.bt: the sender's mode changes, times from its first ACK
		modes: ($trace | map(select(.mode != null and (.sport | tostring) == $lport)) | sort_by(.ns)
			| if length == 0 then null else .[0].ns as $m0 | {
				seq: map(.mode | mode_name),
				probe_rtt_s: map(select(.mode == 3) | (.ns - $m0) / 1e9 | r3) } end)
	})) as $flows0
| ($flows0 | map(.start_s) | min // 0) as $t0
| ($flows0 | map(.start_s -= $t0 | .start_s |= r3)) as $flows
| ($wl | map(select(.type == "flow" and .ok))) as $wflows
# a task with a flow that failed, came corrupt or was still open when the
# client stopped has no completion time: counted (workload), not timed
| ($wl | map(select(.type == "task" and .failed == 0))) as $tasks
| ($wl | map(select(.type == "summary"))) as $sums
# Flow workloads: goodput is the bytes of completed flows over the arrival
# span; bulk flows: all bytes over the span from the first start to the last
# end (flows may start apart).
| (if ($sums | length) > 0
   then ($sums | map(if .arrival_span_s > 0 then .bytes * 8 / .arrival_span_s else 0 end) | add)
   elif ($flows | length) == 0 then 0
   else ($flows | map(.start_s + .secs) | max) as $last
	| if $last > 0 then ($flows | map(.bytes) | add) * 8 / $last else 0 end end) as $goodput
| {
	algo: $m.algo, rep: $m.rep,
	flows: $flows,
	goodput_bps: $goodput,
	goodput_fraction: (($goodput / $m.rate_bps / ($m.links // 1)) | r3),
	jain: ($flows | map(.goodput_bps) | jain | r3),
	cpu: (if $m.cpu then $m.cpu | cpu_use else null end),
	# flows of different CCs sharing the bottleneck: each CC's share
	shares: (if ($flows | map(.cc) | unique | length) < 2 then null else
		($flows | map(.goodput_bps) | add) as $all
		| $flows | group_by(.cc) | map({ key: .[0].cc,
			value: ((map(.goodput_bps) | add) / $all | r3) }) | from_entries end),
	# flows starting apart: from the last start on, Jain's index over the
	# overlap and the time until a 2 s window where the smaller flow got
	# >= 80 % of the larger one's throughput
	staggered: (if ($flows | length) < 2 or ($flows | map(.start_s) | max) < 1 then null else
		($flows | map(.start_s) | max) as $t2
		| ($flows | map(series)) as $S
		| ($S | map(last[0] // 0) | min) as $te
		| { second_start_s: $t2,
		    jain_overlap: ($S | map(win_mean($t2; $te)) | jain | r3),
		    converge_s: ([range(0; ([($te - $t2 - 2) * 2, -1] | max | floor) + 1)]
			| map($t2 + . / 2) | map(. as $w | select($S | map(win_mean($w; $w + 2)) | fairness >= 0.8))
			| if length == 0 then null else .[0] + 2 - $t2 | r3 end) } end),
	modes: (if ($flows | map(select(.modes)) | length) == 0 then null else
		($flows | map(select(.modes))[0].modes) as $m
		| { seq: ($m.seq | join(" ")),
		    probe_rtt: ($m.probe_rtt_s | length),
		    probe_rtt_interval_s: ($m.probe_rtt_s | if length < 2 then null
			else [range(1; length) as $i | .[$i] - .[$i - 1]] | mean | r3 end) } end),
	retrans: (($flows | map(.retrans) | add // 0) + ($wl | map(select(.type == "flow") | .retrans // 0) | add // 0)),
	rtt_ms: ($ss | map(select(.acked > 100000) | .rtt_ms) |
		{ p50: pct(0.5), p95: pct(0.95), p99: pct(0.99) }),
	switch: {
		dropped: ($sw | map(.dropped) | add // 0),
		marked: ($sw | map(.marked) | add // 0),
		bytes: ($sw | map(.bytes) | add // 0),
		avg_backlog: ($sw[0].avg_backlog // null),
		max_backlog: ($sw[0].max_backlog // null),
		per_bottleneck: ($sw | map({dev, dropped, marked, avg_backlog, max_backlog})),
		# per traffic class (DSCP), over every bottleneck: class 0 is
		# everything but bpf_flashpass's unscheduled data (class 1); its
		# emulation queue, when configured
		class_dropped: ($sw | map(.classes // [] | map(.dropped)) | transpose | map(add // 0)),
		class_pkts: ($sw | map(.classes // [] | map(.pkts)) | transpose | map(add // 0)),
		# the highest queue a packet of each class joined (older ccloads: null)
		class_max_backlog: ($sw | map(.classes // [] | map(.max_backlog)) | transpose | map(max)),
		emulation: ($sw[0].emulation // null),
		# the emulation queues that saw emulation packets, added up (null:
		# none did; wan3 has one each way of each link, its pairs load one)
		emulation_sum: ($sw | map(.emulation // empty
			| select(.normal.pkts + .normal.dropped + .over_provisioned.pkts + .over_provisioned.dropped > 0))
			| if length == 0 then null else {
			queues: length,
			rate_bps: (map(.rate_bps) | add),
			normal: { pkts: (map(.normal.pkts) | add), dropped: (map(.normal.dropped) | add) },
			over_provisioned: { pkts: (map(.over_provisioned.pkts) | add),
				dropped: (map(.over_provisioned.dropped) | add) } } end)
	},
	elapsed_s: ($m.elapsed_s // null | r3)
}
+ (if ($wl | length) == 0 then {} else {
	fct: ({ all: ($wflows | fct_stats) } + ($wflows | group_by(.size | size_class)
		| map({ key: (.[0].size | size_class), value: fct_stats }) | from_entries)
		+ ($wflows | map(select(.size | first_window))
			| if length == 0 then {} else { first_window: fct_stats } end)),
	tct: (if ($tasks | map(select(.flows > 1)) | length) == 0 then null else
		({ all: ($tasks | map(.fct_us = .tct_us) | fct_stats),
		   # the mean TCT of the fastest 50/75/95 % of tasks (TLDCT's measure)
		   fastest: ($tasks | map(.tct_us / 1000) | sort | . as $t | [0.5, 0.75, 0.95]
			| map({ key: "p\(. * 100 | round)", value: ($t[0:([($t | length) * ., 1] | max | ceil)] | mean | r3) })
			| from_entries),
		   by_kind: ($tasks | group_by(.kind) | map({ key: "\(.[0].kind)",
			value: (map(.fct_us = .tct_us) | fct_stats) }) | from_entries) }
		+ ($tasks | map(.fct_us = .tct_us)
		| group_by(.bytes | size_class) | map({ key: (.[0].bytes | size_class), value: fct_stats })
		| from_entries)) end),
	# (flows that did not complete intact are in no FCT above: counted here)
	workload: { flows: ($sums | map(.flows) | add), completed: ($sums | map(.completed) | add),
		failed: ($sums | map(.failed) | add), corrupt: ($sums | map(.corrupt // 0) | add),
		skipped: ($sums | map(.skipped) | add),
		unfinished: ($sums | map(.unfinished) | add), unstarted: ($sums | map(.unstarted // 0) | add),
		offered_load: ($sums | map(.offered_load) | add | if . then . / ($m.links // 1) | r3 else null end),
		achieved_load: ($sums | map(.achieved_load) | add | if . then . / ($m.links // 1) | r3 else null end),
		tasks_failed: ($wl | map(select(.type == "task" and .failed > 0)) | length) }
} end)
