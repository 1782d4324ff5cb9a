# bench/cpucost's results from env.json and its runs (jq -s, env first):
# per pair the median of the per-round ratios of Gbit per CPU-second with
# a 95 % bootstrap interval, per CC its rate, per callback ns and calls per MB.
def tq($df):
	[12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042] as $t
	| if $df < 1 then null elif $df <= 30 then $t[$df - 1] else 1.96 + 2.4 / $df end;
def mean: if length > 0 then add / length else null end;
def sd: mean as $m | if length > 1 then (map(($m - .) * ($m - .)) | add) / (length - 1) | sqrt else null end;
def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def r3: if . == null then null else . * 1000 | round / 1000 end;
# a slice [round, cc, bytes, wall_ns, cpu_ns]: Gbit per CPU-second
def rate: .[2] * 8 / .[4];
# one ccost run as [{cc: rate}] per round
def by_round: .ccost as $c
	| [$c.slices[] | { r: .[0], cc: $c.ccs[.[1]], v: rate }] | group_by(.r)
	| map(map({ key: .cc, value: .v }) | from_entries);
# Park-Miller, exact in jq's doubles
def next_rand: (. * 16807) % 2147483647;
# the median's 95 % percentile bootstrap interval: 1000 resamples from a
# fixed seed, so the same runs give the same report
def boot_median: . as $x | length as $n
	| if $n < 2 then { lo: null, hi: null } else
	  reduce range(1000) as $b ({ seed: 42, m: [] };
		.pick = [] | reduce range($n) as $i (.; .seed |= next_rand | .pick += [$x[.seed % $n]])
		| .m += [.pick | median])
	  | .m | sort | { lo: .[25], hi: .[974] } end;
# the per-round ratios: median with its bootstrap interval (robust to a
# round where one CC's flow was restarting), mean with its t interval
def ratio_of($s; $b): [by_round[] | select(.[$s] > 0 and .[$b] > 0) | .[$s] / .[$b]] as $x
	| { n: ($x | length), ratio: ($x | median), mean: ($x | mean), sd: ($x | sd) }
	+ ($x | boot_median)
	| .t_ci = (if .n > 1 then tq(.n - 1) * .sd / (.n | sqrt) else null end);
def per_cc: .ccost as $c
	| [range(0; $c.ccs | length) as $i | { cc: $c.ccs[$i], s: [$c.slices[] | select(.[1] == $i)] }]
	| map({ key: .cc, value: {
		slices: (.s | length),
		gbit_per_cpu_s: (.s | map(rate) | median),
		gbps: (.s | map(.[2] * 8 / .[3]) | mean),
		cpu_busy: (.s | map(.[4] / .[3]) | mean),
		mb: (.s | map(.[2]) | add / 1e6),
		cpu_s: (.s | map(.[4]) | add / 1e9) } })
	| from_entries;
# a bpf_stats run: each program's calls and ns
def callbacks: . as $run | per_cc as $sum
	| [$run.progs[] | . as $p
	   | ($run.before[$p.id | tostring] // [0, 0]) as $a | ($run.after[$p.id | tostring] // [0, 0]) as $b
	   | { cc: $p.cc, prog: $p.name, calls: ($b[1] - $a[1]), ns: ($b[0] - $a[0]) }
	   | select(.calls > 0)
	   | .ns_per_call = (.ns / .calls) | .calls_per_mb = (.calls / $sum[.cc].mb)
	   | .share = (.ns / 1e9 / $sum[.cc].cpu_s)];
# the goal is for a suite CC against its own twin (bpf_X, twin_X)
def is_twin($s; $b): ($s | startswith("bpf_")) and $b == "twin_" + ($s | ltrimstr("bpf_"));

.[0] as $env | .[1:] as $runs
| [$runs[] | select(.kind == "calls") | { key: .path, value: callbacks }] | from_entries as $calls
| { kernel: $env.kernel, date: $env.date, cpu: $env.cpu, native_dctcp: $env.native_dctcp,
    slice_ms: ($runs[0].ccost.slice_ns / 1e6), warm_ms: ($runs[0].ccost.warm_ns / 1e6),
    pairs: [$runs[] | select(.kind == "cost") as $run | $env.pairs[] | . as [$s, $b]
	| ($run | per_cc) as $cc
	| ($calls[$run.path] // [] | map(select(.cc == $s))) as $cb
	| { path: $run.path, suite: $s, native: $b, twin: is_twin($s; $b),
	    suite_gbit_per_cpu_s: $cc[$s].gbit_per_cpu_s, native_gbit_per_cpu_s: $cc[$b].gbit_per_cpu_s,
	    bpf_ns_per_call: (if ($cb | length) > 0 then ($cb | map(.ns) | add) / ($cb | map(.calls) | add) else null end) }
	+ ($run | ratio_of($s; $b))
	| .goal = (if .twin then 0.98 else null end)
	| .pass = (if .twin then .ratio >= 0.98 else null end)],
    ccs: [$runs[] | select(.kind == "cost") | { key: .path, value: per_cc }] | from_entries,
    callbacks: $calls,
    scale: [$runs[] | select(.kind == "scale") | . as $run | per_cc as $cc
	| { flows: .flows, tldct_gbit_per_cpu_s: $cc.bpf_tldct.gbit_per_cpu_s,
	    twin_gbit_per_cpu_s: $cc.twin_dctcp.gbit_per_cpu_s,
	    native_gbit_per_cpu_s: $cc.reno.gbit_per_cpu_s, maps: .maps }
	+ ($run | ratio_of("bpf_tldct"; "twin_dctcp"))
	+ { native: ($run | ratio_of("bpf_tldct"; "reno")) }],
    calls_scale: ([$runs[] | select(.kind == "calls-scale") | callbacks] | first) }
| .pass = ([.pairs[].pass | select(. != null)] | all)
