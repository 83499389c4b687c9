#!/usr/bin/env bash
# stress.sh N "command": run command N times while a busy loop holds one core; log pass/fail per run
n=$1; shift; cmd="$*"
python3 -c "while True: pass" & busy=$!
trap "kill $busy" EXIT
pass=0; fail=0
for i in $(seq 1 $n); do
  s=$(date +%s)
  if bash -c "$cmd" > "${STRESS_LOGS:-/tmp}/stress_run_$i.log" 2>&1; then pass=$((pass+1)); r=ok; else fail=$((fail+1)); r=FAIL; fi
  echo "run $i: $r $(( $(date +%s) - s ))s"
done
echo "$pass passed, $fail failed"
