#!/usr/bin/env bash
# bpf_tldct's definitions (tunables form, floor_dctcp, beta_left and
# grow_l2dct, bpf/tldct.h), each in one run on t_tldct's network: two
# senders -> router (switch + tbf, 100 Mbit/s, 200 KB buffer, ECN marking
# at K = 30 KB) -> receiver.
#
# Task L's first flow L1 (s1) runs alone until L's bytes pass task_max
# (beta_max, 1.5; about 3 s); then L's second flow L2 (s1) and task S
# (one flow, s2) run 2 s beside L1, which keeps L's task alive (a task
# ends with its last flow) and, ahead of its task (gamma near 0.5),
# yields more than either.  S stays below task_min (beta_min, 0.5) while
# its share is under about 80 %; neither S nor L2 is ahead of its task
# (gamma 0).  So the forms differ in S's goodput over L2's:
#   product  p = alpha beta: S cuts a third of what L2 cuts, grows 3x
#            faster;
#   exp_inv  p = alpha^(1/beta): S cuts less (alpha^2), L2 more;
#   exp      p = alpha^beta: S cuts more (alpha^0.5), L2 less, while
#            growth still favours S (1/beta);
#   beta     as product (gamma is 0 here);
#   gamma    beta left out: both flows as DCTCP;
#   product with floor_dctcp: S cuts as DCTCP, L2 1.5 times that;
#   product with beta_left: L states 32 MB (under 1 MB left once it
#            passes 31 MB: beta_min) and S 64 MB (over 44 MB left:
#            beta_max): the order reversed, S below L2;
#   exp_inv with grow_l2dct (L2DCT's definition): S cuts less (alpha^2)
#            and grows as DCTCP, L2 cuts more and grows a third as fast.
# Every run states these sizes, which only beta_left reads.  Each run:
# every flow exits 0 with its bytes intact on bpf_tldct with ECN, no drop
# at the switch, windows with beta from the bytes left only under
# beta_left, and the ratio inside the bounds of its 20-run spread (beside
# each).
source "$(dirname "$0")/lib.sh"

RATE=100mbit BUFFER=200kb K=30kb
PORT=5811
# beta_max from 30 MB, which L1 passes alone in about 3 s; beta_min
# below 20 MB, which S passes in its 2 s only above 80 % of the link
TUNE=(--set task_min_kb=20480 --set task_max_kb=30720)
# Task ids of this run's own, two a form: the task tables are the
# host's, and a task whose entry outlived its flows (another run's, or
# the form before) would start with its bytes
TASK=$((($$ << 16 | RANDOM) << 8))

test_net bpf_tldct
topo_dumbbell 2 "$RATE" "$BUFFER" "$K"

