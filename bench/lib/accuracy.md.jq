# bench/accuracy's tables (markdown) from its accuracy.json (jq -r).
[.items[] | select(.what == "udp_loss")] as $u
| "Kernel \(.kernel), \(.date).",
"",
"| backend | bottleneck rate: configured -> measured (wire) | error |",
"|---|---|---|",
(.items[] | select(.what == "rate") | "| \(.backend) | \(.configured_mbit) -> \(.measured_mbit) Mbit/s | \(.error_pct) % |"),
"",
"| backend | base RTT configured | measured mean | min | p99 | jitter (sd) | ping loss | UDP at 50 Mbit/s lost |",
"|---|---|---|---|---|---|---|---|",
(.items[] | select(.what == "rtt") | . as $r
	| ($u | map(select(.backend == $r.backend and .rtt_ms == $r.configured_ms)) | .[0]) as $l
	| "| \(.backend) | \(.configured_ms) ms | \(.mean_ms) ms | \(.min_ms) | \(.p99_ms) | \(.jitter_sd_ms) ms | \(.ping_loss) | \($l.lost // "-") of \($l.packets // "-") |"),
"",
"| backend | delayed links (20 ms RTT each) | highest aggregate rate | retransmissions |",
"|---|---|---|---|",
(.items[] | select(.what == "aggregate") | "| \(.backend) | \(.links) | \(.mbit) Mbit/s | \(.retrans) |"),
"",
"| backend | CC | runs | mean goodput | spread (max - min) | median RTT | beyond base RTT + mean queueing |",
"|---|---|---|---|---|---|---|",
(.items[] | select(.what == "repeatability") | "| \(.backend) | \(.algo) | \(.runs) | \(.goodput_mbps) Mbit/s | \(.spread_mbps) Mbit/s | \(.rtt_p50_ms) ms | \(.extra_ms) ms |"),
(.items[] | select(.what == "available" and .value == false) | "\n\(.backend): not measured here (\(.note)).")
