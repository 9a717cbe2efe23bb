/**
 * What `--version` prints, for every program and the MCP server: the package's name and version and
 * the protocol version. The bundle has the package's fields inlined (scripts/build-cli.mjs defines
 * __HEIMDALL_PACKAGE_NAME__ and __HEIMDALL_PACKAGE_VERSION__), so a program never reads package.json
 * to answer; run from the sources (tests), the checkout's package.json is read.
 */
import { readFileSync } from 'node:fs';
import { PROTOCOL_VERSION } from './core/planning/version.js';

declare const __HEIMDALL_PACKAGE_NAME__: string | undefined;
declare const __HEIMDALL_PACKAGE_VERSION__: string | undefined;

export interface VersionInfo {
  /** The program that was asked: heimdall, heimdall-resolve, heimdall-ledger-mcp, ... */
  program: string;
  /** The npm package (heimdall-agents). */
  package: string;
  version: string;
  /** The protocol version stamped into state files and messages. */
  protocol: string;
}

export function versionInfo(program: string): VersionInfo {
  const pkg =
    typeof __HEIMDALL_PACKAGE_VERSION__ === 'undefined' || typeof __HEIMDALL_PACKAGE_NAME__ === 'undefined'
      ? (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string })
      : { name: __HEIMDALL_PACKAGE_NAME__, version: __HEIMDALL_PACKAGE_VERSION__ };
  return { program, package: pkg.name, version: pkg.version, protocol: PROTOCOL_VERSION };
}

/** One line: `heimdall-resolve 0.1.0 (heimdall-agents, protocol 2.0.0)`. */
export function versionLine(v: VersionInfo): string {
  return `${v.program} ${v.version} (${v.package}, protocol ${v.protocol})`;
}
