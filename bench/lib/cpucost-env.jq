# bench/cpucost's env.json (jq -n): the kernel, the core, which dctcp is
# the native one, and the pairs as [SUITE, BASE] from "S:B,S:B".
{ kernel: $kernel, date: $date, cpu: ($cpu | tonumber), native_dctcp: $native_dctcp,
  pairs: ($pairs | split(",") | map(split(":"))) }
