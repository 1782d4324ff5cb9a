# Large WAN flows for FlashPass's over-provisioning experiment (FlashPass,
# ICNP 2021: flows of 10 to 80 MB at load 0.8): sizes uniform in
# [10 MB, 80 MB], mean 45 MB.  At testbed scale multiply sizes by testbed
# rate / paper rate (wlgen --scale).
# bytes  cumulative-probability  (linear interpolation between points)
10000000 0
80000000 1.0
