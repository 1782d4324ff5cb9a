# bench/demo: a CC's row, "CC Mbit/s retrans drops marks avg_q_KB max_q_KB
# srtt_ms", from its two flows' iperf3 -J results (jq -s) and the switch's
# counters ($sw).
[ (map(.end.sum_received.bits_per_second) | add / 1e6),
  (map(.end.sum_sent.retransmits) | add),
  $sw.dropped, $sw.marked, ($sw.avg_backlog / 1024), ($sw.max_backlog / 1024),
  (map(.end.streams[0].sender.mean_rtt) | add / length / 1000) ] as $v
| "\($cc) \($v | map(tostring) | join(" "))"
