import { SDK_VERSION } from '../contract/sdk-version.js';

/** `loyalty-partner-sdk/<version> <runtime>`, e.g. `loyalty-partner-sdk/0.1.0 node/20.19.0`. */
export function userAgent(runtime: string): string {
  return `loyalty-partner-sdk/${SDK_VERSION} ${runtime}`;
}

/**
 * The runtime token of the Web build: `navigator.userAgent` where it is a single product token
 * (`Deno/2.1.4`, `Bun/1.2.0`, `Cloudflare-Workers`, `Node.js/22`), else `web` (a browser's own
 * User-Agent is long, and browsers send it themselves anyway).
 */
export function webRuntime(): string {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof agent === 'string' && /^[\w.-]+(\/[\w.-]+)?$/.test(agent) ? agent : 'web';
}
