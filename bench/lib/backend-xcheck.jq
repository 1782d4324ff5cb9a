# bench/backend-xcheck's xcheck.json (jq -n): the host's run on VDE ($v)
# and the 6.1 guest's on netem ($n), per CC side by side with netem / vde.
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
def ratio($a; $b): if $a == null or $b == null or $a == 0 then null else ($b / $a | r3) end;
def side($r): { kernel: $r.env.kernel, delay_backend: $r.env.delay_backend };
{ scenario: $v[0].scenario, description: $v[0].description, date: (now | todate),
  vde: side($v[0]), netem: side($n[0]),
  algos: [ $v[0].summary | keys[] as $a | {
	algo: $a, runs_each: $v[0].summary[$a].runs,
	vde: ($v[0].summary[$a] | { goodput_mbps, rtt_p50_ms, rtt_p95_ms, retrans, drops, jain }),
	netem: ($n[0].summary[$a] | { goodput_mbps, rtt_p50_ms, rtt_p95_ms, retrans, drops, jain }),
	netem_over_vde: { goodput: ratio($v[0].summary[$a].goodput_mbps; $n[0].summary[$a].goodput_mbps),
		rtt_p50: ratio($v[0].summary[$a].rtt_p50_ms; $n[0].summary[$a].rtt_p50_ms),
		rtt_p95: ratio($v[0].summary[$a].rtt_p95_ms; $n[0].summary[$a].rtt_p95_ms) } } ] }
