# bench/mptcp-baseline's report: runs.jsonl (slurped) -> per case the
# ratio F/T of every run, its median, and whether every run's sockets were
# what the case says (reno on each; F's subflows).
def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def r3: . * 1000 | round / 1000;
def subflows($c): if $c | startswith("router-mp2") then 2 elif ($c | test("-mp")) then 1 else 0 end;
def f_sockets($c): if ($c | startswith("router-mp2")) or $c == "router-tcp2" then 2 else 1 end;
def sockets_ok: . as $r
	| ($r.f_sockets + $r.t_sockets | all(.cc == "reno"))
	and ($r.t_sockets | length == 1 and (.[0].mptcp | not))
	and (($r.f_sockets | map(select(.mptcp)) | length) == subflows($r.case))
	and ($r.f_sockets | length) == f_sockets($r.case);
. as $runs
| [group_by(.case)[] | . as $g
   | { case: $g[0].case,
       ratios: [$g[] | select(.f_bytes and .t_bytes) | .f_bytes / .t_bytes | r3],
       f_mbit: ([$g[] | .f_bytes * 8 / .time_s / 1e6] | median | r3),
       t_mbit: ([$g[] | .t_bytes * 8 / .time_s / 1e6] | median | r3),
       drops: [$g[] | .drops],
       sockets_ok: ($g | all(sockets_ok)) }
   | .median = (.ratios | median | r3)]
| { cases: ., md: ([
	"| case | F / T bytes, median | every run | F, T Mbit/s (median) | bottleneck drops | sockets as stated |",
	"|---|---|---|---|---|---|",
	(.[] | "| \(.case) | \(.median) | \(.ratios | map(tostring) | join(", ")) | \(.f_mbit), \(.t_mbit) | \(.drops | map(tostring) | join(", ")) | \(if .sockets_ok then "yes" else "**no**" end) |")
  ] | join("\n")) }
