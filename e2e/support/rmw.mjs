// A read-modify-write of a shared file, paused between the read and the write until the test says go:
//   node rmw.mjs FILE LINE GATE_DIR NAME
// reads FILE, writes what it read to GATE_DIR/NAME.read (the test now knows the read happened),
// waits until GATE_DIR/NAME.go exists, then writes FILE back with LINE appended to what it read.
// Without a lock around it, two of these that both read before either writes lose one line.
import fs from 'node:fs';
import path from 'node:path';

const [file, line, gate, name] = process.argv.slice(2);
if (!file || !line || !gate || !name) {
  console.error('usage: node rmw.mjs FILE LINE GATE_DIR NAME');
  process.exit(2);
}
const before = fs.readFileSync(file, 'utf8');
// Whole or not at all: the test reads it the moment it exists.
fs.writeFileSync(path.join(gate, `${name}.read.tmp`), before);
fs.renameSync(path.join(gate, `${name}.read.tmp`), path.join(gate, `${name}.read`));
while (!fs.existsSync(path.join(gate, `${name}.go`))) await new Promise((r) => setTimeout(r, 10));
fs.writeFileSync(file, `${before}${line}\n`);
