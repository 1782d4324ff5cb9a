# bench/cpucost: one measurement's run-KIND-PATH.json, from ccost's report
# (the input) and what was read around it: the CCs' programs, every
# program's counts before and after, bpf_tldct's maps.
{ kind: $kind, path: $path, flows: .flows, bpf_stats: ($stats == 1), ccost: .,
  progs: $progs, before: $before, after: $after, maps: $maps }
