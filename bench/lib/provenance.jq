# A published JSON's provenance (bench/lib/experiment.sh, exp_stamp): the
# input with .provenance set.  $runs: the records ({command, commit,
# commit_sha, kernel}) of the invocations that measured into the results
# directory, the latest last; $run: "1" when this invocation measured, "0"
# for --report; $command: this invocation's command line; $backends: the
# delay backends of the directory's bench/run results.
#
# The latest run is the one the table is of (command, commit, commit_sha,
# kernel; all null where its directory recorded none); table_command: the
# --report that made the table again from it; delay_backend: the distinct
# backends; earlier: the other runs in the directory and the provenance
# the input already carried (parts of a table published before, merged
# into this one, as bench/flashpass-paper does for one experiment).
def rec: { command, commit, commit_sha, kernel };
(.provenance // null) as $old
| ($runs[-1] // { command: null, commit: null, commit_sha: null, kernel: null } | rec) as $m
| ([$runs[:-1][] | rec] + (if $old then [$old | rec] + ($old.earlier // []) else [] end)
   | map(select(. != $m)) | unique) as $earlier
| ($backends + ($old.delay_backend // []) | unique) as $be
| del(.provenance)
| .provenance = $m
    + (if $run == "0" then { table_command: $command } else {} end)
    + (if ($be | length) > 0 then { delay_backend: $be } else {} end)
    + (if ($earlier | length) > 0 then { earlier: $earlier } else {} end)
