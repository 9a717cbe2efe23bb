/** The CLI from source, for tests that need a real process: node --import tsx cli-entry.ts wire ... */
import { run } from '../../cli/main.js';

await run('heimdall', process.argv.slice(2));
