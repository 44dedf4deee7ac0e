// Starts a node testbed, prints `slot <node slot>` and `dir <state dir>` and waits to be killed: the SIGKILL clean-up test's host process.
import { start } from '../harness.js';

const tb = await start({ handleSignals: false });
process.stdout.write(`slot ${tb.node!.slot}\ndir ${tb.dir}\n`);
setInterval(() => {}, 60_000);
