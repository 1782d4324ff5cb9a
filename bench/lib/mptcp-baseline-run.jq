# bench/mptcp-baseline: one run's line of runs.jsonl (jq -n).  $got is
# bulkflows.py recv's bytes per source address, $f and $t are F's and
# T's addresses, $fs and $ts their sockets (ss).
{ case: $case, rep: $rep, warm_s: $warm, time_s: $time,
  f_bytes: $got[$f], t_bytes: $got[$t], f_sockets: $fs, t_sockets: $ts, drops: $drops }
