# bench/run's summary, a line per algorithm, from result.json (jq -r).
.summary | to_entries[] | "   \(.key | .[0:22] | . + " " * (22 - length)) goodput \(.value.goodput_mbps) Mbit/s  jain \(.value.jain)  retrans \(.value.retrans)  drops \(.value.drops)  rtt p50 \(.value.rtt_p50_ms) ms" + (if .value.fct_mean_ms then "  fct mean \(.value.fct_mean_ms) ms" else "" end)
	+ (if .value.shares then "  shares \(.value.shares | tojson)" else "" end)
	+ (if .value.converge_s then "  converged in \(.value.converge_s) s" else "" end)
	+ (if .value.probe_rtt then "  PROBE_RTT x\(.value.probe_rtt)" else "" end)
	+ (if .value.tct_mean_ms then "  tct mean \(.value.tct_mean_ms) ms, fastest 50/75/95 % \(.value.tct_fastest_ms | [.p50, .p75, .p95] | map(tostring) | join("/")) ms" else "" end)
