# tldct-forms.json as the markdown table its result page shows: a row
# per scenario and definition; each change is bpf_tldct's over
# bpf_dctcp's of the means, then per repetition its mean +- sd (min and
# max in the JSON).
def v: if . == null then "-" else tostring end;
def signed: if . == null then "-" else (if . > 0 then "+" else "" end) + tostring end;
def ch: if .change_pct == null then "-" else "\(.change_pct | signed) % (\(.per_rep_pct | "\(.mean | signed) ± \(.sd | v)"))" end;
"kernel \(.kernel), \(.date)\n",
"| scenario | scale | definition | runs | mean TCT, dctcp -> tldct (ms) | change | fastest 50 % | fastest 75 % | fastest 95 % | drops (dctcp / tldct) | tasks in flight, load, CPU busy (dctcp) |",
"|---|---|---|---|---|---|---|---|---|---|---|",
(.rows[] |
	"| \(.scenario)\(if .reseed then " (reseeded)" else "" end) | \(.scale) | \(.form) | \(.runs_each) | \(.tct_mean_ms.bpf_dctcp | v) -> \(.tct_mean_ms.bpf_tldct | v) | \(.tct_mean_ms | ch) | \(.tct_fastest_ms.p50 | ch) | \(.tct_fastest_ms.p75 | ch) | \(.tct_fastest_ms.p95 | ch) | \(.drops.bpf_dctcp | v) / \(.drops.bpf_tldct | v) | \(.tasks_in_flight.bpf_dctcp | v), \(.achieved_load.bpf_dctcp | v), \(.cpu_busy.bpf_dctcp | v) |")
