# bench/flashpass-pacer's table (markdown) from its result.json (jq -r).
"| link | flows | emulation packets/s (peak) | pacer CPU per packet | pacer CPU share | goodput | scheduled dropped |",
"|---|---|---|---|---|---|---|",
(.runs[] | "| \(.rate) | \(.flows) | \(.peak_pps) | \(.ns_per_packet / 1000) us | \(.pacer_cpu_share * 100 | round) % | \(.goodput_mbps) Mbit/s | \(.sched_dropped) of \(.sched_passed + .sched_dropped) |")
