# bench/accuracy: the UDP loss item from an iperf3 -u -J result (50 Mbit/s
# on a path of $d ms each way).
{ backend: $be, what: "udp_loss",
  rtt_ms: (2 * $d), rate_mbit: 50, lost: .end.sum.lost_packets,
  packets: .end.sum.packets, lost_pct: .end.sum.lost_percent }
