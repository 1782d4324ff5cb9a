# shellcheck shell=bash
# The command blocks of a Markdown file, for docs/check-commands (do they
# name what exists?) and test/net/t_docs.sh (do they run?).
#
# A fenced block (```) that shows commands says on the line before its
# fence whether t_docs runs it:
#
#   <!-- runs -->               t_docs runs it, line by line, as root on
#                               the host (its own network namespace for
#                               what connects)
#   <!-- not run: WHY -->       shown only: it needs the test network, a
#                               second host, or changes the host's defaults
#
# A block of commands is fenced ```sh; other blocks (output, a directory
# listing) are not commands and say nothing.

# doc_blocks FILE: each code line of FILE's fenced blocks, continuations
# joined: "FENCE<TAB>MARK<TAB>LINENO<TAB>TEXT", FENCE the line of the
# block's fence, MARK "runs", "not run", "-" (a ```sh block that says
# neither) or "text" (not ```sh).
doc_blocks() {
	awk '/^ *```/ {
		inb = !inb
		if (inb) { fence = NR; mark = "-"
			if ($0 !~ /^ *```sh *$/) mark = "text"
			else if (prev ~ /^<!-- runs -->$/) mark = "runs"
			else if (prev ~ /^<!-- not run: .+ -->$/) mark = "not run" }
		next }
	     !inb { if ($0 != "") prev = $0; next }
	     { if (cont != "") { cont = cont " " $0 } else { cont = $0; at = NR } }
	     /\\$/ { sub(/\\$/, "", cont); next }
	     { print fence "\t" mark "\t" at "\t" cont; cont = "" }' "$1"
}
