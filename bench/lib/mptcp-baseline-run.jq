# bench/mptcp-baseline: one run's line of runs.jsonl (jq -n).  $got is
# bulkflows.py recv's bytes per source address, $f and $t are F's and
# T's addresses ($f2 F's second address, or ""), $fs and $ts their
# sockets (ss).  An MPTCP connection's bytes count under its first
# subflow's address; router-tcp2's F is two flows, one from each.
{ case: $case, rep: $rep, warm_s: $warm, time_s: $time,
  f_bytes: (if $case != "router-tcp2" then $got[$f]
            elif $got[$f] and $got[$f2] then $got[$f] + $got[$f2] else null end),
  t_bytes: $got[$t], f_sockets: $fs, t_sockets: $ts, drops: $drops }
