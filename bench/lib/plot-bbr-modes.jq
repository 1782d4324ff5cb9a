# bench/lib/plot: "t_s mode" lines of the BBR modes of the flow from local
# port $p in a run's trace (jq -s), t from its first ACK.
map(select(.mode != null and .sport == $p)) | sort_by(.ns)
| (.[0].ns // 0) as $m0 | .[] | "\((.ns - $m0) / 1e9) \(.mode)"
