# bench/ppqd-paper: a scale-MP run's line of runs.jsonl (jq -n).
{ case: $case, kind: "scale", mp: $mp, rep: $rep, wired_ms: $wired, conns: $n, conns_open: $open,
  entries_live: $table.n, members_live: $table.subs, subflows_live: $subs, entries_after: $after,
  sockets_left: $left, verified_2_subflows: $ok }
