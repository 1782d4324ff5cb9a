# bench/lib/plot: "t_s Mbit/s" lines of every data flow's delivery rate
# from ss's bytes_acked over 10 samples (1 s), in a run's flow samples
# (jq -s), a block per flow headed by its CC.
group_by(.flow) | map(select((map(.acked) | max) > 100000) | sort_by(.t_ms))
| .[] | "# \(.[0].cc)", (. as $s | range(10; length) as $i
	| "\($s[$i].t_ms / 1000) \(($s[$i].acked - $s[$i - 10].acked) * 8
		/ (($s[$i].t_ms - $s[$i - 10].t_ms) / 1000) / 1e6)"), "", ""
