#!/usr/bin/env bash
# The fault suite and the nemesis as CI runs them (they are mostly waiting, for outages, sessions and
# restarts). First the fault tests in two lanes side by side: lane 1 those that break Kafka brokers of their
# own or measure a pause against a session, lane 2 those that assert outcomes only (counts, states, memory).
# Then, one at a time and alone on the machine, the tests that failed when they shared it: kafka-outage (a
# settle deadline, and replies read short of the commands in two runs beside kafka-freeze), output-transactions
# (a zombie's pause timed against its session), partner-restart (a partner's rate against restarts), and the
# nemesis (anomalies under a loaded machine: docs/reliability.md). Fails when any part fails.
set -u
cd "$(dirname "$0")/.."
export LEFTOVER_TIMER_STACKS=1
alone='kafka-outage|output-transactions|partner-restart'
outcomes_only='np-responses|np-held-partition|np-worker-kill|np-activation-refused|port-order-crash|portin-create-crash|transfer-crash|registry-schemas|redis-refusals|redis-outage|worker-restart|group-failover|poison-input'
files() { echo "test/faults/($1)\\.test\\.ts"; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=0

jest --selectProjects faults --runInBand --forceExit --testPathIgnorePatterns "$(files "$alone|$outcomes_only")" >"$logs/1" 2>&1 &
lane1=$!
jest --selectProjects faults --runInBand --forceExit "$(files "$outcomes_only")" >"$logs/2" 2>&1 &
lane2=$!
for lane in 1 2; do
  status=0
  wait "$([ "$lane" = 1 ] && echo "$lane1" || echo "$lane2")" || status=$?
  echo "=== faults, lane $lane of 2: exit $status"
  cat "$logs/$lane"
  [ "$status" = 0 ] || failed=1
done

echo "=== faults, one at a time: ${alone//|/, }"
jest --selectProjects faults --runInBand --forceExit "$(files "$alone")" || failed=1
echo "=== the nemesis"
jest --selectProjects nemesis --runInBand --forceExit || failed=1
exit "$failed"
