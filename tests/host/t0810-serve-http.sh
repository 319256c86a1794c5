#!/bin/bash
# lockstat serve read by the real clients: Debian's Prometheus scrapes
# /metrics and sees fdstorm's file_lock waits as a rate; go tool pprof
# reads /debug/pprof/profile and /debug/pprof/mutex, and their totals
# agree with report on the segment that recorded the same waits and
# samples; two requests for the same window get the same profile.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
require_root; require_btf; require_tracepoint; require_perf_event
require_cmd jq; require_cmd curl; require_cmd go; require_cmd prometheus

# A free loopback port for Prometheus.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# pprof_total FILE: the "of X total" figure of go tool pprof -top, in its unit.
pprof_total() { sed -n 's/.* of \([0-9.]*\)[a-z]* total.*/\1/p' "$1" | head -1; }

# --- pprof: one process, the same waits and samples as the segment's report -----------
D=$T/pprof
mkfifo go.fifo
# The target waits for the go, runs fdstorm, then idles while the profiles are read.
(read -r _ <go.fifo; "$WL/fdstorm" -t 2 -d 3 >pprof-fd.out; sleep 6) &
wl=$!
serve_start pprof -D "$D" -s 3600 -p $wl || { not_ok "serve starts"; done_testing; exit; }
sleep 1.5
export PPROF_TMPDIR=$T/pprof-tmp
go tool pprof -top -sample_index=samples "$URL/debug/pprof/profile?seconds=6" >cpu.top 2>cpu.err &
gp=$!
curl -s -o same1.pb.gz "$URL/debug/pprof/mutex?seconds=5" &
c1=$!
curl -s -o same2.pb.gz "$URL/debug/pprof/mutex?seconds=5" &
c2=$!
sleep 0.5
echo go >go.fifo
wait $c1 $c2
wait $gp
check "two requests for the same mutex window get the same profile ($(stat -c %s same1.pb.gz) bytes)" \
	bash -c '[ -s same1.pb.gz ] && cmp -s same1.pb.gz same2.pb.gz'
go tool pprof -top -sample_index=delay -unit=ms "$URL/debug/pprof/mutex" >mutex.top 2>mutex.err
go tool pprof -top -sample_index=contentions "$URL/debug/pprof/mutex" >cont.top 2>>mutex.err
wait $SERVE_PID
SERVE_RC=$?
check "serve exits 0 when the -p process exits ($SERVE_RC)" test "$SERVE_RC" = 0
seg=$(segments "$D" | tail -1)
"$LOCKSTAT" report -i "$D/$seg" -f json >pprof-report.json
"$LOCKSTAT" report -i "$D/$seg" --view hits -f json >pprof-hits.json
samples=$(jq .total_samples pprof-hits.json)
wait_ms=$(jq '.total.wait_total_ns / 1e6' pprof-report.json)
contended=$(jq '.total.contended' pprof-report.json)
echo "# report: $samples samples, $contended waits, ${wait_ms} ms; pprof: $(pprof_total cpu.top) samples," \
	"$(pprof_total cont.top) waits, $(pprof_total mutex.top) ms"
within5() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && a <= b * 1.05 && b <= a * 1.05) }'; }
check "profile?seconds=6: go tool pprof's samples are report's within 5 %" within5 "$(pprof_total cpu.top)" "$samples"
# The comparison needs waits: fdstorm's threads must have run at once.
if overlapped_in pprof-fd.out || [ "${contended:-0}" -gt 0 ]; then
	check "mutex: go tool pprof's contentions are report's within 5 %" within5 "$(pprof_total cont.top)" "$contended"
	check "mutex: go tool pprof's delay is report's wait within 5 %" within5 "$(pprof_total mutex.top)" "$wait_ms"
else
	concurrency_skip "mutex totals against report"
fi

# --- Prometheus scrapes /metrics under fdstorm ------------------------------------------
D=$T/prom
serve_start prom -D "$D" -s 3600 || { not_ok "serve starts"; done_testing; exit; }
pport=$(free_port)
cat >prom.yml <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: lockstat
    static_configs:
      - targets: ['${URL#http://}']
