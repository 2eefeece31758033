/**
 * Who the local stack answers, and when `npm start` warns. The stack carries test credentials (the
 * sandbox's app secret, the operator token it prints) and no real authentication, so no web page
 * may reach it: a page on another site whose name is made to resolve to 127.0.0.1 (DNS rebinding)
 * sends its own name in `Host`, and the gateways answer only the names of the address they listen
 * on, with its port (127.0.0.1, localhost, [::1], or HOST). On every interface (0.0.0.0, ::) any IP
 * address is taken too: the stack is then meant to be reached by this machine's addresses, and no
 * rebinding can send an address, only a name.
 */
import { isIP } from 'node:net';

const loopbackNames = new Set(['127.0.0.1', 'localhost', '::1']);
const everyInterface = new Set(['0.0.0.0', '::']);

/** A host without the brackets an IPv6 address carries in a URL, in lower case. */
function bare(host: string): string {
  const lower = host.trim().toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

/** Only this machine reaches it: a loopback name or any address of 127.0.0.0/8. */
export function isLoopback(host: string): boolean {
  const name = bare(host);
  return loopbackNames.has(name) || (isIP(name) === 4 && name.startsWith('127.'));
}

/** The name and port of a Host header (`name:port`, `[v6]:port`), or undefined when malformed. */
function parseHost(header: string): { name: string; port: number | undefined } | undefined {
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i.exec(header.trim());
  if (!match) return undefined;
  const name = (match[1] ?? match[2] ?? '').toLowerCase();
  return { name, port: match[3] === undefined ? undefined : Number(match[3]) };
}

/** Whether a request with this Host header is for the gateway listening on `host`:`port`. */
export function hostAllowed(header: string | undefined, listen: { host: string; port: number }): boolean {
  const sent = header ? parseHost(header) : undefined;
  // Without a port the Host names port 80: the local stack never listens there by default.
  if (!sent || (sent.port ?? 80) !== listen.port) return false;
  if (loopbackNames.has(sent.name)) return true;
  const own = bare(listen.host);
  if (everyInterface.has(own)) return isIP(sent.name) !== 0;
  return sent.name === own;
}

/** The host to put in a URL this machine calls the gateway at (every interface: loopback). */
export function reachableHost(host: string): string {
  const name = bare(host);
  if (name === '0.0.0.0') return '127.0.0.1';
  if (name === '::') return '[::1]';
  return isIP(name) === 6 ? `[${name}]` : name;
}

/** What `npm start` says when HOST opens the stack to other machines; nothing for loopback. */
export function exposureWarning(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return [
    `Warning: HOST=${host} makes the local stack reachable from other machines.`,
    'It is a test stack: it has test credentials (the sandbox app secret, the operator token it prints)',
    'and no real authentication: anyone who reaches it can create users and deposits, move its clock and',
    'arm crash points. Keep HOST=127.0.0.1 (the default) unless this network is yours alone.',
  ].join('\n');
}
