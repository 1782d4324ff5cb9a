#!/usr/bin/env bash
# bpf_bbr beside the kernel's bbr, alternating on one network (bbr-parity-100m
# at half its rate: 50 Mbit/s, 20 ms RTT, 0.5 BDP buffer): it carries the
# transfers, walks STARTUP -> DRAIN -> PROBE_BW, and matches bbr's
# throughput and median RTT.
source "$(dirname "$0")/lib.sh"

# The test runs where the switch, not the machine, is the bottleneck.  At
# the scenario's 100 Mbit/s this 2-CPU machine forwards the VDE link only
# just: goodput of either CC fell to 22..75 Mbit/s in runs the machine was
# busy (four of eight in one CI run, and an idle machine's test read a
# full-bw estimate of 62-68 Mbit/s, below any bound a CC bug would be told
# apart by).  At 50 Mbit/s, sixteen 10 s runs (eight each) carried
# 45.3..47.4 Mbit/s for both CCs.  bench/bbr-parity keeps 100 Mbit/s.
# Under TCG emulation (test/vm/run) the guest carries only a few tens of
# Mbit/s: there the scenario runs at a tenth of its rate (10 Mbit/s).
# Four repetitions on the host: the goodput ratio is of medians of four.
SCALE=0.5 REPS=4
[ -z "${CCSUITE_VM:-}" ] || SCALE=0.1 REPS=2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$TOPO_ROOT/bench/run" bbr-parity-100m --duration 10 --reps $REPS --no-plots --scale $SCALE --out "$TMP/r" |
	sed -u 's/^/    /'
