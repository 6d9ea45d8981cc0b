/**
 * `npm run bench`: every benchmark, each reporting its figures beside a baseline measured in the
 * same run (ratios, not absolute times: this machine's speed varies). `npm run bench -- --quick`
 * skips the 10x corpus figures.
 */
import { benchEngine } from './engine.js';
import { benchFirstStart } from './first-start.js';
import { printTable } from './report.js';

const quick = process.argv.includes('--quick');
const started = Date.now();
printTable('Run engine: 20 runs x 10 stages through the local transport vs. the same stages in a plain loop', await benchEngine());
const firstStart = await benchFirstStart(quick ? [1] : [1, 10]);
printTable('First start: create, migrate, generate, load, index', firstStart);
process.stdout.write(`\nAll benchmarks done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(0);
