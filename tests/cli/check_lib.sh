# Shared by the command-line test scripts (source it after `set -u`): a scratch folder $work,
# removed on exit; fail, which counts a failed check; expect_match; and finish, which prints the
# summary and exits non-zero when a check failed.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_match DESCRIPTION FILE REGEX: FILE must contain a line matching REGEX (grep -E).
expect_match() {
  grep -Eq -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; cat "$2"; }
}

# finish WHAT: "all WHAT checks passed", or the number that failed and exit status 1.
finish() {
  if ((failures)); then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "all $1 checks passed"
}
