import { verifySignature, signPayload } from 'loyalty-partner-sdk/signature';
import { BODY, SECRET } from './fixtures.mjs';
const t = Math.floor(Date.now()/1000);
const header = signPayload(BODY, SECRET, { timestamp: t });
for (let i = 0; i < 1500000; i++) verifySignature(BODY, header, SECRET);
