# test/net/t_bbr: true when bbr and bpf_bbr in a bench/run result.json
# share a mode sequence, DRAIN aside.
def nd: map(split(" ") | map(select(. != "DRAIN")) | join(" ")) | unique;
(.summary.bbr.mode_seqs | nd) - (.summary.bpf_bbr.mode_seqs | nd) != (.summary.bbr.mode_seqs | nd)
