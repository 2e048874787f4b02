/** Reading and writing the two cookies of sign-in: the login binding and the workspace session. */
import type { Request, Response } from 'express';

export interface CookieOptions {
  path: string;
  maxAgeSeconds: number;
  secure: boolean;
}

/** The value of cookie `name` when it matches `pattern`, else null. */
export function readCookie(req: Request, name: string, pattern: RegExp): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== name) continue;
    const value = part.slice(index + 1).trim();
    return pattern.test(value) ? value : null;
  }
  return null;
}

function serialize(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

export function setCookie(res: Response, name: string, value: string, options: CookieOptions): void {
  res.append('Set-Cookie', serialize(name, value, options));
}

export function clearCookie(res: Response, name: string, options: Omit<CookieOptions, 'maxAgeSeconds'>): void {
  res.append('Set-Cookie', serialize(name, '', { ...options, maxAgeSeconds: 0 }));
}