EOF
prometheus --config.file=prom.yml --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >prom.log 2>&1 &
prom=$!
PROM=http://127.0.0.1:$pport
wait_for "curl -sf $PROM/-/ready >/dev/null" 30 || echo "# prometheus is not ready: $(tail -n 3 prom.log)"
# Ready is not scraping: its first scrape can come seconds later, after
# fdstorm below has ended when both CPUs are busy with it, and a rate
# over samples all taken after the storm is 0. Wait for a scrape first.
up_q="curl -s $PROM/api/v1/query --data-urlencode 'query=up{job=\"lockstat\"}' | jq -e '.data.result[0].value[1] == \"1\"' >/dev/null"
wait_for "$up_q" 30 || echo "# prometheus has not scraped serve yet: $(tail -n 3 prom.log)"
fl='lockstat_lock_wait_seconds_total{lock="files_struct.file_lock",type="spinlock"}'
curl -sf "$URL/metrics" >before.metrics
"$WL/fdstorm" -t 2 -d 5 >prom-fd.out
sleep 3
curl -sf "$URL/metrics" >after.metrics
grew=$(awk -v a="$(metric "$fl" before.metrics)" -v b="$(metric "$fl" after.metrics)" 'BEGIN { print (b + 0 > a + 0) }')
# The cost ledger's terms: the machine's CPU grew by fdstorm's at least in part, start-up > 0.
wl='lockstat_workload_cpu_seconds_total{source="system"}'
check "the workload's CPU (the machine's) grew under fdstorm ($(metric "$wl" before.metrics) s, then $(metric "$wl" after.metrics) s)" \
	awk -v a="$(metric "$wl" before.metrics)" -v b="$(metric "$wl" after.metrics)" 'BEGIN { exit !(a != "" && b - a >= 0.5) }'
check "lockstat's start-up CPU is > 0 ($(metric lockstat_startup_cpu_seconds after.metrics) s)" \
	awk -v a="$(metric lockstat_startup_cpu_seconds after.metrics)" 'BEGIN { exit !(a > 0) }'
# A loaded machine delays Prometheus' scrapes during the storm: ask over
# 30 s, until the series has two samples (at most 20 s).
q='rate(lockstat_lock_wait_seconds_total{lock="files_struct.file_lock"}[30s])'
rate_q="curl -s $PROM/api/v1/query --data-urlencode 'query=$q' >rate.json && jq -e '.data.result | length > 0' rate.json >/dev/null"
wait_for "$rate_q" 20 || echo "# no rate from Prometheus yet: $(head -c 300 rate.json)"
curl -s "$PROM/api/v1/query" --data-urlencode 'query=up{job="lockstat"}' >up.json
check "Prometheus scrapes serve (up == 1)" jqe '.data.result[0].value[1] == "1"' up.json
echo "# serve's $fl: $(metric "$fl" before.metrics) s before fdstorm, $(metric "$fl" after.metrics) s after"
[ -n "$(metric "$fl" after.metrics)" ] ||
	echo "# serve's wait series after fdstorm: $(grep '^lockstat_lock_wait_seconds_total' after.metrics | sort -k2 -g -r | head -n 4 | tr '\n' ' ')"
if overlapped_in prom-fd.out || [ "$grew" = 1 ]; then
	# Quieter locks may have taken every place before the storm: it must take one at once.
	check "the storm's lock has a series of its own, not other's (grew: $grew)" test "$grew" = 1
	check "Prometheus: rate(lockstat_lock_wait_seconds_total{lock=\"files_struct.file_lock\"}) > 0 ($(jq -c '.data.result[0].value[1]' rate.json))" \
		jqe '[.data.result[].value[1] | tonumber] | length > 0 and max > 0' rate.json
else
	concurrency_skip "the file_lock wait rate in Prometheus"
fi
kill -TERM $prom
wait $prom 2>/dev/null
serve_stop TERM
check "serve exits 0 on SIGTERM after the scrapes ($SERVE_RC)" test "$SERVE_RC" = 0
done_testing
