/**
 * `loyalty-partner-sdk` as the `node` export condition serves it: every name of the Web build
 * (`../index.ts`), with the client on undici and signing on Node's crypto. Names exported here
 * shadow the star re-export, which is how the two builds keep one list of exports.
 *
 * @module loyalty-partner-sdk
 */
export * from '../index.js';
export { LoyaltyClient } from './client.js';
export { createEnvelope, parsePayload } from './envelope.js';
export { signPayload, verifySignature } from './signature.js';
