/**
 * Studio's request guard, in front of every request Next.js answers (pages, the tRPC API and its event
 * stream; Next's hashed build assets excepted, see `config`). It is Next's own request interception (the `proxy` file convention of Next 16,
 * formerly `middleware`; it always runs on the Node.js runtime), so every way of starting Studio is
 * guarded: `npm start` (scripts/start.mjs), plain `next start`, and the standalone server.
 *
 *   - Host check (DNS rebinding): a page on evil.example whose name is re-pointed at 127.0.0.1 sends
 *     `Host: evil.example`. Only the loopback names (127.0.0.1, localhost, [::1]) with the port Studio
 *     listens on are accepted, plus HEIMDALL_STUDIO_HOST (the address `npm start` binds when it is not
 *     loopback) and HEIMDALL_STUDIO_ALLOWED_HOSTS (comma-separated, for a reverse proxy). Anything
 *     else is refused with 403, so a Studio bound to every interface by `next start` still answers
 *     only requests addressed to it by a name it was given.
 *   - Cross-origin writes: a request other than GET/HEAD/OPTIONS whose Origin is not one of those
 *     hosts is refused, so another site open in the same browser cannot drive the API with a form or a
 *     no-CORS fetch.
 *   - Token: with HEIMDALL_STUDIO_TOKEN set, a request needs `?token=...` (once: it is exchanged for an
 *     HttpOnly, SameSite=Strict cookie and the browser is redirected to the same URL without it, so the
 *     token leaves the address bar and history), the cookie, or `Authorization: Bearer ...` (scripts).
 *     Anything else gets 401. The cookie holds an HMAC of the token, not the token.
 *
 * The port is read per request from PORT, which `next start`, the standalone server and
 * scripts/start.mjs all set to the port they actually listen on.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NextRequest } from 'next/server';
import { NextResponse } from 'next/server';

const COOKIE = 'heimdall_studio';
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function withPort(name: string, port: string): string[] {
  const host = name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
  return port === '80' ? [host, `${host}:80`] : [`${host}:${port}`];
}

/** Host header values this Studio answers to, from the environment it was started with. */
export function allowedHosts(env: Record<string, string | undefined>): Set<string> {
  const port = env.PORT?.trim() || '3000';
  const bound = env.HEIMDALL_STUDIO_HOST?.trim().toLowerCase() ?? '';
  const names = WILDCARD.has(bound) || LOOPBACK.includes(bound) || bound === '::1' ? LOOPBACK : [...LOOPBACK, bound];
  const extra = (env.HEIMDALL_STUDIO_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return new Set([...names.flatMap((n) => withPort(n, port)), ...extra]);
}

let cookieFor: { token: string; value: string } | undefined;

function cookieValue(token: string): string {
  if (cookieFor?.token !== token) cookieFor = { token, value: createHmac('sha256', token).update('heimdall-studio-session').digest('base64url') };
  return cookieFor.value;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function refuse(status: number, message: string): NextResponse {
  return new NextResponse(`${message}\n`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });
}

export function proxy(req: NextRequest): NextResponse {
  const env = process.env;
  const hosts = allowedHosts(env);
  const hostHeader = req.headers.get('host') ?? '';
  if (!hosts.has(hostHeader.toLowerCase())) {
    return refuse(
      403,
      `Refused: Host ${JSON.stringify(hostHeader)} is not this Studio (${[...hosts][0]}). Studio only answers requests addressed to the host it is bound to, so a page on another site cannot reach it by re-pointing its DNS name (DNS rebinding). Behind a reverse proxy, list its host name in HEIMDALL_STUDIO_ALLOWED_HOSTS.`,
    );
  }
  const origin = req.headers.get('origin');
  if (!SAFE_METHODS.has(req.method) && origin !== null) {
    let originHost = '';
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      // "null" (a sandboxed frame, a file: page) or garbage: refused below.
    }
    if (!hosts.has(originHost)) return refuse(403, `Refused: a ${req.method} from origin ${JSON.stringify(origin)}. Studio accepts changes only from its own pages.`);
  }
  const token = env.HEIMDALL_STUDIO_TOKEN ?? '';
  if (!token) return NextResponse.next();
  const url = req.nextUrl;
  const given = url.searchParams.get('token');
  if (given !== null) {
    if (!safeEqual(given, token)) return refuse(401, 'Refused: wrong Studio token.');
    const target = url.clone();
    target.searchParams.delete('token');
    // Next makes a same-origin Location relative again, so the address bar keeps only the path.
    const res = NextResponse.redirect(target, 303);
    res.headers.set('set-cookie', `${COOKIE}=${cookieValue(token)}; Path=/; HttpOnly; SameSite=Strict`);
    res.headers.set('cache-control', 'no-store');
    return res;
  }
  const cookie = req.cookies.get(COOKIE)?.value;
  const auth = req.headers.get('authorization') ?? '';
  if ((cookie !== undefined && safeEqual(cookie, cookieValue(token))) || (auth.startsWith('Bearer ') && safeEqual(auth.slice(7), token))) return NextResponse.next();
  return refuse(401, 'This Studio requires its access token (HEIMDALL_STUDIO_TOKEN). Open the URL that `npm start` printed, which ends in ?token=..., once; the browser then keeps a cookie.');
}

export const config = {
  // Every request but Next's hashed build assets (/_next/static/...): those are the same files the
  // npm package publishes (dist/studio), hold no data from any planning tree, and a page load fetches
  // a dozen of them, each of which would pay for this guard (measured: 44 -> 81 ms for a page's assets,
  // npm run bench -- studio). Pages, the API, its event stream and every other file stay guarded.
  matcher: '/((?!_next/static/).*)',
};
