import { start } from '../test/testbed/harness.js';
const tb = await start({ log: (l) => console.error('[tb]', l), keepDir: process.env.KEEP === '1' });
console.error(JSON.stringify(tb.timings), tb.node?.hostIp, tb.server, tb.dir);
if (process.env.HOLD) await new Promise((r) => setTimeout(r, Number(process.env.HOLD)));
await tb.stop();
console.error('stopped');
