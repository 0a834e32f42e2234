// What the triggers that keep the kept tables cost a writer: ms per transaction of one patrol check
// (rotating over 50 riders, 7 minutes apart), on two databases side by side in alternating rounds,
// e.g. the same data before and after a migration. Writes into both databases: use copies.
//
//   npm run -s build && node dist/bench/kept-writes.js <database URL A> <database URL B> [rounds] [checks]
import pg from 'pg';

async function round(url: string, firstId: number, checks: number): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const riders = (await client.query('SELECT id FROM riders ORDER BY id LIMIT 50')).rows.map((row) => row.id as string);
    const started = process.hrtime.bigint();
    for (let i = 0; i < checks; i++) {
      await client.query(
        `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
         VALUES ($1, $2, (SELECT min(id) FROM patrollers), now() - $3 * interval '7 minutes', true, true, $4)`,
        [firstId + i, riders[i % riders.length], i, i % 3 === 0],
      );
    }
    return Number(process.hrtime.bigint() - started) / 1e6 / checks;
  } finally {
    await client.end();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const [a, b, rounds = '3', checks = '2000'] = process.argv.slice(2);
  if (!a || !b) throw new Error('usage: node dist/bench/kept-writes.js <database URL A> <database URL B> [rounds] [checks]');
  const times: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let r = 0; r < Number(rounds); r++) {
    // Ids far above the data's, new in each round.
    const firstId = 900_000_000 + r * Number(checks);
    times.A.push(await round(a, firstId, Number(checks)));
    times.B.push(await round(b, firstId, Number(checks)));
  }
  for (const side of ['A', 'B'] as const)
    console.log(
      `${side}: ms per one-check transaction ${times[side].map((t) => t.toFixed(3)).join(', ')} (median ${median(times[side]).toFixed(3)})`,
    );
  console.log(`B / A (medians): ${(median(times.B) / median(times.A)).toFixed(2)}`);
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exitCode = 1;
});
