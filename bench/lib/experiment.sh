# shellcheck shell=bash disable=SC2034 # REPS, OUT, RUN ...: the drivers read them
# The experiment driver shared by bench/bbr-parity, bench/tldct-paper,
# bench/flashpass-paper, bench/ppqd-paper, bench/mptcp-baseline,
# bench/cpucost, bench/backend-xcheck, bench/accuracy and
# bench/flashpass-pacer (and every paper reproduction to come; source it):
#
#   exp_init NAME                    defaults; --help prints the caller's
#                                    header (its comment lines after #!)
#   EXP_RUN_OPTS="--reps"            (after exp_init) which of --reps and
#                                    --duration the driver takes (both
#                                    unless it says otherwise)
#   exp_parse "$@"                   --reps N --duration S --out DIR
#                                    --publish --report DIR -h; anything
#                                    else goes to the caller's exp_arg
#                                    (which sets EXP_SHIFT, or returns 1)
#   exp_run SCENARIO...              bench/run each, into $OUT/SCENARIO
#   exp_run_as NAME SCENARIO ARGS... bench/run SCENARIO ARGS into $OUT/NAME
#                                    (one scenario run several ways)
#   exp_report TABLE JQ              $OUT/TABLE.json from bench/lib/JQ.jq
#                                    over {scenarios: {NAME: result.json},
#                                    cpucost: cpucost.json or null}, then
#                                    $OUT/TABLE.md from JQ.md.jq
#   exp_table TABLE JQ [OPT...] [-- FILE...]
#                                    $OUT/TABLE.json from jq OPT... -f
#                                    bench/lib/JQ.jq FILE..., then
#                                    $OUT/TABLE.md from JQ.md.jq, or
#                                    the table's .md where there is none
#   exp_tct_cdf ALGO...              per scenario, a TCT CDF of the ALGOs
#   exp_cdf DAT FILTER FILE...       the CDF of the numbers jq FILTER
#                                    takes from FILEs' JSON lines, as
#                                    "value fraction" lines in DAT;
#                                    false when there are none
#   exp_cdf_plot PNG TITLE XLABEL YLABEL PLOT
#                                    gnuplot's PLOT of exp_cdf DATs, a
#                                    log x axis
#   exp_publish DEST FILE[=NAME]...  with --publish, copy to
#                                    bench/published/DEST (as NAME), each
#                                    .json first given its provenance
#                                    (exp_stamp), then make DEST's result
#                                    page again (bench/publish-pages)
#
# Results go to $OUT (default bench/results/NAME/<date>); --report DIR
# makes the table again from DIR's runs without running anything.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

exp_die() { echo "bench/$EXP_NAME: $*" >&2; exit 2; }

# the caller's header: its comment lines from the second to the first
# that is not one, without their "# "
exp_help() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

exp_init() {
	EXP_NAME=$1
	REPS="" DURATION="" OUT="" PUBLISH=0 RUN=1 EXP_SHIFT=0
	EXP_RUN_OPTS="--reps --duration"
}

# --reps and --duration only for a driver that passes them on
exp_takes() { [[ " $EXP_RUN_OPTS " == *" $1 "* ]] || exp_die "unknown argument '$1'"; }

exp_parse() {
	local a
	# the command line as run, for the provenance (exp_stamp)
	EXP_COMMAND=$(cd "$(dirname "$0")" && pwd)/${0##*/}
	EXP_COMMAND=${EXP_COMMAND#"$ROOT"/}
	for a in "$@"; do EXP_COMMAND+=" $(printf '%q' "$a")"; done
	while [ $# -gt 0 ]; do
		case $1 in
		--reps) exp_takes "$1"; REPS=$2; shift 2 ;;
		--duration) exp_takes "$1"; DURATION=$2; shift 2 ;;
		--out) OUT=$2; shift 2 ;;
		--publish) PUBLISH=1; shift ;;
		--report) OUT=$2; RUN=0; shift 2 ;;
		-h | --help) exp_help; exit 0 ;;
		*)
			if declare -F exp_arg >/dev/null && exp_arg "$@"; then
				shift "$EXP_SHIFT"
			else
				exp_die "unknown argument '$1'"
			fi
			;;
		esac
	done
	[ -n "$OUT" ] || OUT=$ROOT/bench/results/$EXP_NAME/$(date +%Y%m%d-%H%M%S)
	if [ "$RUN" = 0 ]; then
		[ -d "$OUT" ] || exp_die "--report: no directory $OUT"
	else
		mkdir -p "$OUT" || exp_die "cannot create $OUT"
	fi
	# a run records what it measured on; --report only reads it
	[ "$RUN" = 0 ] || exp_record >>"$OUT/provenance.jsonl" || exp_die "cannot write $OUT/provenance.jsonl"
}

# this invocation's command, commit (git describe, -dirty with
# uncommitted changes to tracked files but bench/published/, which an
# earlier --publish of the same session writes and nothing measures),
# HEAD's sha and kernel, as one JSON line
exp_record() {
	local commit
	commit=$(git -C "$ROOT" describe --always --abbrev=12 2>/dev/null)
	[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no -- . ':!bench/published' 2>/dev/null)" ] ||
		commit=$commit-dirty
	jq -nc --arg command "$EXP_COMMAND" --arg kernel "$(uname -r)" \
		--arg commit "$commit" \
		--arg sha "$(git -C "$ROOT" rev-parse HEAD 2>/dev/null)" \
		'def known: if . == "" then null else . end;
		{ command: $command, commit: ($commit | known), commit_sha: ($sha | known), kernel: $kernel }'
}

