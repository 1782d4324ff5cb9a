# Data mining workload (VL2).
# Source: HKUST-SING/TrafficGenerator conf/VL2_CDF.txt (bytes).
# bytes  cumulative-probability  (linear interpolation between points)
0 0
180 0.1
216 0.2
560 0.3
900 0.4
1100 0.5
1870 0.6
3160 0.7
10000 0.8
400000 0.9
3160000 0.95
100000000 0.98
1000000000 1.0
