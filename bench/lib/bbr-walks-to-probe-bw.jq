# test/net/t_bbr: true when each of the $n runs of $a in a bench/run
# result.json walked STARTUP -> [DRAIN] -> PROBE_BW (its first flow's
# modes, DRAIN aside).
[.runs[] | select(.algo == $a) | .flows[0].modes.seq | map(select(. != "DRAIN"))[0:2]]
| length == $n and all(. == ["STARTUP", "PROBE_BW"])
