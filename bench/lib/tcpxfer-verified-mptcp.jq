# How many of the tcpxfer client reports (jq -s) moved every byte intact
# over an MPTCP connection of two subflows.
[.[] | select(.pattern_ok and .bytes == .received and .subflows == 2)] | length
