# tldct.json as the markdown table its result page shows.
def v: if . == null then "-" else tostring end;
def pct: if . == null then "-" else (if . > 0 then "+" else "" end) + tostring + " %" end;
"kernel \(.kernel), \(.date)\n",
"| scenario | measure | bpf_dctcp (ms) | bpf_tldct (ms) | change | paper | drops (dctcp / tldct) |",
"|---|---|---|---|---|---|---|",
(.scenarios[] | . as $s |
	"| \(.scenario) (\(.runs_each) runs each) | mean TCT | \(.tct_mean_ms.bpf_dctcp | v) | \(.tct_mean_ms.bpf_tldct | v) | \(.tct_mean_ms.change_pct | pct) | \(.tct_mean_ms.paper_pct | pct) | \(.drops.bpf_dctcp | v) / \(.drops.bpf_tldct | v) |",
	(if .scenario == "tldct-mixed" then
		(.tct_fastest_ms | to_entries[] | "| | mean TCT, fastest \(.key[1:]) % | \(.value.bpf_dctcp | v) | \(.value.bpf_tldct | v) | \(.value.change_pct | pct) | \(.value.paper_pct | pct) | |")
	else empty end),
	(.tct_kinds[] | "| | mean TCT, tasks of \(.kind) | \(.bpf_dctcp | v) | \(.bpf_tldct | v) | \(.change_pct | pct) | - | |"))
