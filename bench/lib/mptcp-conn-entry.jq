# test/net/t_mptcp: true when `ccload lia|ppqd conns --json` (jq -s) holds
# one connection of two subflows, each with a window and an RTT.
length == 1 and .[0].members == 2 and (.[0].subflows | length == 2 and
	all(.cwnd > 0 and .rtt_us > 0)) and .[0].alpha > 0
