# bench/flashpass-paper coexist's table (coexist.md) from its coexist.json.
def n: if . == null then "-" else tostring end;
def pct: if . == null or .mean == null then "-" else (.mean * 1000 | round / 10 | tostring) + " %"
	+ (if .sd then " ± \(.sd * 1000 | round / 10)" else "" end) end;
"### bpf_flashpass beside cubic (`bench/flashpass-paper coexist`)", "",
(if (.coexist // [] | length) == 0 then "(not run)" else
	"Two bpf_flashpass and two cubic bulk flows on one bottleneck, alternating, one `bench/run` per buffer size; means over the runs ± their sd.  Shares: of the flows' goodput.  Drops: frames the switch dropped of bpf_flashpass's scheduled data (its own class), its unscheduled data, and cubic's, with their rates.", "",
	"| buffer | BDP | runs | bpf_flashpass share | cubic share | link used | scheduled drops (rate) | unscheduled drops | cubic drops (rate) | credits wasted |",
	"|---|---|---|---|---|---|---|---|---|---|",
	(.coexist[] | "| \(.buffer_bytes) | \(.buffer_bdp) | \(.runs) | \(.share.bpf_flashpass | pct) | \(.share.cubic | pct) | \(.utilization | pct) | \(.scheduled_drops | n) (\(.scheduled_drop_rate | pct)) | \(.unscheduled_drops | n) | \(.cubic_drops | n) (\(.cubic_drop_rate | pct)) | \(.credits_wasted | pct) |")
end)
