# bench/flashpass-pacer's table (markdown) from its result.json (jq -r).
# (the peak counts every send: with release, the releases too; the CPU is
# per emulation packet, its release's cost in it)
"| link | flows | packets sent/s (peak) | pacer CPU per emulation packet | pacer CPU share | goodput | scheduled dropped |",
"|---|---|---|---|---|---|---|",
(.runs[] | "| \(.rate) | \(.flows) | \(.peak_pps) | \(.ns_per_packet / 1000) us | \(.pacer_cpu_share * 100 | round) % | \(.goodput_mbps) Mbit/s | \(.sched_dropped) of \(.sched_passed + .sched_dropped) |")
