#!/usr/bin/env bash
# bpf_flashpass under a small dynamic workload on the 3-site WAN (the
# network of bench/scenarios/flashpass-dynamic.conf at a quarter of its
# delays): flows of the WAN mix, Poisson arrivals, from site 1 to sites 2
# and 3 at once, each pair on its own inter-site bottleneck with the
# emulation queue.  Every flow completes with every byte the pattern's
# (wlgen's server checks them), on bpf_flashpass, none falls back, and
# every ledger is freed once the flows close.
source "$(dirname "$0")/lib.sh"

RATE=50mbit FLOWS=40
CC=bpf_flashpass
test_net $CC
topo_flashpass_switch
# sites 5/7.5/10 ms apart one way (wan_scale 0.25); 30 KB buffers, 0.15
# of the 1-3 path's BDP (20 ms)
topo_wan3 "$RATE" 30kb 0 2 0.25
PAIRS=("h1_1 h2_1 10" "h1_2 h3_1 20") # sender, receiver, RTT (ms)

fpstat() { ccstat $CC "$1"; }
check "ccload flashpass run starts" \
	topo_flashpass_run "$TMP/pacer.log" "h1_1 h1_2" "h2_1 h3_1" --link-rate "$RATE"
fb0=$(fpstat fallbacks) lost0=$(fpstat ledger_lost) init0=$(fpstat flows_init) pc0=$(fpstat phase_credit)
for p in "${PAIRS[@]}"; do
	read -r src dst _ <<<"$p"
	topo_bg "$dst" "$TOPO_ROOT/build/wlgen" server -p 5810 >/dev/null 2>&1
done
sleep 0.3

echo "$FLOWS flows a pair of the WAN mix (x 0.005: 0.5 KB to 5 MB), 30 % load, both pairs at once"
pids=()
i=0
for p in "${PAIRS[@]}"; do
	read -r src dst rtt <<<"$p"
	v=IP_${dst^^}
	topo_exec "$src" "$TOPO_ROOT/build/wlgen" client -c "${!v}" -p 5810 -C $CC \
		--cdf "$TOPO_ROOT/bench/workloads/wan.cdf" --scale 0.005 --load 0.3 --rate "$RATE" \
		--flows $FLOWS --seed $((45 + i)) --rtt "$rtt" --drain 20 >"$TMP/wl$i" 2>"$TMP/wl$i.err" &
	pids+=($!)
	i=$((i + 1))
done
rcs=""
for pid in "${pids[@]}"; do
	wait "$pid"
	rcs+="$? "
done
check "both clients exited 0 ($rcs)" [ "$rcs" = "0 0 " ]
cat "$TMP"/wl*.err
check_reports "every flow completed, its bytes the pattern's, on $CC" $((2 * FLOWS)) \
	'.ok and (.corrupt | not) and (.unfinished | not) and .cc == "bpf_flashpass"' \
	<(cat "$TMP"/wl0 "$TMP"/wl1 | jq -c 'select(.type == "flow")')
check_reports "the summaries: $FLOWS flows each, none failed, corrupt, unfinished or skipped" 2 \
	".flows == $FLOWS and .completed == $FLOWS and .failed == 0 and .corrupt == 0 and
	 .unfinished == 0 and .unstarted == 0 and .skipped == 0" \
	<(cat "$TMP"/wl0 "$TMP"/wl1 | jq -c 'select(.type == "summary")')
jq -r 'select(.type == "flow") | [.size, .fct_us / 1000, .fct_us / .ideal_us] | @tsv' "$TMP"/wl0 "$TMP"/wl1 |
	sort -n | awk '{ s += $3; n++ } NR == 1 { b = $1; f = $2 }
		END { printf "    %d flows: the smallest %d bytes in %.1f ms, the largest %d in %.1f ms; FCT / ideal %.2f on average\n", n, b, f, $1, $2, s / n }'
# No flow can beat its ideal FCT (two RTTs and its bytes at the link
# rate: wlgen --rtt): the delay line never delivers early, and tbf's rate
# is within 1 % (bench/published/accuracy); 3 % of slack for it.
low=$(jq -s 'map(select(.type == "flow") | .fct_us / .ideal_us) | min' "$TMP"/wl0 "$TMP"/wl1)
check_range "the lowest FCT / ideal FCT" "$low" 0.97 1e6
check "no flow fell back to Reno ($(($(fpstat fallbacks) - fb0)))" [ "$(fpstat fallbacks)" -eq "$fb0" ]
check "no flow lost its ledger" [ "$(fpstat ledger_lost)" -eq "$lost0" ]
# both ends of each flow open a ledger (the receiver's socket runs the CC
# too only where the namespace's default is it: not here)
check_range "flows that opened a ledger" $(($(fpstat flows_init) - init0)) $((2 * FLOWS)) $((4 * FLOWS))
check_range "flows that entered the credit phase" $(($(fpstat phase_credit) - pc0)) 1 $((2 * FLOWS))
# The ledgers of closed flows: the pacer would go on sending their
# emulation.  Within 5 s of the last close.
ledgers() { "$CCLOAD" -q flashpass flows --json | jq -s 'length'; }
for _ in $(seq 50); do [ "$(ledgers)" = 0 ] && break; sleep 0.1; done
check "every ledger is freed (left: $(ledgers))" [ "$(ledgers)" = 0 ]
check "the pacer stops cleanly" topo_flashpass_stop
