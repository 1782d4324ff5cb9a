# bench/backend-xcheck's xcheck.md from xcheck.json (jq -r).
def v: if . == null then "-" else tostring end;
"\(.description)",
"vde: kernel \(.vde.kernel); netem: kernel \(.netem.kernel); \(.date)\n",
"| CC | backend | goodput (Mbit/s) | RTT p50 (ms) | RTT p95 (ms) | retrans | switch drops | Jain |",
"|---|---|---|---|---|---|---|---|",
(.algos[] | . as $a | ("vde", "netem") as $b | $a[$b] |
	"| \($a.algo) (\($a.runs_each) runs) | \($b) | \(.goodput_mbps | v) | \(.rtt_p50_ms | v) | \(.rtt_p95_ms | v) | \(.retrans | v) | \(.drops | v) | \(.jain | v) |"),
"",
"| CC | netem / vde: goodput | RTT p50 | RTT p95 |",
"|---|---|---|---|",
(.algos[] | "| \(.algo) | \(.netem_over_vde.goodput | v) | \(.netem_over_vde.rtt_p50 | v) | \(.netem_over_vde.rtt_p95 | v) |")
