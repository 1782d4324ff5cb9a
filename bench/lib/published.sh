# shellcheck shell=bash
# What bench/published/ holds, and how its tables and result pages are
# made from its JSON; sourced by bench/check-published, bench/publish-pages
# and bench/lib/experiment.sh (exp_publish).  Paths are relative to the
# repository's root, which the caller has made the current directory.
#
#   pub_table_of JSON        its row of PUB_TABLES: "GEN PATHSPEC..."
#   pub_table JSON           the table (markdown) made from JSON
#   pub_pages                the result pages: DIR, one a line
#   pub_page DIR             bench/published/DIR/README.md, on stdout
#
# A page is bench/lib/DIR.page.md with its directives replaced:
#
#   {{table FILE}}           (a line of its own) FILE's table, pub_table
#   {{made FILE COMMAND}}    (a line of its own) how FILE was measured:
#                            command, commit, kernel, machine, delay
#                            backend, from its provenance where it has
#                            one; COMMAND is the command as the text that
#                            published FILE names, shown as that where
#                            the provenance does not record one
#   {{FILE: EXPR}}           (within a line) jq -r EXPR over FILE, with
#                            PUB_JQ_DEFS's helpers (fix(n): n
#                            decimals; pct(n): x 100, n decimals;
#                            signed; span: "min-max" of an array;
#                            sc(NAME): the scenario NAME; cc_pair(PATH;
#                            SUITE; OTHER): a pair of bench/cpucost;
#                            row(SCENARIO; DEFINITION): a row of
#                            tldct-forms.json at testbed scale; chg: one
#                            of its changes with its spread); one line
#
# FILE is relative to bench/published/.  The page's numbers are the
# JSON's: prose around them gives none of its own.

PUB=bench/published

# Every published JSON (a glob under bench/published/, the first that
# matches): how its table is made (bench/lib/GEN.md.jq; ".md": its own .md
# field; "-": it has none) and the code it measures (git pathspecs).
PUB_TABLES='
accuracy/accuracy.json             accuracy         test/net/topo.sh bench/delayline.c tc/switch.*
bbr/parity.json                    bbr-parity       bpf/bbr.bpf.c bpf/bbr.h bpf/lib
cpucost/*.json                     cpucost          bpf/dctcp* bpf/tldct* bpf/bbr* bpf/lib bench/twins bench/ccost.c
flashpass/flashpass.json           flashpass-paper  bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c
flashpass/loop.json                flashpass-loop   bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c
flashpass/coexist.json             flashpass-coexist bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c
flashpass/dynamic*.json            flashpass-dynamic bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c bench/wlgen.c
flashpass/rpc.json                 flashpass-dynamic bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c bench/wlgen.c
flashpass/overprov.json            flashpass-overprov bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c bench/wlgen.c
flashpass-pacer/*.json             flashpass-pacer  bpf/flashpass* bpf/lib tc loader/lib/pacer* loader/algos/flashpass.c
mptcp-baseline/mptcp-baseline.json .md              test/net/topo.sh bench/lib/bulkflows.py
ppqd-paper/ppqd-paper.json         .md              bpf/ppqd* bpf/lia* bpf/lib
tldct/tldct.json                   tldct-paper      bpf/tldct* bpf/dctcp* bpf/lib
tldct/tldct-forms.json             tldct-forms      bpf/tldct* bpf/dctcp* bpf/lib
xcheck/xcheck.json                 backend-xcheck   test/net/topo.sh test/vm
'

# jq helpers of a page's {{FILE: EXPR}}
PUB_JQ_DEFS='
def fix(n): (. * pow(10; n) | round) as $i
	| ($i | fabs | tostring) as $s
	| (if n == 0 then $s
	   else ((("0" * (n + 1 - ($s | length))) // "") + $s) | .[:-n] + "." + .[-n:] end)
	| if $i < 0 then "-" + . else . end;
def pct(n): . * 100 | fix(n);
def signed: if . > 0 then "+\(.)" else tostring end;
def span: "\(min)-\(max)";
def sc(n): .scenarios[] | select(.scenario == n or .name == n);
def row(s; f): first(.rows[] | select(.scenario == s and .form == f and .scale == "testbed"));
def chg: "\(.change_pct | signed) % (\(.per_rep_pct.mean | signed) ± \(.per_rep_pct.sd) a repetition)";
def cc_pair(p; s; b): first(.pairs[] | select(.path == p and .suite == s and .native == b));
'

pub_table_of() {
	local rel=${1#"$PUB"/} pat rest
	while read -r pat rest; do
		[ -n "$pat" ] || continue
		# shellcheck disable=SC2254 # the table's globs
		case $rel in $pat) echo "$rest"; return 0 ;; esac
	done <<<"$PUB_TABLES"
	return 1
}

pub_table() {
	local row gen
	row=$(pub_table_of "$1") || { echo "$1: not in PUB_TABLES" >&2; return 1; }
	gen=${row%% *}
	case $gen in
	-) echo "$1: has no table" >&2; return 1 ;;
	.md) jq -r .md "$1" ;;
	*) jq -r -f "bench/lib/$gen.md.jq" "$1" ;;
	esac
}

pub_pages() {
	local t
	for t in bench/lib/*.page.md; do
		[ -f "$t" ] || continue
		t=${t##*/}
		echo "${t%.page.md}"
	done
}

