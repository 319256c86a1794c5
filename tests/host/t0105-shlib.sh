#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Symbols inside shared libraries (lib/record/uresolve.c): usehot burns CPU in
# hot_linked() of liblinked.so, a library it links, and in hot_loaded()
# of libloaded.so, which it dlopen()s a quarter into its run (after the
# sampler has seen the process); both are mapped wherever the loader
# likes, and usehot measures the CPU time each took. The hit list must
# name both functions with their library, at the address binutils' nm
# gives in the library, in the ratio of usehot's own CPU times, with the
# source line of the loop, and still after the libraries are deleted.
. "$(dirname "$0")/lib.sh"
require_root; require_btf; require_perf_event; require_cmd jq

src=$ROOT_DIR/tests/host/progs
cflags=(-std=gnu11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer)
shlibs_build() {
	${CC:-cc} "${cflags[@]}" -shared -fPIC -DHOT_FN=hot_linked -o liblinked.so "$src/hotlib.c" &&
	${CC:-cc} "${cflags[@]}" -shared -fPIC -DHOT_FN=hot_loaded -o libloaded.so "$src/hotlib.c" &&
	${CC:-cc} "${cflags[@]}" -o usehot "$src/usehot.c" -L. -llinked -Wl,-rpath,"$T" -ldl
}
check "usehot and its two libraries build" shlibs_build

"$LOCKSTAT" record -q -e sample -F 999 -o so.data -- ./usehot 4 "$T" >usehot.out
check "record exits 0 ($?)" test $? = 0
echo "# $(cat usehot.out)"
"$LOCKSTAT" report -i so.data --view hits -f json >so.json
row() { jq -c "[.functions[] | select(.symbol == \"$1\")]" so.json; }
echo "# $(row hot_linked) $(row hot_loaded)"
for lib in linked loaded; do
	fn=hot_$lib
	check "$fn is named, in $T/lib$lib.so" jqe "[.functions[] | select(.symbol == \"$fn\")] | length == 1 and .[0].module == \"$T/lib$lib.so\" and .[0].samples > 0" so.json
	addr=$(nm -D --defined-only "lib$lib.so" | awk -v f="$fn" '$3 == f { print $1 }')
	check "$fn is at nm's address in lib$lib.so (0x$addr)" \
		jqe "[.functions[] | select(.symbol == \"$fn\") | .address] == [$((16#${addr:-x}))]" so.json
done
linked=$(jq '[.functions[] | select(.symbol == "hot_linked") | .samples] | add // 0' so.json)
loaded=$(jq '[.functions[] | select(.symbol == "hot_loaded") | .samples] | add // 0' so.json)
want=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	END { if (v["loaded_us"] > 0) printf "%.2f", v["linked_us"] / v["loaded_us"] }' usehot.out)
check "samples hot_linked:hot_loaded ($linked:$loaded) are usehot's CPU times' ${want:-?}:1 within 20 %" \
	awk -v a="$linked" -v b="$loaded" -v w="${want:-0}" 'BEGIN { exit !(b > 0 && w > 0 && a / b >= 0.8 * w && a / b <= 1.2 * w) }'

# The loop's line, from the source; the sample may fall on the for above it.
hot=$(grep -n 'HOT LINE' "$src/hotlib.c" | cut -d: -f1)
"$LOCKSTAT" report -i so.data --view hits --lines -f json >lines.json
check "--lines: hot_linked's most sampled line is the loop's, hotlib.c:$hot ($(jq -c '[.functions[] | select(.symbol == "hot_linked")] | max_by(.samples) | [.file, .line]' lines.json))" \
	jqe "[.functions[] | select(.symbol == \"hot_linked\")] | max_by(.samples) | (.file | endswith(\"/hotlib.c\")) and (.line == $hot or .line == $hot - 1)" lines.json

rm -f liblinked.so libloaded.so
"$LOCKSTAT" report -i so.data --view hits -f json >gone.json
check "the libraries deleted, the profile still names both" \
	jqe '[.functions[].symbol] | index("hot_linked") != null and index("hot_loaded") != null' gone.json
done_testing
