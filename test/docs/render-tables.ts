import { EVENT_TYPES } from 'loyalty-partner-sdk';
import { EVENT_TYPE_NAMES } from '../../src/contract/index.js';

/**
 * Renders the README's event-type table from the catalogue. The README test asserts that the
 * README holds exactly this text, so the documentation cannot drift from the code.
 */
export function renderEventTable(): string {
  const rows = EVENT_TYPE_NAMES.map((name) => {
    const info = EVENT_TYPES[name];
    const direction = info.direction === 'inbound' ? 'partner → service' : 'service → partner';
    const availability =
      info.availability === 'Outbound'
        ? `Outbound${'emitted' in info && !info.emitted ? ' (not emitted yet)' : ''}`
        : info.availability;
    const entityId = info.entityIdField === null ? '(given by the sender)' : `\`${info.entityIdField}\``;
    return `| \`${name}\` | ${direction} | ${availability} | ${info.entityType} | ${entityId} |`;
  });
  return [
    '| eventType | direction | availability | entityType | entityId from |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
