#!/bin/bash
# Two workers on PostgreSQL share a campaign; one (A) is SIGKILLed once two units are done, and a third (C) starts.
# Prints what the database held before the kill and at the end (units by worker, attempts, part bounds, wall time).
#   bash benchmarks/campaign_kill.sh bound campaigns/bounds-8-3-1.campaign.json /tmp/kill/b831.json
#   bash benchmarks/campaign_kill.sh rollout /tmp/kill/rollout-4-7-1.campaign.json /tmp/kill/r471.json
#   bash benchmarks/campaign_kill.sh steps benchmarks/kill-steps-8-3-1.campaign.json /tmp/kill/s/tree/steps.json
# (the rollout spec: kind rollout, game 4,7,1, plan entropy, exact_at_most 60, width 6, levels 3, min_size 20,
# from_turn 2; the steps spec, benchmarks/kill-steps-8-3-1.campaign.json: a rollout of most-parts, exact_at_most 40,
# width 2, levels 2, min_size 400, from_turn 2, then a polish above 40 to 200 candidates at 2 s each; a steps
# campaign's units are those of the job of the step under way).  Needs the machine's PostgreSQL (createdb, dropdb, psql as postgres on
# 127.0.0.1).
set -u
B="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/bullscows"
DB=demo56_$$
createdb -h 127.0.0.1 -U postgres $DB
URL="postgresql+psycopg://postgres@127.0.0.1:5432/$DB"
KIND=$1; SPEC=$(realpath "$2"); PROG=$(realpath -m "$3")
mkdir -p "$(dirname "$PROG")"
cd "$(dirname "$PROG")"
start=$(date +%s.%N)
$B campaign run $SPEC --progress $PROG --url $URL --no-worker --export-every 5 > $KIND.out 2> $KIND.err &
RUN=$!
sleep 3
setsid $B worker --url $URL --processes 1 --name A > A.$KIND.log 2>&1 &
A=$!
setsid $B worker --url $URL --processes 1 --name B > B.$KIND.log 2>&1 &
WB=$!
# wait for 2 units done
while true; do
  n=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select count(*) from job_units where status='done'" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 2 ] && break
  sleep 1
done
sleep 2
before=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select count(*) from job_units where status='done'")
running=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select count(*) from job_units where status='running' and worker like 'A%'" 2>/dev/null)
parts=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select count(*) from bound_parts" 2>/dev/null || echo -)
echo "before kill: units done $before, A running $running, bound_parts rows $parts" > $KIND.summary
kill -9 -- -$A
echo "killed worker A (SIGKILL to its process group) at $(date +%T)" >> $KIND.summary
sleep 1
setsid $B worker --url $URL --processes 1 --name C > C.$KIND.log 2>&1 &
C=$!
wait $RUN
rc=$?
end=$(date +%s.%N)
after=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select count(*) from job_units where status='done'")
byw=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select worker||':'||count(*) from job_units where status='done' group by worker order by worker" | tr '\n' ' ')
tries=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select sum(attempts) from job_units" 2>/dev/null || echo -)
parts2=$(psql -h 127.0.0.1 -U postgres -d $DB -tAc "select count(*) from bound_parts" 2>/dev/null || echo -)
echo "campaign run rc $rc; units done $after ($byw); attempts $tries; bound_parts rows $parts2; wall $(python3 -c "print(round($end-$start,1))") s" >> $KIND.summary
kill -- -$WB -$C 2>/dev/null
sleep 1
dropdb -h 127.0.0.1 -U postgres $DB
cat $KIND.summary
