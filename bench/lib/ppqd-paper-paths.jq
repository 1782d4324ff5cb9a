# bench/ppqd-paper: a paths-MP run's line of runs.jsonl (jq -n): the
# client's tcpxfer report ($m), the subflows' series, when the loss burst
# began, the wired link's delay, and the CC's counters over the run
# (after $a less before $b).
{ case: $case, kind: "paths", mp: ($m[0].cc), rep: $rep, mp_flow: $m[0], wired_ms: $wired,
  burst_ms: $burst, series: $series,
  stats: ($a | with_entries(.value -= ($b[.key] // 0))) }
