import { ERROR_CODES, type ErrorCode, type ErrorCodeInfo, EVENT_TYPES } from 'loyalty-partner-sdk';
import { EVENT_TYPE_NAMES } from '../../src/contract/index.js';
import { RECEIVER_ERROR_CODES } from '../../src/webhooks/receiver-error-codes.js';

/**
 * Renders the event-type table of docs/events.md from the catalogue. test/docs/guides.test.ts asserts that
 * the guide holds exactly this text, so the documentation cannot drift from the code.
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

export const TROUBLESHOOTING_START =
  '<!-- error-codes: generated from ERROR_CODES by test/docs/render-tables.ts; checked by test/docs/guides.test.ts -->';
export const TROUBLESHOOTING_END = '<!-- /error-codes -->';

/** Troubleshooting's table of the contract's codes: what each means, what to do. */
export function renderErrorCodeTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const info: ErrorCodeInfo = ERROR_CODES[code];
    const status = `${info.status}${info.planned ? ' (planned endpoints)' : ''}`;
    const scope = info.tenantWide ? ' (Every event of the merchant gets it until then.)' : '';
    return `| \`${code}\` | ${status} | ${info.condition} | \`${info.action}\`: ${info.remedy}${scope} |`;
  });
  return [
    TROUBLESHOOTING_START,
    '| code | status | what it means | what to do (`err.action`) |',
    '|---|---|---|---|',
    ...rows,
    TROUBLESHOOTING_END,
  ].join('\n');
}

export const RECEIVER_CODES_START =
  '<!-- receiver-codes: generated from RECEIVER_ERROR_CODES by test/docs/render-tables.ts -->';
export const RECEIVER_CODES_END = '<!-- /receiver-codes -->';

/** Troubleshooting's table of the codes a receiver answers with beyond the contract's. */
export function renderReceiverCodeTable(): string {
  const rows = Object.entries(RECEIVER_ERROR_CODES).map(
    ([code, { status, condition }]) => `| \`${code}\` | ${status} | ${condition} |`,
  );
  return [
    RECEIVER_CODES_START,
    '| code | status | when the receiver answers it |',
    '|---|---|---|',
    ...rows,
    RECEIVER_CODES_END,
  ].join('\n');
}
