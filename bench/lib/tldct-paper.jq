# bench/tldct-paper's table (tldct.json): one row per scenario that ran,
# TCT of bpf_dctcp and bpf_tldct, the change, and what the paper reports.
# Input: bench/lib/experiment.sh's {scenarios: {name: result.json}}.
def r1: if . == null then null else (. * 10 | round) / 10 end;
def change($d; $t): if $d == null or $t == null or $d == 0 then null else ($t / $d - 1) * 100 | r1 end;
def paper: {
	"tldct-size-2to5": { mean: -17.5 },
	"tldct-mixed": { p50: -47.0, p75: -34.3, p95: -15.1 } };
# (only the default definition's runs: bench/tldct-paper puts the
# others' in directories named SCENARIO@FORM)
[.scenarios | to_entries[] | select(.key | contains("@") | not) | .value] | map(. as $r | $r.summary.bpf_dctcp as $d | $r.summary.bpf_tldct as $t | {
	scenario: $r.scenario, description: $r.description, runs_each: $d.runs,
	env: ($r.env | del(.scenario_file)),
	tct_mean_ms: { bpf_dctcp: $d.tct_mean_ms, bpf_tldct: $t.tct_mean_ms,
		change_pct: change($d.tct_mean_ms; $t.tct_mean_ms), paper_pct: paper[$r.scenario].mean },
	tct_fastest_ms: ([50, 75, 95] | map("p\(.)") | map(. as $p | { key: $p, value: {
		bpf_dctcp: $d.tct_fastest_ms[$p], bpf_tldct: $t.tct_fastest_ms[$p],
		change_pct: change($d.tct_fastest_ms[$p]; $t.tct_fastest_ms[$p]),
		paper_pct: paper[$r.scenario][$p] } }) | from_entries),
	# mean TCT per task kind ("flows x bytes" before the scale, in
	# wlgen order), where the scenario mixes several
	tct_kinds: ($r.env.scenario_file // "" |
		([scan("(?:^|\\n)scale=([0-9.]+)")[0]] | (.[0] // "1") | tonumber) as $scale |
		[scan("(?:^|\\n)task_mix=([^\\n]*)")[0]] | (.[0] // "") | split(",") |
		if length < 2 then [] else to_entries | map((.key | tostring) as $k | {
			kind: (.value + (if $scale != 1 then " x\($scale)" else "" end)),
			bpf_dctcp: $d.tct_by_kind_ms[$k], bpf_tldct: $t.tct_by_kind_ms[$k],
			change_pct: change($d.tct_by_kind_ms[$k]; $t.tct_by_kind_ms[$k]) }) end),
	drops: { bpf_dctcp: $d.drops, bpf_tldct: $t.drops },
	goodput_mbps: { bpf_dctcp: $d.goodput_mbps, bpf_tldct: $t.goodput_mbps } })
| { kernel: (.[0].env.kernel // null), date: (now | todate), scenarios: . }
