// `npm run bench`: runs every bench/*.bench.ts (each default-exports an async function returning a
// Markdown section) and writes BENCHMARKS.md with the date and the machine. Run one with
// `npm run bench -- NAME` (e.g. `npm run bench -- csp`); the others' sections are kept from the
// previous BENCHMARKS.md so a partial run does not erase them.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const benches = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const out = path.join(root, 'BENCHMARKS.md');
const previous = existsSync(out) ? readFileSync(out, 'utf8') : '';

function previousSection(name) {
  const m = new RegExp(`<!-- bench:${name} -->([\\s\\S]*?)<!-- /bench:${name} -->`).exec(previous);
  return m ? m[1].trim() : undefined;
}

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
const date = new Date().toISOString().slice(0, 10);
const sections = [];
let failed = false;
for (const file of benches) {
  const name = file.replace(/\.bench\.ts$/, '');
  if (only.length && !only.includes(name)) {
    const prev = previousSection(name);
    if (prev) sections.push({ name, body: prev });
    continue;
  }
  console.error(`bench: ${name} ...`);
  const started = Date.now();
  try {
    const mod = await import(pathToFileURL(path.join(root, 'bench', file)).href);
    const body = await mod.default({ root });
    sections.push({ name, body: `${body.trim()}\n\n_Measured ${date} on ${machine}; took ${((Date.now() - started) / 1000).toFixed(1)} s._` });
  } catch (e) {
    failed = true;
    console.error(`bench ${name} failed:`, e);
    sections.push({ name, body: `## ${name}\n\nFAILED on ${date}: ${String(e?.message ?? e).split('\n')[0]}` });
  }
}
const text = [
  '# Benchmarks',
  '',
  'Written by `npm run bench`. Each section says when and on what machine it was measured.',
  'Figures are medians of several runs unless a section says otherwise; ratios are against a baseline measured in the same run.',
  '',
  ...sections.map((s) => `<!-- bench:${s.name} -->\n${s.body}\n<!-- /bench:${s.name} -->\n`),
].join('\n');
writeFileSync(out, text);
console.error(`wrote ${path.relative(root, out)}`);
process.exit(failed ? 1 : 0);
