import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemas } from 'loyalty-partner-sdk';
import { signPayload, verifySignature } from 'loyalty-partner-sdk/signature';
import { describe, expect, it } from 'vitest';
import { contractFiles } from '../../scripts/contract-files.js';
import { schemaId } from '../../scripts/contract-files.schemas.js';

// Every code block of docs/contract-files.md is checked here: a block in a language this file
// does not know fails the first test, so no sample goes unchecked.
const addFormats = addFormatsModule as unknown as <T>(ajv: T) => T;
const markdown = readFileSync(new URL('../../docs/contract-files.md', import.meta.url), 'utf8');
const blocks = [...markdown.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(([, language, code]) => ({
  language: language!,
  code: code!,
}));
const blocksIn = (language: string) =>
  blocks.filter((block) => block.language === language).map((b) => b.code);

const files = contractFiles();
const ajv = addFormats(new Ajv2020({ strict: true }));
for (const [path, schema] of Object.entries(files)) if (path.startsWith('schemas/')) ajv.addSchema(schema);
const validate = (name: string, value: unknown) => ajv.getSchema(schemaId(name))!(value) as boolean;

const [http] = blocksIn('http');
const [sh] = blocksIn('sh');
const [head = '', body = ''] = http!.split('\n\n');
const signatureHeader = /^X-Signature: (.+)$/m.exec(head)![1]!;
const secret = /^secret='(.+)'$/m.exec(sh!)![1]!;

describe('docs/contract-files.md', () => {
  it('holds only code blocks this test checks', () => {
    expect(blocks.map((block) => block.language).sort()).toEqual(['http', 'json', 'json', 'sh', 'text']);
  });

  it('lists exactly the files the package ships', () => {
    const listed = blocksIn('text')[0]!.trim().split('\n');
    expect(listed.sort()).toEqual(
      Object.keys(files)
        .map((path) => `contract/${path}`)
        .sort(),
    );
  });

  it('shows an error answer and a sent envelope that the files and the SDK both accept', () => {
    const [error, sent] = blocksIn('json').map((code) => JSON.parse(code));
    expect(validate('error-envelope', error)).toBe(true);
    expect(schemas.errorEnvelope.safeParse(error).success).toBe(true);
    expect(validate('envelope', sent)).toBe(true);
    expect(schemas.envelope.safeParse(sent).success).toBe(true);
  });

  it('gives a signature test vector that the SDK signs and verifies the same way', () => {
    const timestamp = Number(/t=(\d+)/.exec(signatureHeader)![1]);
    expect(signPayload(body.trimEnd(), secret, { timestamp })).toBe(signatureHeader);
    expect(() => verifySignature(body.trimEnd(), signatureHeader, secret, { now: timestamp })).not.toThrow();
    expect(validate('received-envelope', JSON.parse(body))).toBe(true);
  });

  it('gives an openssl command that prints the v1 of that vector', () => {
    const printed = execFileSync('bash', ['-c', sh!], { encoding: 'utf8' }).trim();
    expect(`t=1763630000,v1=${printed}`).toBe(signatureHeader);
    expect(sh).toContain(body.trimEnd());
  });
});

describe('docs/contract-gaps.md: the timestamp rule', () => {
  const gaps = readFileSync(new URL('../../docs/contract-gaps.md', import.meta.url), 'utf8');
  const rule = gaps.slice(gaps.indexOf('## The timestamp rule'));
  const envelope = (occurredAt: string) => ({
    eventId: '019a9f2e-8b7a-7c3d-9e1f-0a1b2c3d4e5f',
    occurredAt,
    entityType: 'Integration',
    entityId: 'tenant-42',
    sourceSystem: 'Loyalty',
    schemaVersion: 1,
    eventType: 'IntegrationStatusChanged',
    payload: { status: 'Enabled' },
  });

  it('says what to write in Python, Go, Java and .NET', () => {
    for (const language of ['Python', 'Go', 'Java', '.NET']) expect(rule).toContain(`| ${language} |`);
  });

  it.each([
    ['2026-11-20T09:13:20Z', true],
    ['2026-11-20T09:13:20.123456Z', true],
    ['2026-11-20T09:13:20+00:00', false],
    ['2026-11-20T09:13:20.123+00:00', false],
    ['2026-11-20T09:13:20-00:00', false],
    ['2026-11-20T09:13:20z', false],
    ['2026-11-20T09:13:20', false],
    ['2026-11-20T12:13:20+03:00', false],
  ])('%s: accepted %s by the SDK and by received-envelope.json alike', (occurredAt, accepted) => {
    expect(schemas.outboundEnvelope.safeParse(envelope(occurredAt)).success).toBe(accepted);
    expect(validate('received-envelope', envelope(occurredAt))).toBe(accepted);
  });
});
