# bench/flashpass-paper coexist's table (coexist.md) from its coexist.json.
def n: if . == null then "-" else tostring end;
def pct: if . == null or .mean == null then "-" else (.mean * 1000 | round / 10 | tostring) + " %"
	+ (if .sd then " ± \(.sd * 1000 | round / 10)" else "" end) end;
"### bpf_flashpass beside cubic (`bench/flashpass-paper coexist`)", "",
(if (.coexist // [] | length) == 0 then "(not run)" else
	"Two bpf_flashpass and two cubic bulk flows on one bottleneck, alternating, one `bench/run` per buffer size and switch; means over the runs ± their sd.  Yields: the switch's emulation gives up the share of the link cubic's data took, down to the % given of its rate (`fp_emu_keep`, `ccload switch --emu-keep`); no: it never yields, as in the paper.  Shares: of the flows' goodput.  Drops: frames the switch dropped of bpf_flashpass's scheduled data (its own class), its unscheduled data, and cubic's, with their rates.", "",
	"| yields | buffer | BDP | runs | bpf_flashpass share | cubic share | link used | scheduled drops (rate) | unscheduled drops | cubic drops (rate) | credits wasted |",
	"|---|---|---|---|---|---|---|---|---|---|---|",
	(.coexist[] | "| \(if .keep_pct then "to \(.keep_pct) %" else "no" end) | \(.buffer_bytes) | \(.buffer_bdp) | \(.runs) | \(.share.bpf_flashpass | pct) | \(.share.cubic | pct) | \(.utilization | pct) | \(.scheduled_drops | n) (\(.scheduled_drop_rate | pct)) | \(.unscheduled_drops | n) | \(.cubic_drops | n) (\(.cubic_drop_rate | pct)) | \(.credits_wasted | pct) |")
end)
