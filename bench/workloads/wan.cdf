# WAN storage mix (FlashPass, ICNP 2021, Table V summary: mean flow size
# about 65 MB, 84.2% of flows above 10 MB, largest flows in the GB range).
# The paper gives only that summary; this CDF is the project's definition
# with those properties (mean about 63 MB).  At testbed scale multiply sizes
# by testbed rate / paper rate (wlgen --scale).
# bytes  cumulative-probability  (linear interpolation between points)
100000 0
1000000 0.05
10000000 0.158
20000000 0.35
40000000 0.60
80000000 0.85
200000000 0.965
1000000000 1.0
