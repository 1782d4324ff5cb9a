# bench/tldct-paper's definitions table (tldct-forms.json): for each
# scenario and each definition of bpf_tldct that ran (form, floor_dctcp),
# mean TCT and the mean TCT of the fastest 50/75/95 % of tasks beside
# bpf_dctcp's in the same repetitions.  A change is given twice: of the
# means over repetitions, and per repetition (tldct's run over dctcp's
# of the same repetition: mean, sample sd, min, max), so a difference
# can be read against the run-to-run spread.
# Input: bench/lib/experiment.sh's {scenarios: {dir: result.json}}, a
# directory SCENARIO (the default definition, product) or SCENARIO@FORM.
def r1: if . == null then null else (. * 10 | round) / 10 end;
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def mean: if length == 0 then null else add / length end;
def sd: if length < 2 then null else mean as $m | (map((. - $m) * (. - $m)) | add) / (length - 1) | sqrt end;
def change($d; $t): if $d == null or $t == null or $d == 0 then null else ($t / $d - 1) * 100 end;
def order: ["product", "exp_inv", "exp", "beta", "gamma"];
# a definition FORM[+floor][+left][+l2dct]: by form, then its modifiers
def form_rank: split("+") as $p | (order | index($p[0])) * 8 +
	([$p[1:][] | { floor: 1, left: 2, l2dct: 4 }[.] // 0] | add // 0);
# the measure at PATH of runs of ALGO, by repetition
def by_rep($runs; $algo; $path):
	[$runs[] | select(.algo == $algo) | { key: (.rep | tostring), value: getpath($path) }] | from_entries;
def measure($runs; $path):
	by_rep($runs; "bpf_dctcp"; $path) as $d | by_rep($runs; "bpf_tldct"; $path) as $t |
	[$d | keys[] | select($t[.] != null and $d[.] != null) | change($d[.]; $t[.]) | select(. != null)] as $c |
	{ bpf_dctcp: ([$d[] | select(. != null)] | mean | r3), bpf_tldct: ([$t[] | select(. != null)] | mean | r3) } |
	.change_pct = (change(.bpf_dctcp; .bpf_tldct) | r1) |
	.per_rep_pct = { n: ($c | length), mean: ($c | mean | r1), sd: ($c | sd | r1),
		min: ($c | min | r1), max: ($c | max | r1) };
# tasks in flight on average (Little's law: the tasks' summed TCT over the
# time they arrived in, the scenario's duration), and the machine's busy
# share, per CC
def per_cc($runs; f): [$runs | group_by(.algo)[] | { key: .[0].algo,
	value: (map(try f catch null | select(. != null)) | mean | r3) }] | from_entries;
[.scenarios | to_entries[] | (.key | split("@")) as $k | .value as $r | {
	scenario: $k[0], form: ($k[1] // "product"), scale: ($k[2] // "testbed"),
	description: $r.description,
	runs_each: ($r.summary.bpf_dctcp.runs // 0),
	reseed: ($r.env.reseed // false),
	env: ($r.env | del(.scenario_file)),
	tct_mean_ms: measure($r.runs; ["tct", "all", "mean_ms"]),
	tct_fastest_ms: ([50, 75, 95] | map("p\(.)") | map(. as $p |
		{ key: $p, value: measure($r.runs; ["tct", "fastest", $p]) }) | from_entries),
	drops: { bpf_dctcp: $r.summary.bpf_dctcp.drops, bpf_tldct: $r.summary.bpf_tldct.drops },
	tasks_in_flight: per_cc($r.runs; .tct.all.n * .tct.all.mean_ms / 1000 / $r.env.duration_s),
	achieved_load: per_cc($r.runs; .workload.achieved_load),
	cpu_busy: per_cc($r.runs; .cpu.busy) }]
# the paper's order: size, tail, mixed
| sort_by((if .scale == "testbed" then 0 else 1 end), .scenario as $s | (["tldct-size-1to5", "tldct-size-2to5", "tldct-size-1to1", "tldct-tail-20", "tldct-tail-50",
	"tldct-tail-100", "tldct-mixed"] | index($s) // 99), .scenario, (.form | form_rank))
| { kernel: (.[0].env.kernel // null), date: (now | todate), rows: . }
