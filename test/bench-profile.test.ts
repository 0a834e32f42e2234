import { componentOf, sumByComponent } from '../bench/profile';

describe('bench --profile: CPU profile samples by component', () => {
  test('a script URL names its npm package, Node.js module or service file; V8 work keeps its own name', () => {
    expect(componentOf('file:///srv/app/node_modules/express-rate-limit/dist/index.cjs', 'middleware')).toBe('express-rate-limit');
    expect(componentOf('file:///srv/app/node_modules/@node-rs/argon2/index.js', 'hash')).toBe('@node-rs/argon2');
    expect(componentOf('file:///srv/app/node_modules/a/node_modules/lodash/lodash.js', 'get')).toBe('lodash');
    expect(componentOf('node:_http_outgoing', 'setHeader')).toBe('node:_http_outgoing');
    expect(componentOf('node:internal/streams/writable', 'write')).toBe('node:internal/streams');
    expect(componentOf('file:///srv/app/dist/src/http/request-id.js', 'requestId')).toBe('src/http/request-id');
    expect(componentOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(componentOf('', 'writev')).toBe('(writev)');
  });

  test('sums each node’s sample time into its component and leaves idle time out', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' } },
        { id: 2, callFrame: { functionName: '(idle)', url: '' } },
        { id: 3, callFrame: { functionName: 'get', url: 'file:///x/node_modules/lodash/lodash.js' } },
        { id: 4, callFrame: { functionName: 'toPath', url: 'file:///x/node_modules/lodash/lodash.js' } },
        { id: 5, callFrame: { functionName: '(garbage collector)', url: '' } },
      ],
      samples: [2, 3, 4, 3, 5, 2],
      timeDeltas: [1000, 10, 20, 30, 40, 500],
    };
    expect(sumByComponent(profile)).toEqual({ lodash: 60, '(garbage collector)': 40 });
  });
});
