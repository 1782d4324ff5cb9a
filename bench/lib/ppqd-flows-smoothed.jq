# test/net/t_mptcp: true when `ccload ppqd flows --json` (jq -s) lists
# both subflows of the connection $t, smoothed past the warm-up.
[.[] | select(.token == $t)] | length == 2 and
	all(.samples > 15 and .forecast_us > 0 and .base_rtt_us > 0 and
	    .mean_rtt_us >= .base_rtt_us and .cwnd >= 2)
