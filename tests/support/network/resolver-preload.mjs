// Loaded with `node --import` before dist/index.js by the tests that need it: lends the network gate the
// test's resolver map (src/network/proxy/resolver.ts, TEST_RESOLVER), read from TODO_AGENT_TEST_RESOLVE, a JSON
// object of `name → { address, port?, trusted? }`. The action itself never reads that variable: only a
// module loaded into its process can lend a map.
const map = JSON.parse(process.env.TODO_AGENT_TEST_RESOLVE ?? '{}');
globalThis[Symbol.for('todo-agent.test-resolver')] = Object.freeze(map);
delete process.env.TODO_AGENT_TEST_RESOLVE;
