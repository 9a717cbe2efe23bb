/**
 * Server components load their first render through the same routers the browser calls, so the
 * first paint and every later refetch run the same code and the same error mapping.
 */
import { createContext } from './context.js';
import { appRouter } from './root.js';
import { createCallerFactory, internalDetail, toTrpcError } from './trpc.js';

const createCaller = createCallerFactory(appRouter);

export function serverCaller() {
  return createCaller(createContext());
}

/** A server-side result handed to a client component: the data, or the error a person should read. */
export type Settled<T> = { ok: true; data: T } | { ok: false; error: { message: string; code: string } };

/**
 * The core keeps maps of ids as null-prototype objects (a key such as "constructor" is data), and
 * React refuses to pass those to a client component. Hand the client what the browser's own fetches
 * get: the JSON form of the answer (JSON.parse defines every key, `__proto__` included, as an own
 * property of a plain object).
 */
export function plain<T>(data: T): T {
  return data === undefined ? data : (JSON.parse(JSON.stringify(data)) as T);
}

export async function settle<T>(load: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, data: plain(await load()) };
  } catch (e) {
    const err = toTrpcError(e);
    if (err.code === 'INTERNAL_SERVER_ERROR') console.error(`studio: ${internalDetail(err)}`);
    return { ok: false, error: { message: err.message, code: err.code } };
  }
}
