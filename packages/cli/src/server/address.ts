/**
 * Addresses the inspector listens on and answers to: the one module that
 * decides what is loopback, what is a wildcard bind, and which Host header
 * values a server bound to an address accepts (so a rebinding DNS name never
 * reaches the API).
 */
import { isIPv6 } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { DEFAULT_HOST } from './listen-defaults.js';

/** Whether `host` reaches this machine only. */
export function isLoopback(host: string): boolean {
  return host === DEFAULT_HOST || host === '::1' || host === 'localhost';
}

/** Whether `host` binds every interface. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** The host a printed URL names for a server bound to `host`: a wildcard bind is reached on loopback. */
export function displayHost(host: string): string {
  return isWildcard(host) ? DEFAULT_HOST : host;
}

/** `host:port` as a Host header spells it (IPv6 literals in brackets). */
export function hostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`.toLowerCase();
}

/**
 * The Host header values this server answers to. A specific bind address
 * allows only itself; a wildcard bind allows the machine's own names and
 * addresses, never an arbitrary name a rebinding DNS could point here.
 */
export function allowedHosts(host: string, port: number): Set<string> {
  if (!isWildcard(host)) return new Set([hostPort(host, port)]);
  const names = ['localhost', hostname(), ...Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address))];
  return new Set(names.map((name) => hostPort(name, port)));
}
