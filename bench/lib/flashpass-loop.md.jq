# bench/flashpass-paper loop's table (loop.md) from its flashpass.json.
def pct: if . == null then "-" else (. * 1000 | round) / 10 | tostring + " %" end;
def n: if . == null then "-" else tostring end;
def rate: if . == null then "-" else (. * 10000 | round) / 100 | tostring + " %" end;
def frames: if . == null then null else . * 1514 / 1448 end;
"## The credit loop in the kernel (`bench/flashpass-paper loop`)", "",
(if (.loop // [] | length) == 0 then "(not run)" else
	"Each row one scenario run with bpf_flashpass in one mode, cubic beside it in the same run: `release` (the pacer wakes each flow at its credits' usable times), `acks` (`release=0`: each credit an ACK of nothing new, paced at the last 8 credits), `kernel` (`acks` with `loop=1`: the credits clock the emulation, the pacer only starts loops). CPU busy: the whole machine, sender, switch and receiver, during bpf_flashpass's runs and cubic's.", "",
	"| scenario | mode | FlashPass utilization | class-0 drops (rate) | Jain | CPU busy | cubic utilization | cubic CPU busy |",
	"|---|---|---|---|---|---|---|---|",
	(.loop[] | .algos.bpf_flashpass as $f | .algos.cubic as $c |
		"| \(.scenario) | \(.mode) | \($f.utilization | pct) | \($f.class0_drops | n) (\($f.class0_drop_rate | rate)) | \($f.jain | n) | \($f.cpu_busy | pct) | \($c.utilization | pct) | \($c.cpu_busy | pct) |")
end)
