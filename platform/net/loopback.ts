/** The names and addresses of this machine: where http (not https) is acceptable (RFC 8252 loopback redirects, local cookies). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname);
