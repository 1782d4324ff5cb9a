# bench/ppqd-paper: a shared-MP-TCP run's line of runs.jsonl (jq -n), from
# the MPTCP client's tcpxfer report ($m) and the TCP one's ($t).
{ case: $case, kind: "shared", mp: ($m[0].cc), tcp: ($t[0].cc),
  rep: $rep, mp_flow: $m[0], tcp_flow: $t[0] }
