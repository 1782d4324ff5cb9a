# The data queue's peak around a join (flashpass-crash-join-*): from 0.9 s
# to 1.3 s after the first queued packet (the first flow's), which holds
# the second flow's start 1 s after the first's and its first RTTs of
# credits.  Input: one run's queue samples (ccload switch stats
# --interval), slurped.  The per-packet peak (max_backlog, a running
# maximum) when it rose in the window, else the highest 1 ms sample in it.
(map(select(.backlog > 0))[0].t_ms // null) as $t0
| if $t0 == null then null
  else map(select(.t_ms >= $t0 + 900 and .t_ms <= $t0 + 1300)) as $w
  | if ($w | length) == 0 then null
    elif $w[-1].max_backlog > $w[0].max_backlog then $w[-1].max_backlog
    else $w | map(.backlog) | max end
  end
