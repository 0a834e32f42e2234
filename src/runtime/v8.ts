import v8 from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring for this process. V8 watches where objects are made and,
 * when many made at one place survive a young-generation collection, makes the later ones directly in
 * the old generation. Under load, an answer of many rows waits on the database long enough that its
 * rows (pg's row arrays, their text) at times survive one: V8 then put every later row in the old
 * generation, where each died at once and only full collections freed them. On patrol checks by rider
 * that cost about 45 µs of CPU per answer (docs/runs/BENCHMARKS.md). Objects that really live long are still
 * promoted, after two young collections. Set here rather than on node's command line so that it holds
 * however the process is started: NODE_OPTIONS does not accept this flag.
 */
export function tuneV8(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
