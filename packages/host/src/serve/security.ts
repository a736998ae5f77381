/**
 * The loopback server's gatekeeping: a per-start random token, Host and Origin checks (a web page
 * elsewhere must not reach the engine, even through DNS rebinding to 127.0.0.1) and the headers
 * every response carries.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_BYTES = 32;
/** The only interface the server ever binds; there is deliberately no option to change it. */
export const LOOPBACK_ADDRESS = '127.0.0.1';

export function createToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Constant-time comparison; a missing or differently sized token is simply wrong. */
export function isValidToken(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Host headers the server answers to: the loopback address or `localhost`, on its own port. */
export function allowedHosts(port: number): ReadonlySet<string> {
  return new Set([`${LOOPBACK_ADDRESS}:${port}`, `localhost:${port}`]);
}

export function isAllowedHost(port: number, host: string | undefined): boolean {
  return host !== undefined && allowedHosts(port).has(host.toLowerCase());
}

/** RFC 9112: a request with more than one Host header is a 400 (two Hosts are how smuggling starts). */
export function hasSingleHostHeader(rawHeaders: readonly string[]): boolean {
  let hosts = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === 'host') hosts += 1;
  }
  return hosts === 1;
}

/** The Origin must be the page we served, on the host the request came to. */
export function isAllowedOrigin(port: number, host: string | undefined, origin: string | undefined): boolean {
  if (origin === undefined || !isAllowedHost(port, host)) return false;
  return origin.toLowerCase() === `http://${(host as string).toLowerCase()}`;
}

export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ws://${LOOPBACK_ADDRESS}:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(port),
    'X-Content-Type-Options': 'nosniff',
    // The printed URL carries the token until the page strips it: never leak it in a Referer.
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
