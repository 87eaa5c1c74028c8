import { parseSignatureHeader, signPayload, verifySignature } from 'loyalty-partner-sdk/signature';
import { signTestHeader } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

const body = '{"eventType":"IntegrationStatusChanged","payload":{"status":"Enabled"}}';

describe('signTestHeader', () => {
  it('signs exactly as signPayload does for a timestamp in unix seconds', () => {
    expect(signTestHeader(body, 'whsec_a', { timestamp: 1763630000 })).toBe(
      signPayload(body, 'whsec_a', { timestamp: 1763630000 }),
    );
  });

  it('takes a Date as the timestamp, so a stale signature is one line', () => {
    const header = signTestHeader(body, 'whsec_a', { timestamp: new Date('2026-11-20T09:00:00.999Z') });
    expect(parseSignatureHeader(header).timestamp).toBe(Date.UTC(2026, 10, 20, 9) / 1000);
    expect(() =>
      verifySignature(body, header, 'whsec_a', { now: Date.UTC(2026, 10, 20, 9, 6) / 1000 }),
    ).toThrow(expect.objectContaining({ code: 'SIGNATURE_EXPIRED' }));
  });

  it('signs with the current time by default, and once per secret during a rotation', () => {
    const header = signTestHeader(new TextEncoder().encode(body), ['whsec_new', 'whsec_old']);
    expect(parseSignatureHeader(header).signatures).toHaveLength(2);
    expect(verifySignature(body, header, 'whsec_old').secretIndex).toBe(0);
  });
});