# FILE's top-level provenance (bench/lib/provenance.jq), in place: the
# command, commit and kernel its runs recorded in $OUT/provenance.jsonl,
# the delay backends of its bench/run results, and the command that made
# the table where that was a later --report
exp_stamp() {
	local backends
	# an experiment without scenario runs (cpucost) has no result.json:
	# no backend, and under pipefail no failed cat either
	backends=$({ cat "$OUT"/*/result.json 2>/dev/null || true; } |
		jq -sc '[.[].env.delay_backend // empty] | unique') &&
		jq --slurpfile runs <(cat "$OUT/provenance.jsonl" 2>/dev/null) --argjson backends "$backends" \
			--arg command "$EXP_COMMAND" --arg run "$RUN" \
			-f "$ROOT/bench/lib/provenance.jq" "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

exp_run() {
	local s
	for s in "$@"; do exp_run_as "$s" "$s"; done
}

exp_run_as() {
	"$ROOT/bench/run" "$2" ${REPS:+--reps "$REPS"} ${DURATION:+--duration "$DURATION"} "${@:3}" \
		--out "$OUT/$1" || exp_die "scenario $2 ($1) failed"
}

exp_report() {
	local table=$1 prog=$ROOT/bench/lib/$2
	{
		# keyed by the run's directory: the scenario's name, or exp_run_as's NAME
		jq -n '[inputs | { key: (input_filename | split("/") | .[-2]), value: . }] | from_entries' \
			"$OUT"/*/result.json ||
			echo null
		cat "$OUT/cpucost/cpucost.json" 2>/dev/null || echo null
	} | jq -s '{ scenarios: .[0], cpucost: .[1] }' |
		jq -f "$prog.jq" >"$OUT/$table.json" || exp_die "no results in $OUT"
	exp_md "$table" "$2"
}

exp_table() {
	local table=$1 prog=$2 opts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	# the inputs after the program: jq 1.6 takes its first positional
	# argument as -f's file
	jq ${opts[@]+"${opts[@]}"} -f "$ROOT/bench/lib/$prog.jq" "$@" >"$OUT/$table.json" ||
		exp_die "cannot make $OUT/$table.json"
	exp_md "$table" "$prog"
}

# $OUT/TABLE.md from bench/lib/JQ.md.jq, or where there is none the
# table's own .md; and on stdout
exp_md() {
	local table=$1 prog=$ROOT/bench/lib/$2.md.jq
	if [ -f "$prog" ]; then
		jq -r -f "$prog" "$OUT/$table.json"
	else
		jq -r .md "$OUT/$table.json"
	fi >"$OUT/$table.md" || exp_die "cannot write $table.md"
	cat "$OUT/$table.md"
}

exp_tct_cdf() {
	local d a plot
	command -v gnuplot >/dev/null || return 0
	for d in "$OUT"/*/; do
		d=${d%/}
		[ -f "$d/result.json" ] || continue
		plot=""
		for a in "$@"; do
			exp_cdf "$d/tct-$a.dat" 'select(.type == "task") | .tct_us / 1000' \
				"$d"/runs/*-"$a"/wlgen-*.jsonl &&
				plot+="${plot:+, }'$d/tct-$a.dat' using 1:2 with lines lw 2 title '$a'"
		done
		[ -n "$plot" ] && exp_cdf_plot "$d/tct-cdf.png" "$(basename "$d"): task completion time CDF" \
			'TCT (ms)' 'fraction of tasks' "$plot"
	done
}

exp_cdf() {
	local dat=$1 filter=$2
	shift 2
	cat "$@" 2>/dev/null | jq -r "$filter" | sort -g |
		awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' >"$dat"
	[ -s "$dat" ]
}

exp_cdf_plot() {
	gnuplot -e "set terminal pngcairo size 900,480 font ',10' noenhanced;
		set grid; set output '$1'; set logscale x;
		set title '$2'; set xlabel '$3'; set ylabel '$4'; set key bottom right; plot $5"
}

exp_publish() {
	local name=$1 dest=$ROOT/bench/published/$1 f
	shift
	[ "$PUBLISH" = 1 ] || return 0
	mkdir -p "$dest" || exp_die "cannot create $dest"
	for f in "$@"; do
		if [[ ${f%%=*} == *.json ]]; then exp_stamp "${f%%=*}" || exp_die "cannot stamp ${f%%=*}"; fi
		if [[ $f == *=* ]]; then
			cp "${f%%=*}" "$dest/${f#*=}"
		else
			cp "$f" "$dest/"
		fi || exp_die "cannot publish $f"
	done
	if [ -f "$ROOT/bench/lib/$name.page.md" ]; then
		"$ROOT/bench/publish-pages" "$name" >/dev/null || exp_die "cannot make bench/published/$name/README.md"
	fi
	echo "published -> $dest"
}
