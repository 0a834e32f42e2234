import { keptChoices, type ChoiceSource } from '../src/admin/choices';
import { ShortMemo } from '../src/admin/memo';

describe('ShortMemo: what a page reads the same, kept a short while', () => {
  test('a value is read once within its time, again after it', async () => {
    let now = 0;
    let reads = 0;
    const memo = new ShortMemo<number>(1000, 10, () => now);
    const read = async () => ++reads;
    expect(await memo.get('a', read)).toBe(1);
    now = 999;
    expect(await memo.get('a', read)).toBe(1);
    now = 1000;
    expect(await memo.get('a', read)).toBe(2);
    now = 1500;
    expect(await memo.get('a', read)).toBe(2);
    expect(await memo.get('b', read)).toBe(3);
  });

  test('only what `keep` accepts is kept; a failed read keeps nothing; the oldest key goes past `max`', async () => {
    const memo = new ShortMemo<number>(60000, 2, () => 0);
    let n = 0;
    const read = async () => ++n;
    const keepEven = (v: number) => v % 2 === 0;
    expect(await memo.get('odd', read, keepEven)).toBe(1);
    expect(await memo.get('odd', read, keepEven)).toBe(2); // 1 was not kept
    expect(await memo.get('odd', read, keepEven)).toBe(2); // 2 was
    await expect(memo.get('fails', () => Promise.reject(new Error('statement timeout')))).rejects.toThrow('statement timeout');
    expect(await memo.get('fails', read)).toBe(3);
    expect(await memo.get('third', read)).toBe(4); // three keys: 'odd' (the oldest) goes
    expect(await memo.get('odd', read)).toBe(5);
    expect(await memo.get('third', read)).toBe(4);
  });

  test('no time: nothing is kept', async () => {
    const memo = new ShortMemo<number>(0);
    let n = 0;
    await memo.get('a', async () => ++n);
    expect(await memo.get('a', async () => ++n)).toBe(2);
  });
});

describe('keptChoices: the filter forms’ choices per scope', () => {
  function counting() {
    const calls: string[] = [];
    const signal = new AbortController().signal;
    const source: ChoiceSource = {
      companies: async (scope) => (calls.push(`companies ${scope.company_id ?? ''}`), scope.company_id ? ['Own 3PL'] : ['A', 'B']),
      items: async () => (calls.push('items'), []),
      patrollers: async (scope) => (calls.push(`patrollers ${scope.company_id ?? ''}`), [{ id: '1', name: 'Pat' }]),
      supervisors: async (scope) => (calls.push(`supervisors ${scope.company_id ?? ''}`), ['amina']),
      values: async (name, scope) => (calls.push(`values ${name} ${scope.company_id ?? ''}`), ['good']),
      rider: async (id) => (calls.push(`rider ${id}`), { id, name: 'Rider' }),
      patroller: async (id) => (calls.push(`patroller ${id}`), { id, name: 'Pat' }),
      riders: async (term) => (calls.push(`riders ${term}`), []),
    };
    return { calls, source, signal };
  }

  test('3PLs, items, patrollers and values are read once per scope; riders and people by id each time', async () => {
    const { calls, source, signal } = counting();
    const kept = keptChoices(source, 60000);
    for (let i = 0; i < 3; i++) {
      expect(await kept.companies({}, signal)).toEqual(['A', 'B']);
      expect(await kept.companies({ company_id: '7' }, signal)).toEqual(['Own 3PL']);
      await kept.items(signal);
      await kept.patrollers({ company_id: '7' }, signal);
      await kept.values('return_condition', {}, signal);
      await kept.rider('42', {}, signal);
      await kept.patroller('1', {}, signal);
      await kept.riders('mo', {}, 10, signal);
    }
    const count = (call: string) => calls.filter((c) => c === call).length;
    expect([count('companies '), count('companies 7'), count('items'), count('patrollers 7'), count('values return_condition ')]).toEqual([
      1, 1, 1, 1, 1,
    ]);
    expect([count('rider 42'), count('patroller 1'), count('riders mo')]).toEqual([3, 3, 3]);
  });
});
