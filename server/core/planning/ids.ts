/**
 * Strict id patterns. Ids that become file names (capsules, conflicts) must never carry a path:
 * `../x`, `a/b` and the like are refused with the pattern in the message.
 */
import { HeimdallError } from '../errors.js';

export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const NAME_RULE = '1-64 characters: letters, digits, "_", "-" and "." (not first), no slashes';

export function checkName(kind: string, id: string): string {
  if (typeof id !== 'string' || !NAME_PATTERN.test(id) || id.includes('..')) {
    throw new HeimdallError('invalid', `invalid ${kind} id ${JSON.stringify(id)}: expected ${NAME_RULE} (e.g. w1, F12, dev_port)`);
  }
  return id;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A value stored in a line- or tab-based view must be one line of printable text. */
export function checkValue(kind: string, value: string, max = 4096): string {
  if (typeof value !== 'string' || value.length === 0) throw new HeimdallError('invalid', `${kind} value must be a non-empty string`);
  if (value.length > max) throw new HeimdallError('invalid', `${kind} value is ${value.length} characters; at most ${max} are allowed`);
  if (CONTROL.test(value)) {
    throw new HeimdallError('invalid', `${kind} value must be one line of text without tabs, newlines or other control characters (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)})`);
  }
  return value;
}
