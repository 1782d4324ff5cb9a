# bench/flashpass-pacer: a run's line of runs.jsonl from its tcpxfer client
# reports (jq -s), the pacer's report line ($rep) and the switch's
# counters ($sw).
($rep | capture("(?<flows>[0-9]+) flows, (?<sent>[0-9]+) emulation packets.* in (?<wall>[0-9.]+) s, peak (?<peak>[0-9]+)/s; CPU (?<cpu>[0-9.]+) s, (?<ns>[0-9]+) ns per packet")) as $p
| { rate: $rate, flows: $n, emu_sent: ($p.sent | tonumber), peak_pps: ($p.peak | tonumber),
    pacer_cpu_s: ($p.cpu | tonumber), ns_per_packet: ($p.ns | tonumber),
    pacer_cpu_share: (($p.cpu | tonumber) / ($p.wall | tonumber) * 1000 | round / 1000),
    goodput_mbps: (map(.goodput_bps) | add / 1e6 * 10 | round / 10),
    intact: (map(.pattern_ok and .bytes == .received) | all),
    sched_dropped: $sw[0].classes[0].dropped, sched_passed: $sw[0].classes[0].pkts,
    emu_dropped: ($sw[0].emulation.normal.dropped + $sw[0].emulation.over_provisioned.dropped) }
