# bench/ppqd-paper: a shared-MP-TCP run's line of runs.jsonl (jq -n), from
# the MPTCP client's tcpxfer report ($m), the TCP one's ($t), the wired
# link's delay ($wired) and the MPTCP CC's counters over the run (after $a
# less before $b; {} for a kernel CC).
{ case: $case, kind: "shared", mp: ($m[0].cc), tcp: ($t[0].cc), wired_ms: $wired,
  rep: $rep, mp_flow: $m[0], tcp_flow: $t[0],
  stats: ($a | with_entries(.value -= ($b[.key] // 0))) }
