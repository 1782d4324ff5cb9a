# bench/ppqd-paper: a flowsample file (jq -s) reduced to a's subflows, the
# one from $a1 (subflow 1) and the one from $a2 (2): each sample as
# {t_ms, sub, cwnd, rtt_ms, acked}.
[ .[] | select(.flow | startswith($a1 + ":") or startswith($a2 + ":"))
  | { t_ms, sub: (if (.flow | startswith($a1 + ":")) then 1 else 2 end), cwnd, rtt_ms, acked } ]
