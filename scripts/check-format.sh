#!/usr/bin/env bash
# Checks that kforge's C++ sources follow .clang-format, with Debian's clang-format (scripts/setup.sh installs
# it). Lists each file clang-format would change, with the number of lines it would change, and exits 1 when
# there is any.
#   --fix       format those files in place instead
# Not formatted: the candidate kernels kept as test inputs (a candidate as a model wrote it) and kforge.h,
# which prompts show verbatim.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=check
for arg in "$@"; do
  case "$arg" in
    --fix) mode=fix ;;
    -h | --help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-format: unknown option '$arg' (--fix)" >&2; exit 2 ;;
  esac
done

clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
  echo "check-format: $clang_format not found: install Debian's clang-format package (scripts/setup.sh does)" >&2
  exit 2
fi

mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.cu' \
  ':!:tests/adversarial/cuda/*' ':!:tests/adversarial/host/*' ':!:tests/audit/dlrm_cuda/*' \
  ':!:tests/evaluator/cuda/*' ':!:tests/evaluator/host/*' ':!:evaluator/kforge.h')

if [ "$mode" = fix ]; then
  "$clang_format" -i --style=file "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi

# One pass names the files that differ; only those are diffed for the count.
mapfile -t differ < <("$clang_format" --dry-run --style=file "${files[@]}" 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: \(warning\|error\): code should be clang-formatted.*/\1/p' | sort -u)
if ((${#differ[@]} == 0)); then
  echo "check-format: all ${#files[@]} files follow .clang-format"
  exit 0
fi
total=0
for f in "${differ[@]}"; do
  n=$("$clang_format" --style=file "$f" | diff -U0 "$f" - | tail -n +3 | grep -c '^[-+]' || true)
  total=$((total + n))
  echo "  $f: $n lines"
done
echo "check-format: ${#differ[@]} of ${#files[@]} files would change ($total lines removed or added);" \
  "scripts/check-format.sh --fix formats them"
exit 1
