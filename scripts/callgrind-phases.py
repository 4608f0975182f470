#!/usr/bin/env python3
"""Instructions per tick phase from a callgrind run of the sim's crowd bench with one dump per
phase (`crates/sim/benches/crowd_ticks.rs`):

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='crowd_ticks::measured' \
      --dump-before='crowd_ticks::phase_*' --callgrind-out-file=phases.out \
      target/release/deps/crowd_ticks-<hash> --bench
    python3 scripts/callgrind-phases.py phases.out.*

A dump made before a phase's marker holds what ran since the marker before it: the phase that
marker opened. Prints millions of instructions by phase, summed over every measured tick.
"""
import re
import sys

# The phase whose marker comes next → the phase the dump holds.
HELD = {
    "npcs": "input",
    "movement": "npcs",
    "actions": "movement",
    "view": "actions",
    "encode": "view",
    "bench": "encode",
    "input": "bench",
}
ORDER = ["input", "npcs", "movement", "actions", "view", "encode", "bench"]

totals = {}
for path in sys.argv[1:]:
    trigger, total = None, None
    with open(path) as f:
        for line in f:
            m = re.match(r"desc: Trigger: (?:--dump-before=|Dump before )crowd_ticks::phase_(\w+)", line)
            if m:
                trigger = m.group(1)
            m = re.match(r"(?:totals|summary): (\d+)", line)
            if m:
                total = int(m.group(1))
    if trigger in HELD and total is not None:
        phase = HELD[trigger]
        totals[phase] = totals.get(phase, 0) + total
tick = sum(totals.get(p, 0) for p in ORDER[:5])
for phase in ORDER:
    print(f"{phase:<10} {totals.get(phase, 0) / 1e6:>10.1f} M")
print(f"{'tick':<10} {tick / 1e6:>10.1f} M (input to view)")
