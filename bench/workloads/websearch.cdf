# Web search workload (the DCTCP paper's; used by pFabric, PIAS, HPCC).
# Source: HKUST-SING/TrafficGenerator conf/DCTCP_CDF.txt (same values as
# HPCC's WebSearch_distribution.txt).  Mean about 1.71 MB.
# bytes  cumulative-probability  (linear interpolation between points)
0 0
10000 0.15
20000 0.20
30000 0.30
50000 0.40
80000 0.53
200000 0.60
1000000 0.70
2000000 0.80
5000000 0.90
10000000 0.97
30000000 1.00
