/**
 * Tool arguments are checked against the tool's own `inputSchema` (the schema an agent reads in
 * tools/list is the one that is enforced). An error names each problem and shows the expected call.
 */
import { getAjv, type AjvError, type AjvFn } from '../core/index.js';
import type { JsonSchema, ObjectSchema } from './tools/types.js';

function typeText(s: JsonSchema): string {
  if (s.type === 'array') return `${s.items ? typeText(s.items) : 'any'}[]`;
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join('|');
  return s.type ?? 'any';
}

/** `make_claim(surfaces: string[], task: string, ttl_minutes?: integer, client_identity?: string)` */
export function signature(name: string, schema: ObjectSchema): string {
  const req = new Set(schema.required ?? []);
  const args = Object.entries(schema.properties).map(([k, s]) => `${k}${req.has(k) ? '' : '?'}: ${typeText(s)}`);
  return `${name}(${args.join(', ')})`;
}

function describe(e: AjvError): string {
  const at = e.instancePath === '' ? 'arguments' : e.instancePath.slice(1).replace(/\//g, '.');
  switch (e.keyword) {
    case 'required':
      return `${String(e.params.missingProperty)} is required`;
    case 'additionalProperties':
      return `${String(e.params.additionalProperty)} is not an argument of this tool`;
    case 'type':
      return `${at} must be ${e.params.type === 'integer' ? 'an integer' : `of type ${String(e.params.type)}`}`;
    case 'enum':
      return `${at} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at} ${e.message ?? e.keyword}`;
  }
}

export type ArgsCheck = (args: unknown) => string[];

export function compileArgsCheck(schema: ObjectSchema): ArgsCheck {
  let fn: AjvFn | undefined;
  return (args) => {
    fn ??= getAjv().compile(schema);
    if (fn(args)) return [];
    return [...new Set((fn.errors ?? []).map(describe))];
  };
}
