/**
 * Wire text (an error envelope's `message`, `code`, `correlationId`) ends up in logs, and a server
 * that echoes request headers would put the API key or a signature there: it is redacted first.
 */

const REDACTED = '[redacted]';
// A `v1=` value of any length, and any bare 64-hex run (an HMAC-SHA256 digest out of its header).
const SIGNATURE_PARTS = /\bv1=[^\s,;"'&]*|\b[0-9a-f]{64}\b/gi;

/** A function that removes `secrets` (the API key and signing secrets) and signatures from text. */
export function redactor(secrets: readonly string[]): <T extends string | undefined>(text: T) => T {
  // Longest first, so that a secret containing another is removed whole.
  const needles = secrets.filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
  return <T extends string | undefined>(text: T): T => {
    if (text === undefined || text === '') return text;
    let out: string = text;
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    SIGNATURE_PARTS.lastIndex = 0;
    if (SIGNATURE_PARTS.test(out)) {
      out = out.replace(SIGNATURE_PARTS, (part) => (part.startsWith('v1=') ? `v1=${REDACTED}` : REDACTED));
    }
    return out as T;
  };
}
