# bench/accuracy: the aggregate-rate item from $n links' iperf3 -J results
# (jq -s).
{ backend: $be, what: "aggregate",
  links: $n, rtt_ms: 20, mbit: (map(.end.sum_received.bits_per_second) | add / 1e6 | . * 10 | round / 10),
  retrans: (map(.end.sum_sent.retransmits) | add) }