# how FILE was measured (the {{made}} directive)
pub_made() {
	local json=$1 said=$2
	jq -r --arg said "$said" '
		def nr: if . == null or . == "" then "not recorded" else . end;
		# the distinct values of key k anywhere in the JSON (as its runs
		# recorded them), or null
		def all_of(k): [.. | objects | .[k]? // empty | tostring] | unique
			| if length == 0 then null else join(", ") end;
		.provenance as $p
		| (if $p.command then "`\($p.command)`"
		   elif $said != "" then "`\($said)` (from the text that published it; the JSON does not record the command)"
		   else "not recorded" end) as $cmd
		| "- Command: \($cmd)",
		  (if $p.table_command then "- Table made again by: `\($p.table_command)`" else empty end),
		  ($p.earlier // [] | .[] | "- With the runs of: `\(.command // "not recorded")` at \(.commit // "a commit not recorded")"),
		  "- Commit: \($p.commit | nr)",
		  "- Kernel: \($p.kernel // .kernel // all_of("kernel") | nr)",
		  "- Machine: \(if .cpus then "\(.cpus) CPUs" else all_of("cpus") | if . then "\(.) CPUs" else . end end | nr)",
		  "- Delay backend: \(($p.delay_backend // .delay_backend // all_of("delay_backend"))
			| if type == "array" then join(", ") else . end | nr)",
		  "- Date: \((.date // .env.date) | nr)"' "$PUB/$json"
}

# LINE with each {{FILE: EXPR}} replaced by its value
pub_inline() {
	local line=$1 out="" expr file val
	while [[ $line == *'{{'*'}}'* ]]; do
		out+=${line%%'{{'*}
		line=${line#*'{{'}
		expr=${line%%'}}'*}
		line=${line#*'}}'}
		file=${expr%%:*}
		expr=${expr#*:}
		val=$(jq -r "$PUB_JQ_DEFS $expr" "$PUB/$file") || { echo "{{$file:$expr}}: jq failed" >&2; return 1; }
		[[ $val != *$'\n'* ]] || { echo "{{$file:$expr}}: more than one line" >&2; return 1; }
		out+=$val
	done
	printf '%s\n' "$out$line"
}

pub_page() {
	local tpl=bench/lib/$1.page.md line args
	[ -f "$tpl" ] || { echo "no $tpl" >&2; return 1; }
	echo "<!-- Made by bench/publish-pages from $tpl and the JSON it names: edit those, not this. -->"
	echo
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'{{table '*'}}')
			args=${line#'{{table '}
			pub_table "$PUB/${args%'}}'}" || return 1
			;;
		'{{made '*'}}')
			args=${line#'{{made '}
			args=${args%'}}'}
			pub_made "${args%% *}" "$([[ $args == *' '* ]] && echo "${args#* }")" || return 1
			;;
		*) pub_inline "$line" || return 1 ;;
		esac
	done <"$tpl"
}
