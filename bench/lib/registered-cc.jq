# The registered instance of the CC named $cc in `bpftool struct_ops dump
# -j` (pairs of entries: a struct_ops map's info, then its value), as
# {map_id, progs: {CALLBACK: {name, id}}}.  The registered one is the
# instance in use: unregistered ones live on while sockets use them.
. as $d | range(0; length; 2) as $i
| $d[$i + 1].bpf_struct_ops_tcp_congestion_ops
| select((.common // .).state == "BPF_STRUCT_OPS_STATE_INUSE" and .data.name == $cc)
| { map_id: $d[$i].bpf_map_info.id,
    progs: ([.data | to_entries[]
             | (.value | strings | capture("(?<name>[A-Za-z0-9_]+)/prog_id:(?<id>[0-9]+)$")?) as $p
             | { key, value: { name: $p.name, id: ($p.id | tonumber) } }] | from_entries) }
