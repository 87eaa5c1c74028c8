/**
 * How far a signature's `t` may be from the receiver's clock, either way (spec 5.2): 300 s. In a
 * file of its own so that the signature's 2 KB Web build carries this number and nothing else of
 * `limits.ts`.
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
