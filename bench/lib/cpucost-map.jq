# bench/cpucost: a pinned map's memory and live entries, from `bpftool map
# show pinned PIN -j` and the count of its entries ($n, null where it
# cannot be dumped).
select(.id) | { pin: $pin, type, max_entries, bytes: .bytes_memlock, entries: $n }
