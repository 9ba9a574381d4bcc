#!/usr/bin/env bash
# End-to-end checks of the profiling, value-dump and .kiln commands on the demo model:
# kiln profile, kiln bench --trace, kiln run --dump-values, kiln diff, kiln convert.
# usage: debug_tools_test.sh KILN_BINARY REPO_ROOT
set -u

kiln=$1
root=$2
model=$root/demo/digits.onnx
sample=$root/demo/samples/digits_8x8.npy
source "$(dirname "$0")/check_lib.sh"

for cmd in profile convert diff; do
  "$kiln" "$cmd" --help >"$work/help.txt" 2>&1 || fail "kiln $cmd --help exited with $?"
  expect_match "kiln $cmd --help" "$work/help.txt" "^Usage: kiln $cmd "
done

# profile: an op table whose shares add up to 100%, and a trace.
"$kiln" profile "$model" --input "pixels=$sample" --runs 3 --warmup 1 --trace "$work/p.json" \
  >"$work/profile.txt" 2>&1 || fail "profile exited with $?"
expect_match "profile header" "$work/profile.txt" "^op +layers +ms per run +ms per layer +share"
# The CPU worker runs each Conv + Relu as one fused layer.
expect_match "profile Conv row" "$work/profile.txt" "^FusedConv +2 +[0-9.]+ +[0-9.]+ +[0-9.]+%"
awk '/%$/ {gsub("%", "", $NF); s += $NF} END {exit !(s > 99.5 && s < 100.5)}' "$work/profile.txt" ||
  fail "profile shares do not add up to 100%: $(cat "$work/profile.txt")"
expect_match "profile trace line" "$work/profile.txt" "^wrote .*p.json: [0-9]+ tracks"

# bench --trace: a valid Chrome trace with a named track per thread and one event per layer.
"$kiln" bench "$model" --input "pixels=$sample" --runs 3 --warmup 1 --trace "$work/t.json" \
  >"$work/bench.txt" 2>/dev/null || fail "bench --trace exited with $?"
expect_match "bench trace line" "$work/bench.txt" "^trace: .*t.json: [0-9]+ tracks"
# One trace span per layer the worker ran: the profile's layer counts, summed.
layers=$(awk '$2 ~ /^[0-9]+$/ && $1 != "runs:" {n += $2} END {print n}' "$work/profile.txt")
python3 - "$work/t.json" "$layers" <<'PY' || fail "bench --trace wrote an unexpected trace"
import json, sys
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
spans = [e for e in events if e["ph"] == "X"]
layers = [e for e in spans if e["cat"] == "layer"]
assert len(layers) == int(sys.argv[2]), (len(layers), sys.argv[2])
assert all(e["tid"] in names and names[e["tid"]].startswith("cpu worker ") for e in layers)
assert all(e["dur"] >= 0 and e["ts"] >= 0 and "op" in e["args"] for e in layers)
PY
if "$kiln" bench "$model" --runs 1 --trace "$work/no/such/dir/t.json" >"$work/err.txt" 2>&1; then
  fail "bench --trace into a missing folder succeeded"
fi
expect_match "bench bad trace path" "$work/err.txt" "t.json"

# run --dump-values: one .npy per node output, named after the node, and an index; diff of a
# dump against itself finds nothing, against an altered copy finds the altered node.
"$kiln" run "$model" --input "pixels=$sample" --dump-values "$work/d1" >"$work/run.txt" 2>&1 ||
  fail "run --dump-values exited with $?"
expect_match "dump summary" "$work/run.txt" "^wrote [0-9]+ values to "
expect_match "dump printed outputs" "$work/run.txt" "^output 0 'logits'"
[[ $(grep -c '^output ' "$work/run.txt") == 1 ]] || fail "run --dump-values printed more than the model's outputs"
ls "$work/d1" | grep -Eq '^0000-Conv-.*\.0\.npy$' || fail "no 0000-Conv-*.0.npy in the dump: $(ls "$work/d1")"
[[ $(($(wc -l <"$work/d1/index.tsv") - 1)) == $(ls "$work/d1" | grep -c '\.npy$') ]] ||
  fail "index.tsv does not list every .npy file"
cp -r "$work/d1" "$work/d2"
"$kiln" diff "$work/d1" "$work/d2" >"$work/diff.txt" 2>&1 || fail "diff of equal dumps exited with $?"
expect_match "diff equal" "$work/diff.txt" "^no difference: [0-9]+ values close"
second=$(awk -F'\t' 'NR == 3 {print $7}' "$work/d1/index.tsv")
python3 - "$work/d2/$second" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
header = struct.unpack("<H", data[8:10])[0] + 10
data[header:header + 4] = struct.pack("<f", struct.unpack("<f", data[header:header + 4])[0] + 1.0)
open(path, "wb").write(data)
PY
if "$kiln" diff "$work/d1" "$work/d2" >"$work/diff.txt" 2>&1; then fail "diff missed an altered value"; fi
node=$(awk -F'\t' 'NR == 3 {print $2}' "$work/d1/index.tsv")
expect_match "diff names the node" "$work/diff.txt" "^first difference at node 1 '$node'.*flat index 0"
"$kiln" diff "$work/d1" "$work/d2" --atol 2 >"$work/diff.txt" 2>&1 || fail "diff --atol 2 still differs"
if "$kiln" diff "$work/d1" "$work/d2" --rtol abc >"$work/err.txt" 2>&1; then fail "diff --rtol abc succeeded"; fi
expect_match "diff bad --rtol" "$work/err.txt" "rtol.*abc|abc.*rtol"
if "$kiln" diff "$work/d1" "$work" >"$work/err.txt" 2>&1; then fail "diff against a non-dump succeeded"; fi
expect_match "diff not a dump" "$work/err.txt" "not a value dump"

# convert: the .kiln file runs like the .onnx file, whatever its name; a cut file is refused.
"$kiln" convert "$model" "$work/digits.kiln" >"$work/convert.txt" 2>&1 || fail "convert exited with $?"
expect_match "convert summary" "$work/convert.txt" "^wrote .*digits.kiln: [0-9]+ nodes"
cp "$work/digits.kiln" "$work/named_like.onnx"
for f in "$work/digits.kiln" "$work/named_like.onnx"; do
  "$kiln" run "$f" --input "pixels=$sample" >"$work/run_kiln.txt" 2>&1 || fail "run $f exited with $?"
  cmp -s <(grep '^output' "$work/run.txt") <(grep '^output' "$work/run_kiln.txt") ||
    fail "$f gave other outputs than the .onnx model"
done
head -c 1000 "$work/digits.kiln" >"$work/cut.kiln"
if "$kiln" run "$work/cut.kiln" --input "pixels=$sample" >"$work/err.txt" 2>&1; then
  fail "a truncated .kiln file ran"
fi
expect_match "truncated .kiln" "$work/err.txt" "truncated .kiln file"

finish "debug-tool CLI"
