import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { guideWithSection } from './generated-sections.js';
import {
  RECEIVER_CODES_END,
  RECEIVER_CODES_START,
  renderErrorCodeTable,
  renderEventTable,
  renderReceiverCodeTable,
  TROUBLESHOOTING_END,
  TROUBLESHOOTING_START,
} from './render-tables.js';

const guide = (name: string) => new URL(`../../docs/${name}`, import.meta.url);

describe('the guides’ generated tables (UPDATE_DOCS=1 rewrites them)', () => {
  it('docs/events.md shows the event table exactly as the catalogue renders it', () => {
    expect(readFileSync(guide('events.md'), 'utf8')).toContain(renderEventTable());
  });

  it.each([
    [
      'explains every code of ERROR_CODES, exactly as the catalogue renders it',
      renderErrorCodeTable,
      TROUBLESHOOTING_START,
      TROUBLESHOOTING_END,
    ],
    [
      'explains every code a receiver answers with beyond the contract’s',
      renderReceiverCodeTable,
      RECEIVER_CODES_START,
      RECEIVER_CODES_END,
    ],
  ])('docs/troubleshooting.md %s', (_, render, start, end) => {
    const table = render();
    expect(guideWithSection(guide('troubleshooting.md'), table, start, end)).toContain(table);
  });
});
