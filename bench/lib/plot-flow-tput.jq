# bench/lib/plot: "t_s Mbit/s" lines of an iperf3 -J result, t from the
# run's first flow start ($t0; bench/run passes each start as iperf3's
# extra data, epoch ms).
(((.extra_data // "0" | tonumber) - $t0) / 1000) as $s
| .intervals[] | "\(.sum.end + $s) \(.sum.bits_per_second / 1e6)"
