// Machine-readable figures of a bench: with BENCH_JSON=<file>, each bench appends one JSON line
// `{"bench": name, "figures": {...}}` to the file (bench/check.ts reads them); without it, nothing is written.
import { appendFileSync } from 'node:fs';

export function recordResults(bench: string, figures: Record<string, number>): void {
  const file = process.env.BENCH_JSON;
  if (file) appendFileSync(file, `${JSON.stringify({ bench, figures })}\n`);
}