# run NAME LO HI FORM FLOOR LEFT L2DCT: one run of the definition (its
# tunables form, floor_dctcp, beta_left, grow_l2dct); S over L2 in [LO, HI]
run() {
	local name=$1 lo=$2 hi=$3 l1 l2 s r1 r2 r3 ratio t t0 left0 el
	local task_l=$((TASK += 2)) task_s=$((TASK + 1)) sets=()
	sets=(--set form="$4" --set floor_dctcp="$5" --set beta_left="$6" --set grow_l2dct="$7")
	echo "$name: ${sets[*]}, tasks $task_l (L) and $task_s (S)"
	check "attach bpf_tldct ${sets[*]}" "$CCLOAD" -q attach bpf_tldct "${TUNE[@]}" "${sets[@]}"
	left0=$(ccstat bpf_tldct beta_from_left)
	topo_bg d "$TCPXFER" server -C bpf_tldct -p $PORT -n 3 >/dev/null
	sleep 0.3
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p $PORT -C bpf_tldct -T $task_l -S 32mb \
		-t 6.5 >"$TMP/L1-$name" &
	l1=$!
	t0=$(date +%s.%N)
	# until the sender's table has L past task_max (1 MB over it), at
	# most 3.5 s, so that L1 runs through S's and L2's 2 s (it passes at
	# 2.9-3.0 s)
	while el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') &&
		awk -v e="$el" 'BEGIN { exit !(e < 3.5) }'; do
		"$CCLOAD" task list --json | jq -e --argjson t $task_l --argjson b $((31 << 20)) \
			'[.[] | select(.side == "sender" and .task == $t and .bytes >= $b)] | length == 1' \
			>/dev/null && break
		sleep 0.1
	done
	check "L's task passed task_max alone within 3.5 s (in $el s)" \
		awk -v e="$el" 'BEGIN { exit !(e < 3.5) }'
	topo_exec s1 "$TCPXFER" client -c "$IP_D" -p $PORT -C bpf_tldct -T $task_l -S 32mb -t 2 >"$TMP/L2-$name" &
	l2=$!
	topo_exec s2 "$TCPXFER" client -c "$IP_D" -p $PORT -C bpf_tldct -T $task_s -S 64mb -t 2 >"$TMP/S-$name" &
	s=$!
	# counted from here: two flows starting together in slow start beside
	# L1's queue at K can overshoot the buffer before their first marks
	# come back, as Linux's DCTCP does (t_tldct); ECN's claim is for what
	# follows
	sleep 0.5
	topo_switch_stats --reset >/dev/null
	wait $s
	r3=$?
	wait $l2
	r2=$?
	wait $l1
	r1=$?
	check "the three clients exit 0 ($r1 $r2 $r3)" test "$r1" -eq 0 -a "$r2" -eq 0 -a "$r3" -eq 0
	check_reports "every byte intact, on bpf_tldct with ECN" 3 \
		'.cc == "bpf_tldct" and .ecn and .pattern_ok and .bytes == .received and .bytes > 0' \
		"$TMP/L1-$name" "$TMP/L2-$name" "$TMP/S-$name"
	check_range "$name: drops at the switch after the first 0.5 s" "$(topo_switch_stats | jq .dropped)" 0 0
	# the windows whose beta came from a stated size: with beta_left, none
	# without
	t=$(jq -n --argjson a "$left0" --argjson b "$(ccstat bpf_tldct beta_from_left)" '$b - $a' 2>/dev/null)
	if [ "$6" = 1 ]; then
		check_range "$name: windows with beta from the bytes left" "$t" 1 1e12
	else
		check_range "$name: windows with beta from the bytes left" "$t" 0 0
	fi
	ratio=$(jq -s '.[0].goodput_bps / .[1].goodput_bps * 1000 | round / 1000' \
		"$TMP/S-$name" "$TMP/L2-$name")
	check_range "$name: S's goodput over L2's ($(jq -s -r '"\(map(.goodput_bps / 1e6 | round) | join(" and ")) Mbit/s, handshakes \(map(.connect_secs) | join(" and ")) s"' \
		"$TMP/S-$name" "$TMP/L2-$name"))" "$ratio" "$lo" "$hi"
	PORT=$((PORT + 1))
}

# Bounds: mean +- 4 sd of 20 runs (test/spread, host, 2 CPUs), runs'
# min-max in brackets; where two spreads were measured (fed8350, and
# this test's change to stated sizes and a 6.5 s L1), the wider bounds.
# product 5.519 sd 0.188 [5.18, 5.88]; 5.469 sd 0.366 [4.30, 5.98]
run product 4.0 6.9 0 0 0 0
# exp_inv 5.774 sd 0.271 [5.29, 6.26]; 5.667 sd 0.169 [5.40, 6.06]
run exp_inv 4.6 6.9 1 0 0 0
# exp 0.7925 sd 0.0383 [0.711, 0.844]; 0.7923 sd 0.0372 [0.729, 0.865]:
# S below L2, the order reversed
run exp 0.63 0.95 2 0 0 0
# beta 5.824 sd 0.211 [5.40, 6.24]; 5.811 sd 0.308 [5.03, 6.29]
run beta 4.5 7.1 3 0 0 0
# gamma 1.028 sd 0.261 [0.641, 1.72]; 1.039 sd 0.314 [0.211, 1.58]: as
# DCTCP, bounded above only
run gamma 0 2.3 4 0 0 0
# product-floor 4.723 sd 0.341 [4.13, 5.21]; 4.749 sd 0.221 [4.23, 5.14]
run product-floor 3.3 6.1 0 1 0 0
# product-left 0.1634 sd 0.00811 [0.153, 0.187]: the order reversed
run product-left 0.13 0.20 0 0 1 0
# exp_inv-l2dct 5.96 sd 0.28 [5.42, 6.60]
run exp_inv-l2dct 4.8 7.1 1 0 0 1
