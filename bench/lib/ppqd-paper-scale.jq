# bench/ppqd-paper: a scale-MP run's line of runs.jsonl (jq -n).
{ case: $case, kind: "scale", mp: $mp, rep: $rep, wired_ms: $wired, conns: $n, entries_live: $live,
  subflows_live: $subs, entries_after: $after, verified_2_subflows: $ok }