check "bench/run exits 0" [ "${PIPESTATUS[0]}" -eq 0 ]
# a flow that did not end: what its sockets were doing (bench/run's await_flows)
for f in "$TMP"/r/runs/*/stuck.txt; do
	[ -f "$f" ] && sed 's/^/    stuck: /' "$f"
done
R=$TMP/r/result.json

check "every bpf_bbr run's flow used bpf_bbr" \
	jq -e --argjson n $REPS '[.runs[] | select(.algo == "bpf_bbr") | .flows[].cc] | length == $n and all(. == "bpf_bbr")' "$R"
check "every bbr run's flow used the kernel's bbr" \
	jq -e --argjson n $REPS '[.runs[] | select(.algo == "bbr") | .flows[].cc] | length == $n and all(. == "bbr")' "$R"
for ((rep = 1; rep <= REPS; rep++)); do
	s=$(jq -c --argjson r $rep '.runs[] | select(.algo == "bpf_bbr" and .rep == $r) | .cc_stats.bpf_bbr' "$R")
	echo "    bpf_bbr counters, rep $rep: $s"
	check_range "rep $rep: STARTUP entered" "$(jfield "$s" .enter_startup)" 1 100
	check_range "rep $rep: full bw reached (leaves STARTUP)" "$(jfield "$s" .full_bw_reached)" 1 100
	# The pipe is judged full near the bottleneck's rate (the max filter
	# may read above it from ACK bursts), not rounds early: that was a
	# double evaluation of the full-bw step in min(), which judged it at
	# 20 % of the rate.  Measured at 50 Mbit/s: 40.3..54.8 over twelve
	# runs; held to 0.5..1.6 of the rate.
	check_range "rep $rep: bw when the pipe was judged full (Mbit/s)" \
		"$(awk -v b="$(jfield "$s" .full_bw_bps)" 'BEGIN { print b / 1e6 }')" \
		"$(awk -v f=$SCALE 'BEGIN { print 50 * f }')" "$(awk -v f=$SCALE 'BEGIN { print 160 * f }')"
	check_range "rep $rep: DRAIN entered" "$(jfield "$s" .enter_drain)" 1 100
	check_range "rep $rep: PROBE_BW entered" "$(jfield "$s" .enter_probe_bw)" 1 100
done
# The mode timeline (bench/trace/bbr-modes.bt, the same probe for both CCs):
# every run of either walks STARTUP -> [DRAIN] -> PROBE_BW, and both walk the
# same sequence.  tcp_probe fires before an ACK is processed, so a DRAIN that
# ends on the ACK that began it (inflight already down to the BDP) is not
# seen; bpf_bbr's enter_drain counter above shows DRAIN for the BPF side.
# A kernel that cannot run the probe (bench/run said why) has no timeline.
no_trace=$(jq -r '.env.trace_skipped // empty' "$R")
if [ -n "$no_trace" ]; then
	skip "mode timelines of bbr and bpf_bbr: trace $no_trace"
else
	for a in bbr bpf_bbr; do
		check "$a: every run's flow went STARTUP -> [DRAIN] -> PROBE_BW ($(jq -c --arg a $a '.summary[$a].mode_seqs' "$R"))" \
			jq -e --arg a $a --argjson n $REPS -f "$TOPO_ROOT/bench/lib/bbr-walks-to-probe-bw.jq" "$R"
	done
	# Four runs of either may include a rarer walk (a PROBE_RTT one run
	# reaches and another does not): some walk must be common to both.
	check "bbr and bpf_bbr share a mode sequence (DRAIN aside; $(jq -c '[.summary.bbr, .summary.bpf_bbr] | map(.mode_seqs)' "$R"))" \
		jq -e -f "$TOPO_ROOT/bench/lib/bbr-shared-mode-seq.jq" "$R"
fi
# Tolerances of issue 4: throughput within 5 %, median RTT within 10 %.
# bench/bbr-parity holds bpf_bbr to them, with more and longer runs; this
# test widens them to what its own spread allows.  Throughput: at 50
# Mbit/s one run's goodput spreads by about 1 % (sd) for either CC
# (45.3..47.4 Mbit/s over sixteen runs; ratio of the 8-run medians
# 0.993).  The test takes the ratio of the medians of four runs each (one
# run a busy machine slowed does not move it) and holds it to [0.85,
# 1.18], symmetric in log; under TCG, where two runs of a guest whose
# timers run late decide it, to [0.7, 1.43].  A broken bpf_bbr (a
# bandwidth estimate off by a pacing gain, a stalled cwnd) falls well
# outside.  RTT, to 20 %: on the VDE backend the delay the backend itself
# adds under load varies by several ms between runs (3-5 ms beyond base
# RTT and queueing); measured 25.5..28.3 ms (median) for
# either CC at 50 Mbit/s.  Retransmissions: every one is a drop at the
# switch's 0.5 BDP queue.  Measured on an idle machine (tap backend,
# 6.18), 20 runs of each at 50 Mbit/s: bbr 398 a run (sd 30), bpf_bbr 390
# (sd 58); the ratio of the means of four runs each, resampled, 0.981 (sd
# 0.079, p0.1 0.75, p99.9 1.28).  Held to [0.67, 1.3], the mean and four
# sd, or 10 packets: bpf_bbr with the min_tso_segs it had (the kernel
# took corrupted results of it now and then, and sent 64 KB at once)
# read 1.76 (sd 0.20) measured the same way.  Under TCG (two runs of a guest at
# 5 Mbit/s, not measured 20 times) the bound stays [0.5, 2.6].
GLO=0.85 GHI=1.18
[ -z "${CCSUITE_VM:-}" ] || GLO=0.7 GHI=1.43
check_range "goodput bpf_bbr / bbr (medians of $REPS runs: $(jq -c '[.summary.bpf_bbr, .summary.bbr] | map(.goodput_median_mbps)' "$R") Mbit/s)" \
	"$(jq -r '.summary.bpf_bbr.goodput_median_mbps / .summary.bbr.goodput_median_mbps * 1000 | round / 1000' "$R")" $GLO $GHI
check_range "median RTT bpf_bbr / bbr" "$(jq -r .ratios_to_native.bpf_bbr.rtt_p50 "$R")" 0.8 1.2
rn=$(jq .summary.bbr.retrans "$R") rb=$(jq .summary.bpf_bbr.retrans "$R")
RLO=0.67 RHI=1.3
[ -z "${CCSUITE_VM:-}" ] || RLO=0.5 RHI=2.6
check "retransmissions bpf_bbr $rb vs bbr $rn: ratio in [$RLO, $RHI] or within 10 packets" \
	awk -v a="$rb" -v b="$rn" -v lo=$RLO -v hi=$RHI 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 10 || (a >= lo * b && a <= hi * b)) }'
