"""Finding failing cases, shrinking them and keeping them (`pipeline stress`), and searching
for slow inputs (`pipeline hunt`).

- `order`: the one total order "simpler" (size measure, then input length, then text);
- `edits`: small helpers the problems' own shrink passes and mutations are built from;
- `judge`: runs a solver S and its reference R on cases through the run layer's executor and
  grades S as runs do;
- `shrink`: the pass loop that makes a failing case locally minimal;
- `generic`: shrink passes and mutations over the judge text alone (lines, tokens, numbers);
- `stress`: generate cases from recipes, judge them in batches, shrink every failure;
- `hunt`: mutate structured cases towards inputs on which S is slowest;
- `findings`: keep what was found as judge files (group `found` or `hunt`), ingested, with a
  row of the `findings` table;
- `status`: the progress line.

Importing this package imports nothing heavy: problems import `edits` for their passes.
"""
