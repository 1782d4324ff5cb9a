# bench/lib/plot: "algo rtt_p50_ms Mbit/s" of every run in result.json.
.runs[] | select(.rtt_ms.p50 != null) | "\(.algo) \(.rtt_ms.p50) \(.goodput_bps / 1e6)"
