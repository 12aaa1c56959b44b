#!/usr/bin/env bash
# Regenerate the per-packet admission traces that p4-reference replays
# (format: p4-reference/TRACE_FORMAT.md): 4000 packets at leaf1 of the CI-sized
# ABM §4.4 scenario, once per exact scheme the P4 model implements.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${ALPHAD_NS3_BIN:-build/ns3-harness/alphad-ns3-sim}
OUT=p4-reference/tests/data
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for scheme in dt abm fb; do
  args=(--scheme=$scheme --cdf=ns3-harness/data/websearch.cdf --gen=0.01 --drain=0.005 --qps=150
        --seed=2 --groups=0,0,0,0,0,0,0,0 --traceSwitch=leaf1 --tracePackets=4000
        --traceStart=0.0061 --out="$TMP/$scheme")
  "$BIN" "${args[@]}" 2>"$TMP/$scheme.log"
  { echo "# command=alphad-ns3-sim ${args[*]%--out=*}" | sed "s| --out=$TMP/$scheme||"
    cat "$TMP/$scheme/packets.csv"; } >"$OUT/ns3-$scheme-leaf1.csv"
  echo "$OUT/ns3-$scheme-leaf1.csv: $(grep -vc '^#' "$OUT/ns3-$scheme-leaf1.csv") lines"
done
