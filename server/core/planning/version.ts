/**
 * The protocol version stamped into every state file and the message schema's $id. A file written by
 * a newer major version is refused: its shape may have changed in ways this build cannot read safely.
 */
import { HeimdallError } from '../errors.js';

export const PROTOCOL_VERSION = '2.0.0';

export function majorOf(version: string): number {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!m) return Number.NaN;
  return Number(m[1]);
}

/** Throw if a state file's `version` is missing, malformed, or of a newer major than ours. */
export function checkStateVersion(file: string, version: unknown): void {
  if (typeof version !== 'string' || Number.isNaN(majorOf(version))) {
    throw new HeimdallError(
      'environment',
      `${file} has no valid "version" field (expected a semver string such as "${PROTOCOL_VERSION}"); the file was left untouched`,
    );
  }
  const ours = majorOf(PROTOCOL_VERSION);
  if (majorOf(version) > ours) {
    throw new HeimdallError(
      'environment',
      `${file} was written by protocol version ${version}, newer than this heimdall (${PROTOCOL_VERSION}); upgrade heimdall to read it`,
    );
  }
}
