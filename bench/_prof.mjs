import { createEnvelope } from 'loyalty-partner-sdk';
import { signPayload } from 'loyalty-partner-sdk/signature';
import { createEmulator } from 'loyalty-partner-sdk/testing';
const e = createEmulator({ historyLimit: Number(process.argv[2] ?? 100000) });
const SECRET='whsec_soak_secret_0123456789abcdef', API_KEY='lk_test_soak0000000000000000000000';
e.createMerchant({tenantId:'soak', apiKey:API_KEY, signingSecret:SECRET, branches:[{externalBranchId:'branch-soak'}]});
for (let k=0;k<60000;k++){
  const n=k%20000;
  const [t,p] = k<20000 ? ['CustomerSynced',{ externalCustomerId: `cust-${n}`, phone: `+9665${String(n).padStart(8,'0')}` }] : ['InvoiceEarned',{externalInvoiceId:`inv-${k}`,externalCustomerId:`cust-${n}`,externalBranchId:'branch-soak',subtotalAfterDiscountBeforeVat:50,earnType:'Points',stampCardId:null,channel:'Pos'}];
  const body = JSON.stringify(createEnvelope(t,p));
  const r = await e.fetch('http://x/api/partner/v1/events',{method:'POST',headers:{'content-type':'application/json','x-api-key':API_KEY,'x-signature':signPayload(body,SECRET)},body});
  if (r.status!==200) throw new Error(await r.text());
  await r.text();
}
globalThis.gc(); globalThis.gc();
console.log('heapUsed MB', Math.round(process.memoryUsage().heapUsed/1e6), 'rss', Math.round(process.memoryUsage().rss/1e6));
