/**
 * Every field that reaches a tab-separated or line-based file is escaped, so a value carrying a tab
 * or a newline can neither add a column nor forge a line. Backslash escapes itself first so the
 * mapping is reversible.
 */
export function escapeField(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

export function unescapeField(value: string): string {
  return value.replace(/\\(\\|t|r|n)/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : '\\'));
}
