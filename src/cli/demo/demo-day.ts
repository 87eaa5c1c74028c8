import type { DemoWorld } from './demo-world.js';
import { duplicateReplayed, outboundRefused, pausedResumed, retried503 } from './recovery-steps.js';
import { couponUsed, earnPoints, earnStamps } from './sale-steps.js';
import { activation, catalogueSync, firstSignedEvent } from './setup-steps.js';
import type { Step } from './step-runner.js';
import { dayClosed, ruleChanged } from './webhook-steps.js';

/** The POS day `loyalty-partner demo` plays, in order: later steps build on earlier ones. */
export const DEMO_DAY: readonly Step<DemoWorld>[] = [
  activation,
  firstSignedEvent,
  catalogueSync,
  earnPoints,
  earnStamps,
  couponUsed,
  retried503,
  duplicateReplayed,
  outboundRefused,
  ruleChanged,
  pausedResumed,
  dayClosed,
];
