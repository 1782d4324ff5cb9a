# bench/run's line about one run, from its metrics.json (jq -r); $t is
# the seconds it took.
"\($t)s: goodput \((.goodput_bps / 1e6 * 10 | round) / 10) Mbit/s, retrans \(.retrans), drops \(.switch.dropped), marks \(.switch.marked), rtt p50 \(.rtt_ms.p50 // "-") ms"
	+ (if .cpu then ", CPU \(.cpu.busy * 100 | round) % busy (softirq \(.cpu.softirq * 100 | round) %)" else "" end) + (if .fct then ", fct mean \(.fct.all.mean_ms) ms" else "" end)
	+ (if .shares then ", shares \(.shares | tojson)" else "" end)
	+ (if .staggered then ", converged in \(.staggered.converge_s // "-") s, jain over the overlap \(.staggered.jain_overlap)" else "" end)
	+ (if .modes then ", modes \(.modes.seq | split(" ") | .[0:4] | join(">"))..., PROBE_RTT x\(.modes.probe_rtt)" else "" end)
