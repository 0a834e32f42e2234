// --explain: the plans behind the figures, for whoever optimises next. Request scenarios get
// EXPLAIN (ANALYZE, BUFFERS) with a sample id (the middle of the range); the full streams only
// EXPLAIN, since analysing them costs a whole stream each.
import pg from 'pg';
import { naivePageScript, serviceScript, serviceSql, STREAM_PATHS, type LoadScenario } from './scenarios';

export async function explainAll(url: string, scenarios: LoadScenario[]): Promise<string> {
  const client = new pg.Client(url);
  await client.connect();
  const out: string[] = [];
  try {
    await client.query(`SET TimeZone = ${client.escapeLiteral(process.env.TIME_ZONE || 'UTC')}`);
    const explain = async (title: string, text: string, values: unknown[], analyze: boolean) => {
      const options = analyze ? 'ANALYZE, BUFFERS' : 'VERBOSE false';
      const { rows } = await client.query({ text: `EXPLAIN (${options}) ${text}`, values, rowMode: 'array' });
      out.push(`=== ${title}\n${rows.map((r) => r[0]).join('\n')}\n`);
    };
    for (const scenario of scenarios) {
      const { sample } = await serviceScript(scenario);
      const shown = sample.values.length ? ` [values: ${sample.values.join(', ')}]` : '';
      await explain(`${scenario.group} /v2${scenario.path} (${scenario.label})${shown}`, sample.text, sample.values, true);
      if (scenario.naive) {
        const naive = naivePageScript(scenario.naive.page).sample;
        await explain(`naive page ${scenario.naive.page} [values: ${naive.values.join(', ')}]`, naive.text, naive.values, true);
      }
    }
    for (const path of STREAM_PATHS) {
      const native = await serviceSql(path, {});
      await explain(`stream /v2${path} (plan only)`, native.text, native.values, false);
    }
  } finally {
    await client.end();
  }
  return out.join('\n');
}
