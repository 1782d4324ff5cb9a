# run_time_ns and run_cnt of every program in `bpftool prog show -j`, as
# {id: [ns, cnt]}.
map({ key: (.id | tostring), value: [.run_time_ns // 0, .run_cnt // 0] }) | from_entries
