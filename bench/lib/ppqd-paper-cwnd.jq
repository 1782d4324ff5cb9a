# bench/ppqd-paper's window plot: "t_s subflow cwnd" lines of the first
# repetition of paths-$mp, from runs.jsonl.
select(.case == "paths-" + $mp and .rep == 1) | .series[] | "\(.t_ms / 1000) \(.sub) \(.cwnd)"
