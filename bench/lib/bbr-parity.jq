# bench/bbr-parity's table (parity.json): one row per metric, native and
# BPF value, their ratio, the tolerance and whether it holds (null: reported
# only, no tolerance in the issue).  Input: bench/lib/experiment.sh's
# {scenarios: {name: result.json}, cpucost}.
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def fabs_: if . < 0 then -. else . end;
def ratio($n; $b): if $n == null or $b == null or $n == 0 then null else $b / $n | r3 end;
def within($lo; $hi): { metric: .[0], native: .[1], bpf: .[2], ratio: ratio(.[1]; .[2]),
	tolerance: "\($lo)..\($hi) x",
	pass: (ratio(.[1]; .[2]) as $r | $r != null and $r >= $lo and $r <= $hi) };
def report: { metric: .[0], native: .[1], bpf: .[2], ratio: ratio(.[1]; .[2]),
	tolerance: null, pass: null };
def retrans_row($n; $b): { metric: "retransmissions", native: $n, bpf: $b, ratio: ratio($n; $b),
	tolerance: "20 % or 10", pass: (($b - $n | fabs_) as $d | $d <= 10 or $d <= 0.2 * $n) };
def short: split(" ") | map({ STARTUP: "S", DRAIN: "D", PROBE_BW: "BW", PROBE_RTT: "RTT" }[.] // .) | join(">");
# The mode pattern: STARTUP, DRAIN, PROBE_BW, then PROBE_RTT and
# PROBE_BW in turn.  DRAIN is left out of the comparison: one that ends
# on the ACK that began it is not seen by tcp_probe (it fires before
# the ACK is processed), for either CC.  How many PROBE_RTT visits a run
# has depends on the path: a lower RTT sample refreshes min_rtt and
# postpones PROBE_RTT by design, and the 1 ms ticks of the VDE backend make
# such samples at random; so visits may differ by one.
def nodrain: map(select(. != "DRAIN"));
def pattern_ok: nodrain | .[0:2] == ["STARTUP", "PROBE_BW"] and
	([range(2; length) as $i | .[$i] == (if $i % 2 == 0 then "PROBE_RTT" else "PROBE_BW" end)] | all);
def visits: map(select(. == "PROBE_RTT")) | length;
def seqs($r; $k): [$r.runs[] | select(.algo == $k) | .flows[0].modes.seq // []];
def mean: if length == 0 then 0 else add / length end;
def modes_row($r; $nk; $bk): seqs($r; $nk) as $N | seqs($r; $bk) as $B | {
	metric: "mode sequence, first flow (every run)",
	native: ($N | map(join(" ") | short) | unique | join("; ")),
	bpf: ($B | map(join(" ") | short) | unique | join("; ")), ratio: null,
	tolerance: "same pattern, PROBE_RTT visits +-1",
	pass: (($N + $B | length) > 0 and ($N + $B | map(pattern_ok) | all) and
		(($N | map(visits) | mean) - ($B | map(visits) | mean) | fabs_ <= 1)) };
def common($r; $nk; $bk): $r.summary[$nk] as $n | $r.summary[$bk] as $b | [
	(["goodput (Mbit/s)", $n.goodput_mbps, $b.goodput_mbps] | within(0.95; 1.05)),
	(["median RTT (ms)", $n.rtt_p50_ms, $b.rtt_p50_ms] | within(0.9; 1.1)),
	(["p95 RTT (ms)", $n.rtt_p95_ms, $b.rtt_p95_ms] | report),
	retrans_row($n.retrans; $b.retrans),
	(["drops at the switch", $n.drops, $b.drops] | report),
	modes_row($r; $nk; $bk) ];
def scen($r; $nk; $bk; $extra): { name: $r.scenario, description: $r.description,
	runs_each: $r.summary[$nk].runs, env: $r.env | del(.scenario_file),
	rows: (common($r; $nk; $bk) + $extra) };
.cpucost as $cpu | .scenarios
| .["bbr-seed-10m-250ms"] as $s | .["bbr-parity-100m"] as $p | .["bbr-converge"] as $c
| .["bbr-vs-cubic"] as $m
| { kernel: $s.env.kernel, delay_backend: $s.env.delay_backend, date: (now | todate),
    scenarios: [
	scen($s; "bbr"; "bpf_bbr"; [
		(["PROBE_RTT visits, first flow", $s.summary.bbr.probe_rtt, $s.summary.bpf_bbr.probe_rtt] | report),
		(["PROBE_RTT interval (s)", $s.summary.bbr.probe_rtt_interval_s, $s.summary.bpf_bbr.probe_rtt_interval_s] | report) ]),
	scen($p; "bbr"; "bpf_bbr"; []),
	scen($c; "bbr"; "bpf_bbr"; [
		(["convergence time (s)", $c.summary.bbr.converge_s, $c.summary.bpf_bbr.converge_s] | report),
		(["Jain index while both run", $c.summary.bbr.jain_overlap, $c.summary.bpf_bbr.jain_overlap] | report) ]),
	scen($m; "bbr,cubic"; "bpf_bbr,cubic"; [
		(["BBR flow share", $m.summary["bbr,cubic"].shares.bbr, $m.summary["bpf_bbr,cubic"].shares.bpf_bbr] | within(0.95; 1.05)),
		(["cubic flow share", $m.summary["bbr,cubic"].shares.cubic, $m.summary["bpf_bbr,cubic"].shares.cubic] | report) ])
    ],
    cpucost: (if $cpu == null then null else $cpu.pairs | map({ path, native_gbit_per_cpu_s: (.native_gbit_per_cpu_s | r3),
	bpf_gbit_per_cpu_s: (.suite_gbit_per_cpu_s | r3), ratio: (.ratio | r3), ratio_lo: (.lo | r3),
	ratio_hi: (.hi | r3), goal: ">= 0.98", pass: (.ratio >= 0.98), bpf_ns_per_call: (.bpf_ns_per_call | r3) }) end) }
| .pass = ([.scenarios[].rows[].pass, (.cpucost // [])[].pass] | map(select(. != null)) | all)

