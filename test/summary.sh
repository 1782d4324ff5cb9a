# shellcheck shell=bash
# Sourced by test/run and test/vm/suite, which add up the counts of the
# test programs they run.
#
# summary_counts PREFIX FILE: "P F S" from FILE's last "PREFIX: P passed,
# F failed[, S skipped]" line; without one, "0 1 0" and a line saying so
# (the run died before its summary).
summary_counts() {
	local line p f s
	line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$" "$2" | tail -n1)
	if [ -z "$line" ]; then
		echo "$1: no \"$1: N passed, N failed\" summary (the run died?)" >&2
		echo "0 1 0"
		return
	fi
	read -r _ p _ f _ s _ <<<"$line"
	echo "$p $f ${s:-0}"
}
