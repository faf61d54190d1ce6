#!/usr/bin/env bash
# The targets the project retired, each with the measurement that showed
# its limit. Prints a Markdown section (text, not a measurement of this run).
cat <<'MD'
## Retired targets

Two targets were retired; the library's table above marks them. Each was
blocked by a measurement that showed the limit on a 2-core machine, and
each is replaced by gateway-level figures (what a gateway's client sees),
which the operations pages report.

- **Narrative in 4-byte pushes ≥ 40% of whole input.** At the floor: 27–31%
  on the borrowing path, about 600 MB/s in 4-byte pushes, far beyond any
  model's rate. The prose push is one cached test and a three-byte word
  test; with the bench's own callback made empty it took 1.85 ns instead
  of 2.09, with its bookkeeping also taken out 1.48 ns: no one part of it
  is most of it. Reaching 40% would need the pieces to cost less than
  everything but the prose pushes costs above whole input.
- **10,000 streams on one thread ≥ 50% of one after another.** Bounded near
  48% on this machine for a stream adapter that hands out owned events.
  For 50%, 10,000 in flight may take at most twice the sequential time, so
  at most 32 ns a wake-up beyond the runtime and the parsing itself: about
  what writing 11 cache lines side by side costs (`examples/scale_profile`,
  `touch:16` took 47 ns a wake-up). A push in prose already costs 42 ns
  more with 10,000 in flight (the parser's face, the list of events, one
  event's string); at that price for every push the ratio would be 48%.
MD
echo
