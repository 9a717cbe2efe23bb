/**
 * Why a read or write failed, in words a person can act on. A failed write is always reported with
 * its reason (disk full, quota, file size limit, permission) and never as success.
 */
import { HeimdallError } from '../errors.js';

export function ioReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  switch (code) {
    case 'ENOSPC':
      return 'the disk is full (ENOSPC)';
    case 'EDQUOT':
      return 'the disk quota is exceeded (EDQUOT)';
    case 'EFBIG':
      return 'the file size limit was reached (EFBIG, e.g. ulimit -f)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'EROFS':
      return 'the file system is read-only (EROFS)';
    case 'EISDIR':
      return 'it is a directory (EISDIR)';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder (ENOTDIR)';
    case 'EIO':
      return 'an input/output error (EIO)';
    default:
      return (e as Error)?.message ?? String(e);
  }
}

/** A write that did not happen: names the file, the reason, and what was left. */
export function writeError(file: string, e: unknown, left = `${file} was left as it was`): HeimdallError {
  if (e instanceof HeimdallError) return e;
  return new HeimdallError('environment', `cannot write ${file}: ${ioReason(e)}; ${left}`, { errno: (e as NodeJS.ErrnoException)?.code });
}

export function readError(file: string, e: unknown): HeimdallError {
  if (e instanceof HeimdallError) return e;
  return new HeimdallError('environment', `cannot read ${file}: ${ioReason(e)}`, { errno: (e as NodeJS.ErrnoException)?.code });
}
