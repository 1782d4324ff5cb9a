# bench/flashpass-paper overprov's table (overprov.md) from its JSON
# (bench/lib/flashpass-dynamic.jq's, kind overprov).
def n: if . == null then "-" else tostring end;
def ms: if . == null or .mean == null then "-" else (.mean | round | tostring)
	+ (if .sd then " ± \(.sd | round)" else "" end) end;
def pct: if . == null then "-" else (. * 100 | round | tostring) + " %" end;
def pct1: if . == null then "-" else (. * 1000 | round / 10 | tostring) + " %" end;
def signed: if . == null then "-" else (. * 100 | round) as $p
	| (if $p > 0 then "+" else "" end) + ($p | tostring) + " %" end;
def x: if . == null or .mean == null then "-" else (.mean * 100 | round / 100 | tostring) end;
def variant: if . == null then "-"
	else { on: "on (the paper's)", nosel: "marking, no selective dropping", off: "off" }[.] // . end;
"### Over-provisioning (`bench/flashpass-paper overprov`)", "",
(if (.dynamic // [] | length) == 0 then "(not run)" else
	(.dynamic[0] | "3-site WAN, links of \(.rate_bps / 1e6) Mbit/s, RTTs \(.base_rtt_ms / 2)/\(.base_rtt_ms * 3 / 4)/\(.base_rtt_ms) ms, buffers \(.buffer_bytes) bytes (\(.buffer_bdp) BDP of the longest path), Poisson arrivals at load \(.load) of flows of 10 to 80 MB x \(.scale) (the paper's sizes at this rate). Over-provisioning: *on*, a finishing flow's emulation packets go on, Not-ECT, once its expected credits cover its demand, and the emulation queue drops those first (above 2 of its 8 packets), the paper's; *marking, no selective dropping*: the same packets, admitted as normal ones (`fp_emu_over=8`); *off*: a flow sends no emulation packet its demand does not need (`ccload flashpass run --no-over-provision`). Each row the runs of one CC in one `bench/run` (run `pacer`: bpf_flashpass on the pacer's releases, the default; run `loop`: on the kernel's credit loop); cubic and bbr ran beside the pacer's *on*. FCTs in ms of the flows that completed, mean over runs ± their sd; vs on: against the same run kind with over-provisioning on; credits wasted: of the credits that came, those no segment used; emulation: what the emulation queues passed, Mbit/s a queue over the run and its share of their rate; over-provisioned: Not-ECT emulation packets the queues passed / dropped; drops: data frames dropped at the switches, class 0 / 1 as in the dynamic table; not completed: flows failed, corrupt or still open at the end, in no FCT; fallbacks: bpf_flashpass flows that ran out of credits and on as Reno."), "",
	"| run | over-provisioning | CC | runs | flows | FCT | vs on | vs cubic | FCT p99 | credits wasted | emulation Mbit/s (share) | over-provisioned passed / dropped | normal emulation dropped | drops 0 / 1 | achieved load | not completed | fallbacks | CPU busy |",
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
	(.dynamic[] | . as $d | .algos | to_entries[] | .key as $a | .value |
		"| \($d.path) | \(if $a == "bpf_flashpass" then $d.variant | variant else "-" end) | \($a) | \(.runs) | \(.flows) | \(.fct_ms | ms) | \(.fct_vs_on | signed) | \(.fct_vs_cubic | signed) | \(.fct_p99_ms | ms) | \(.credits_wasted.mean | pct1) | \(if $a == "bpf_flashpass" then "\(.emu_mbps | x) (\(.emu_share.mean | pct))" else "-" end) | \(if $a == "bpf_flashpass" then "\(.emu_over_pkts | n) / \(.emu_over_dropped | n)" else "-" end) | \(if $a == "bpf_flashpass" then .emu_normal_dropped | n else "-" end) | \(.class0_drops | n) / \(.class1_drops | n) | \(.achieved_load | x) | \(.not_completed | n) | \(.fallbacks | n) | \(.cpu_busy.mean | pct) |")
end)
