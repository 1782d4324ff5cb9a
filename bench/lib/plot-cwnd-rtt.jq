# bench/lib/plot: "t_s cwnd rtt_ms" lines of every data flow (one that had
# over 100 KB acked) in a run's flow samples (jq -s), a block per flow.
group_by(.flow) | map(select((map(.acked) | max) > 100000))
| .[] | "# \(.[0].flow)", (.[] | "\(.t_ms / 1000) \(.cwnd) \(.rtt_ms)"), "", ""
