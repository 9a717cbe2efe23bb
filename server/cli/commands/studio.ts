/**
 * `heimdall studio`: serves Studio for the planning tree of the current repository from the
 * production build shipped in the package (dist/studio: Next.js standalone output, built by
 * scripts/build-package.mjs), so an installed copy needs neither Next nor React nor a build.
 *
 * The server runs in this process: Next's own start-up (the same call its standalone server.js
 * makes) with the shipped configuration. The planning root is resolved here, before Next changes
 * the working directory to the build's folder, and handed to Studio as an absolute
 * HEIMDALL_PLANNING_DIR; the bound address goes to Studio's request guard as HEIMDALL_STUDIO_HOST
 * and PORT.
 */
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HeimdallError } from '../../core/index.js';
import { bool, int, parseArgs, str } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall studio [--port N] [--host H] [--json]   (serves Studio for the .planning/ of this repository; default 127.0.0.1:3000, --port 0 picks a free port; --json: {planning_tree, url} once it listens)';

/** The build's folder inside dist/studio (next.config.ts sets this distDir for the package build). */
const NEXT_DIR = '.next-package';

/** dist/studio of the installation this module belongs to (dist/chunks in the package, server/cli/commands in a checkout). */
export function findStudioBuild(from: string = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = from;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'dist', 'studio');
    if (fs.existsSync(path.join(candidate, NEXT_DIR, 'required-server-files.json'))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}

/** Refuse a taken port with a sentence rather than Next's EADDRINUSE stack. */
function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') reject(new HeimdallError('environment', `port ${port} on ${host} is in use; pass --port N (--port 0 picks a free one)`));
      else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') reject(new HeimdallError('usage', `--host ${host} is not an address of this machine`));
      else reject(new HeimdallError('environment', `cannot listen on ${host}:${port}: ${e.message}`));
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export const command: Command = {
  summary: 'serve Studio for this repository',
  async run(argv, { io, ctx, prog }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { port: 'int', host: 'string', json: 'boolean' }, positionals: [0, 0] });
    const port = int(p, 'port') ?? 3000;
    if (port < 0 || port > 65535) throw new HeimdallError('usage', `--port must be between 0 and 65535, got ${port}\nusage: ${USAGE}`);
    const host = (str(p, 'host') ?? '127.0.0.1').trim();
    if (host === '') throw new HeimdallError('usage', `--host needs an address\nusage: ${USAGE}`);

    const root = ctx().paths.root;
    if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
      throw new HeimdallError('environment', `no planning tree at ${root}: run \`heimdall init\` in your repository first (or set HEIMDALL_PLANNING_DIR)`);
    }
    await checkPortFree(host, port);
    const studioDir = findStudioBuild();
    if (!studioDir) {
      throw new HeimdallError(
        'environment',
        'this installation has no prebuilt Studio (dist/studio): the published package ships it; in a checkout of Heimdall run `npm start`, or `npm run build:package` once to build it',
      );
    }
    const serverFiles = JSON.parse(fs.readFileSync(path.join(studioDir, NEXT_DIR, 'required-server-files.json'), 'utf8')) as { config: Record<string, unknown> };

    const token = process.env.HEIMDALL_STUDIO_TOKEN ?? '';
    if (!isLoopback(host) && !token) io.err(`${prog}: warning: bound to ${host} without HEIMDALL_STUDIO_TOKEN; anyone who can reach this address can read and change the planning tree`);
    Object.assign(process.env, {
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      HEIMDALL_PLANNING_DIR: root,
      HEIMDALL_STUDIO_HOST: host,
      // Next reads its configuration from here instead of next.config.ts, which is not shipped.
      __NEXT_PRIVATE_STANDALONE_CONFIG: JSON.stringify(serverFiles.config),
    });
    const studioRequire = createRequire(path.join(studioDir, 'package.json'));
    studioRequire('next');
    const { startServer } = studioRequire('next/dist/server/lib/start-server') as {
      startServer(opts: { dir: string; isDev: boolean; config: unknown; hostname: string; port: number; allowRetry: boolean }): Promise<void>;
    };
    process.chdir(studioDir);
    await startServer({ dir: studioDir, isDev: false, config: serverFiles.config, hostname: host, port, allowRetry: false });
    // Next has stored the port it bound (the one asked for, or the free one --port 0 got).
    const shown = host.includes(':') ? `[${host}]` : host;
    const url = `http://${shown}:${process.env.PORT}/`;
    const shownUrl = token ? `${url}?token=${encodeURIComponent(token)}` : url;
    if (bool(p, 'json')) printJson(io, { planning_tree: root, url: shownUrl });
    else {
      io.out(`studio: planning tree: ${root}`);
      io.out(`studio: Studio is running at ${shownUrl}`);
    }
    // Serve until a signal: Next's own SIGINT/SIGTERM handlers close the server and exit.
    return new Promise<number>(() => {});
  },
};
