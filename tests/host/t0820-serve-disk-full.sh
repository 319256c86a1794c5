#!/bin/bash
# lockstat serve on a full disk (a small tmpfs): it says so once, keeps
# serving /metrics, leaves the segment it was writing readable, and
# writes segments again once there is room.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
require_root; require_btf; require_tracepoint; require_cmd jq; require_cmd curl

D=$T/tmpfs
mkdir -p "$D"
mount -t tmpfs -o size=8m lockstat-t0820 "$D" || skip_all "TMPFS: cannot mount a tmpfs on $D"
trap 'umount -l "$D" 2>/dev/null' EXIT

serve_start full -D "$D" -s 3600 -v || { not_ok "serve starts"; done_testing; exit; }
wait_for "[ \$(segments $D | wc -l) = 1 ]" 5
first=$(segments "$D" | head -1)
sleep 2.5	# a few buckets in it first
# Fill the disk: the next bucket serve writes fails.
dd if=/dev/zero of="$D/filler" bs=64k 2>/dev/null
"$WL/fdstorm" -t 2 -d 3 -q >/dev/null
wait_for "grep -q 'has room again' full.err" 10
check "a full disk is said once ($(grep -c 'has room again' full.err) lines)" \
	test "$(grep -c 'has room again' full.err)" = 1
curl -sf "$URL/metrics" >full.metrics
check "/metrics is still served on a full disk: one write error counted" \
	test "$(metric lockstat_segment_write_errors_total full.metrics)" = 1
"$LOCKSTAT" report -i "$D/$first" -f json >first.json 2>first.err
check "the segment it was writing stays readable, with its buckets before the full disk" \
	jqe '.meta.duration_ns >= 1000000000' first.json
# Room again: at least SERVE_RESUME_FREE_BYTES (4 MiB) free.
rm -f "$D/filler"
wait_for "grep -q 'writing segments again' full.err" 10
check "with room again, serve says it writes segments again" grep -q 'writing segments again' full.err
wait_for "[ \$(segments $D | wc -l) = 2 ]" 5
second=$(segments "$D" | tail -1)
"$WL/fdstorm" -t 2 -d 2 -q >/dev/null
serve_stop TERM
check "SIGTERM: serve exits 0 ($SERVE_RC)" test "$SERVE_RC" = 0
check "a new segment after the full disk, and it is complete ($second)" \
	bash -c '[ "$1" != "$2" ] && "$0" fsck -q "$3/$2"' "$LOCKSTAT" "$first" "$second" "$D"
"$LOCKSTAT" report -i "$D/$second" --view hits -f json >second.json
check "the new segment has samples ($(jq .total_samples second.json))" jqe '.total_samples > 0' second.json
done_testing
