/**
 * JSON Schema validation with ajv, shared by every schema the protocol publishes (typed messages,
 * wire envelopes, handshake messages). Validators return `{valid, errors}`; they never throw on bad
 * input. Ajv is loaded on first use only.
 */
import { createRequire } from 'node:module';

export interface ValidationError {
  /** JSON pointer into the message, "/" for the message itself. */
  path: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationError[];
}

export type Validator = (data: unknown) => ValidationResult;

/** One ajv error, as ajv reports it (for transports that word their own messages). */
export interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
/** A compiled ajv validator. */
export type AjvFn = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvInstance {
  compile(schema: object): AjvFn;
}

let ajv: AjvInstance | undefined;
/** The one ajv instance of the process (allErrors, non-strict), loaded on first use. */
export function getAjv(): AjvInstance {
  if (!ajv) {
    const require = createRequire(import.meta.url);
    const Ajv = require('ajv').default as new (opts: object) => AjvInstance;
    ajv = new Ajv({ allErrors: true, strict: false });
  }
  return ajv;
}

function describe(e: AjvError): ValidationError {
  const base = e.instancePath === '' ? '' : e.instancePath;
  switch (e.keyword) {
    case 'required':
      return { path: `${base}/${String(e.params.missingProperty)}`, message: 'is required' };
    case 'additionalProperties':
      return {
        path: `${base}/${String(e.params.additionalProperty)}`,
        message: 'is not allowed here (unknown property; messages reference artifacts by id and never carry bodies)',
      };
    case 'enum':
      return { path: base || '/', message: `must be one of: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path: base || '/', message: `must be ${JSON.stringify(e.params.allowedValue)}` };
    default:
      return { path: base || '/', message: e.message ?? e.keyword };
  }
}

/** Compile a schema once; the returned function is cheap to call many times. */
export function compileValidator(schema: object): Validator {
  let fn: AjvFn | undefined;
  return (data: unknown) => {
    fn ??= getAjv().compile(schema);
    if (fn(data)) return { valid: true, errors: [] };
    const errors = (fn.errors ?? [])
      // `if` failures only restate the branch errors that follow them.
      .filter((e) => e.keyword !== 'if')
      .map(describe);
    const seen = new Set<string>();
    return {
      valid: false,
      errors: errors.filter((e) => {
        const k = `${e.path}\u0000${e.message}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      }),
    };
  };
}
