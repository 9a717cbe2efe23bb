// Append a line to a file the way an editor or a script does: read it all, write it all back.
//   node append-line.mjs FILE LINE
// Two of these at once can lose a line; `heimdall gsd edit-shared` around it is what prevents that.
import fs from 'node:fs';

const [file, line] = process.argv.slice(2);
if (!file || !line) {
  console.error('usage: node append-line.mjs FILE LINE');
  process.exit(2);
}
const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
fs.writeFileSync(file, `${before}${line}\n`);
